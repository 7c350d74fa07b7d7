"""Wrong and right answers for notebook 00 (napkin math), keyed by grade_id.

Each WRONG answer is a plausible mistake and must lose exactly its exercise's points; each
RIGHT answer is correct but written differently from the solution and must keep full marks.
"""

from __future__ import annotations

WRONG: dict[str, list[str]] = {
    "training_flops": [
        # forward pass only
        "def training_flops(n_params, n_tokens):\n    return 2 * n_params * n_tokens\n",
        # forward + one backward matmul per layer: 4, missing the weight gradients
        "def training_flops(n_params, n_tokens):\n    return 4 * n_params * n_tokens\n",
        # counts a multiply-add as one FLOP: a matmul does one multiply and one add per weight
        # per token
        "def training_flops(n_params, n_tokens):\n    return 3 * n_params * n_tokens\n",
        # 8 per parameter per token adds a second forward pass (activation recomputation); the
        # model's training FLOPs are 2 forward + 4 backward
        "def training_flops(n_params, n_tokens):\n    return 8 * n_params * n_tokens\n",
    ],
    "training_days": [
        # seconds, not days
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / (n_gpus * peak_flops_per_gpu * mfu)\n",
        # forgets that only a fraction (MFU) of the peak is achieved
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / (n_gpus * peak_flops_per_gpu * 86400)\n",
        # hours, not days
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / (n_gpus * peak_flops_per_gpu * mfu * 3600)\n",
        # divides the peak by the MFU: a lower MFU must make the run longer, so multiply the
        # peak by mfu
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / (n_gpus * peak_flops_per_gpu / mfu) / 86400\n",
        # forgets to share the work among the n_gpus GPUs
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / (peak_flops_per_gpu * mfu) / 86400\n",
        # floor division (//) drops the fraction of a day
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / (n_gpus * peak_flops_per_gpu * mfu) // 86400\n",
        # weeks, not days
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / (n_gpus * peak_flops_per_gpu * mfu) / (7 * 86400)\n",
    ],
    "max_trainable_params": [
        # counts only the fp32 weights, not grads and Adam's two moments
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=4):\n"
        "    return n_gpus * bytes_per_gpu / bytes_per_param\n",
        # floor division rounds away fractions of a parameter count
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return n_gpus * bytes_per_gpu // bytes_per_param\n",
        # 8 bytes per parameter: weights and gradients, without Adam's m and v
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=8):\n"
        "    return n_gpus * bytes_per_gpu / bytes_per_param\n",
        # 12 bytes per parameter leaves out one of the four 4-byte tensors (weight, gradient,
        # m, v)
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=12):\n"
        "    return n_gpus * bytes_per_gpu / bytes_per_param\n",
        # 20 bytes adds a master copy to fp32 training, where the weights already are the fp32
        # copy
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=20):\n"
        "    return n_gpus * bytes_per_gpu / bytes_per_param\n",
        # one GPU's memory: the state is spread over all n_gpus GPUs
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return bytes_per_gpu / bytes_per_param\n",
        # ignores bytes_per_param: divide by the argument, not by a fixed 16
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return n_gpus * bytes_per_gpu / 16\n",
    ],
}

RIGHT: dict[str, list[str]] = {
    "training_flops": [
        # forward and backward counted separately
        "def training_flops(n_params, n_tokens):\n"
        "    forward = 2 * n_params * n_tokens\n"
        "    backward = 2 * forward\n"
        "    return forward + backward\n",
        # integer arithmetic, an int result
        "def training_flops(n_params, n_tokens):\n    return int(6 * n_params * n_tokens)\n",
        # a float32 0-d tensor (right to about 7 digits)
        "import torch\n\n"
        "def training_flops(n_params, n_tokens):\n"
        "    return torch.tensor(6.0) * n_params * n_tokens\n",
        # a NumPy float32 scalar
        "import numpy as np\n\n"
        "def training_flops(n_params, n_tokens):\n    return np.float32(6) * n_params * n_tokens\n",
        # one product of the three factors
        "import math\n\n"
        "def training_flops(n_params, n_tokens):\n    return math.prod((6, n_params, n_tokens))\n",
    ],
    "training_days": [
        # one chained division
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    return total_flops / n_gpus / peak_flops_per_gpu / mfu / 60 / 60 / 24\n",
        # the standard library's notion of a day
        "from datetime import timedelta\n\n"
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    seconds = total_flops / (n_gpus * peak_flops_per_gpu * mfu)\n"
        "    return timedelta(seconds=seconds) / timedelta(days=1)\n",
        # float32 torch arithmetic, returned as a Python float
        "import torch\n\n"
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    rate = n_gpus * peak_flops_per_gpu * mfu\n"
        "    return (torch.tensor(total_flops) / rate / 86400).item()\n",
        # NumPy float32 scalars throughout
        "import numpy as np\n\n"
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    rate = np.float32(n_gpus * peak_flops_per_gpu * mfu)\n"
        "    return np.float32(total_flops) / rate / np.float32(86400)\n",
        # a float64 0-d tensor
        "import torch\n\n"
        "def training_days(total_flops, n_gpus, peak_flops_per_gpu, mfu):\n"
        "    flops = torch.tensor(total_flops, dtype=torch.float64)\n"
        "    return flops / (n_gpus * peak_flops_per_gpu * mfu * 86400)\n",
    ],
    "max_trainable_params": [
        # per-GPU count first, then times the GPUs
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    per_gpu = bytes_per_gpu / bytes_per_param\n"
        "    return n_gpus * per_gpu\n",
        # a numpy scalar
        "import numpy as np\n\n"
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return np.float64(n_gpus) * bytes_per_gpu / bytes_per_param\n",
        # NumPy float32 scalars (right to about 7 digits)
        "import numpy as np\n\n"
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return np.float32(n_gpus) * np.float32(bytes_per_gpu) / np.float32(bytes_per_param)\n",
        # a float32 0-d tensor
        "import torch\n\n"
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return torch.tensor(n_gpus * bytes_per_gpu) / bytes_per_param\n",
        # exact fractions
        "from fractions import Fraction\n\n"
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return Fraction(n_gpus) * Fraction(bytes_per_gpu) / Fraction(bytes_per_param)\n",
    ],
}

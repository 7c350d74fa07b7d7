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
    ],
    "max_trainable_params": [
        # counts only the fp32 weights, not grads and Adam's two moments
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=4):\n"
        "    return n_gpus * bytes_per_gpu / bytes_per_param\n",
        # floor division rounds away fractions of a parameter count
        "def max_trainable_params(n_gpus, bytes_per_gpu, bytes_per_param=16):\n"
        "    return n_gpus * bytes_per_gpu // bytes_per_param\n",
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
    ],
}

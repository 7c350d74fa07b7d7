"""Correct answers written differently from the instructor's, as replacement solution cells.

Keyed like ``wrong_answers.py``: assignment, then the solution cell's grade_id. Each one is
what a student might reasonably write (another formula order, another torch API, a helper
from the standard library, an int where we return a float); every one must score full marks.
"""

from answers import by_assignment

RIGHT_ANSWERS: dict[str, dict[str, list[str]]] = {
    "00_napkin_math": {
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
    },
    "01_tensors_and_memory": {
        "tensor_bytes": [
            "def tensor_bytes(x):\n    return x.nbytes\n",
            "def tensor_bytes(x):\n    return math.prod(x.shape) * x.dtype.itemsize\n",
            "def tensor_bytes(x):\n"
            "    return x.nelement() * torch.empty((), dtype=x.dtype).element_size()\n",
        ],
        "bytes_for": [
            # a loop instead of math.prod
            "def bytes_for(shape, dtype):\n"
            "    n = 1\n    for size in shape:\n        n *= size\n"
            "    return n * dtype.itemsize\n",
            # the notebook's own hint: a meta tensor allocates nothing
            "def bytes_for(shape, dtype):\n"
            "    return torch.empty(shape, dtype=dtype, device='meta').nbytes\n",
            "import functools\nimport operator\n\n"
            "def bytes_for(shape, dtype):\n"
            "    elements = functools.reduce(operator.mul, shape, 1)\n"
            "    return elements * torch.tensor([], dtype=dtype).element_size()\n",
        ],
        "storage_bytes": [
            # an untyped storage's size is counted in bytes
            "def storage_bytes(x):\n    return x.untyped_storage().size()\n",
            "def storage_bytes(x):\n    return len(x.untyped_storage())\n",
            # the deprecated TypedStorage: right answer, plus a torch UserWarning
            "def storage_bytes(x):\n    return x.storage().nbytes()\n",
        ],
        "adamw_bytes_per_param": [
            # a list of the dtypes kept, measured on empty tensors
            "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
            "                          state_dtype=torch.float32):\n"
            "    kept = [param_dtype, grad_dtype, state_dtype, state_dtype]\n"
            "    if master_dtype is not None:\n"
            "        kept.append(master_dtype)\n"
            "    return sum(torch.empty(0, dtype=d).element_size() for d in kept)\n",
            # bits of each floating-point format, divided into bytes
            "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
            "                          state_dtype=torch.float32):\n"
            "    bits = torch.finfo(param_dtype).bits + torch.finfo(grad_dtype).bits\n"
            "    bits += 2 * torch.finfo(state_dtype).bits\n"
            "    if master_dtype:\n"
            "        bits += torch.finfo(master_dtype).bits\n"
            "    return bits // 8\n",
        ],
    },
}

RIGHT_ANSWERS.update(by_assignment("RIGHT"))  # notebooks 02 onwards: tests/answers/

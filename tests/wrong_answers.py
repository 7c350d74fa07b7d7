"""Plausible wrong answers, one or more per exercise, as replacement solution cells.

Keyed by assignment, then by the solution cell's grade_id. The grading tests submit each
one alone (everything else correct) and expect it to lose exactly that exercise's points.
"""

from answers import by_assignment

WRONG_ANSWERS: dict[str, dict[str, list[str]]] = {
    "00_napkin_math": {
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
    },
    "01_tensors_and_memory": {
        "tensor_bytes": [
            # elements, not bytes
            "def tensor_bytes(x):\n    return x.numel()\n",
            # the whole storage, wrong for a view
            "def tensor_bytes(x):\n    return x.untyped_storage().nbytes()\n",
            # bits, not bytes
            "def tensor_bytes(x):\n    return x.numel() * x.element_size() * 8\n",
        ],
        "bytes_for": [
            # assumes every dtype is 4 bytes
            "def bytes_for(shape, dtype):\n"
            "    n = 1\n    for size in shape:\n        n *= size\n    return n * 4\n",
            # allocates the tensor to measure it: fails for shapes too big to allocate
            "def bytes_for(shape, dtype):\n    return torch.empty(shape, dtype=dtype).nbytes\n",
        ],
        "storage_bytes": [
            # the view's own elements, not the storage it keeps alive
            "def storage_bytes(x):\n    return x.numel() * x.element_size()\n",
            # the storage's size in elements, not bytes
            "def storage_bytes(x):\n    return x.storage().size()\n",
        ],
        "adamw_bytes_per_param": [
            # forgets the second moment v
            "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
            "                          state_dtype=torch.float32):\n"
            "    master = 0 if master_dtype is None else master_dtype.itemsize\n"
            "    return param_dtype.itemsize + grad_dtype.itemsize + master"
            " + state_dtype.itemsize\n",
            # always counts a 4-byte master copy, even when there is none
            "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
            "                          state_dtype=torch.float32):\n"
            "    return param_dtype.itemsize + grad_dtype.itemsize + 4"
            " + 2 * state_dtype.itemsize\n",
            # keeps the moments in the weights' dtype, ignoring state_dtype
            "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
            "                          state_dtype=torch.float32):\n"
            "    master = 0 if master_dtype is None else master_dtype.itemsize\n"
            "    return param_dtype.itemsize + grad_dtype.itemsize + master"
            " + 2 * param_dtype.itemsize\n",
        ],
    },
}

WRONG_ANSWERS.update(by_assignment("WRONG"))  # notebooks 02 onwards: tests/answers/

"""Wrong and right answers for notebook 01 (tensors and their memory), keyed by grade_id.

Each WRONG answer is a plausible mistake and must lose exactly its exercise's points; each
RIGHT answer is correct but written differently from the solution and must keep full marks.
"""

from __future__ import annotations

WRONG: dict[str, list[str]] = {
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
}

RIGHT: dict[str, list[str]] = {
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
}

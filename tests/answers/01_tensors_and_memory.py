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
        # assumes 4 bytes per element: ask the tensor for its element_size()
        "def tensor_bytes(x):\n    return x.numel() * 4\n",
        # len(x) counts only the first dimension: numel() counts every element
        "def tensor_bytes(x):\n    return len(x) * x.element_size()\n",
        # sys.getsizeof measures the Python object that describes the tensor, not its elements
        "import sys\n\ndef tensor_bytes(x):\n    return sys.getsizeof(x)\n",
        # numpy.prod(()) is the float 1.0: a 0-d tensor's byte count comes out as a float
        "import numpy as np\n\n"
        "def tensor_bytes(x):\n    return np.prod(x.shape) * x.element_size()\n",
        # the storage from the view's offset to its end
        "def tensor_bytes(x):\n"
        "    return x.untyped_storage().nbytes() - x.storage_offset() * x.element_size()\n",
    ],
    "bytes_for": [
        # assumes every dtype is 4 bytes
        "def bytes_for(shape, dtype):\n"
        "    n = 1\n    for size in shape:\n        n *= size\n    return n * 4\n",
        # allocates the tensor to measure it: fails for shapes too big to allocate
        "def bytes_for(shape, dtype):\n    return torch.empty(shape, dtype=dtype).nbytes\n",
        # numpy.prod(()) is the float 1.0: a scalar's byte count comes out as a float
        "import numpy as np\n\n"
        "def bytes_for(shape, dtype):\n    return np.prod(shape) * dtype.itemsize\n",
        # a scalar has no dimensions but one element: the product of an empty shape is 1
        "def bytes_for(shape, dtype):\n"
        "    if len(shape) == 0:\n        return 0\n"
        "    return math.prod(shape) * dtype.itemsize\n",
        # bits, not bytes
        "def bytes_for(shape, dtype):\n    return math.prod(shape) * dtype.itemsize * 8\n",
        # adds the sizes: the element count is their product
        "def bytes_for(shape, dtype):\n    return sum(shape) * dtype.itemsize\n",
        # torch.finfo knows floating-point dtypes only: bool and the integers raise
        "def bytes_for(shape, dtype):\n    return math.prod(shape) * torch.finfo(dtype).bits // 8\n",
    ],
    "storage_bytes": [
        # the view's own elements, not the storage it keeps alive
        "def storage_bytes(x):\n    return x.numel() * x.element_size()\n",
        # the storage's size in elements, not bytes
        "def storage_bytes(x):\n    return x.storage().size()\n",
        # subtracts the offset: the bytes before the view belong to the same storage and stay
        # alive too
        "def storage_bytes(x):\n"
        "    return x.untyped_storage().nbytes() - x.storage_offset() * x.element_size()\n",
        # untyped_storage() counts bytes already: multiplying by element_size() counts each
        # byte again
        "def storage_bytes(x):\n    return x.untyped_storage().size() * x.element_size()\n",
        # the base tensor's bytes: detach() and resize_ leave no ._base to follow
        "def storage_bytes(x):\n"
        "    base = x._base if x._base is not None else x\n"
        "    return base.numel() * base.element_size()\n",
        # the bytes up to the last element the view reaches, not the whole storage
        "def storage_bytes(x):\n"
        "    if x.numel() == 0:\n        return 0\n"
        "    last = x.storage_offset() + sum((s - 1) * st for s, st in zip(x.shape, x.stride()))\n"
        "    return (last + 1) * x.element_size()\n",
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
        # sizes the master copy by the weights' dtype: it takes master_dtype's size
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    master = 0 if master_dtype is None else param_dtype.itemsize\n"
        "    return param_dtype.itemsize + grad_dtype.itemsize + master"
        " + 2 * state_dtype.itemsize\n",
        # the gradient takes grad_dtype's size, not the weights'
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    master = 0 if master_dtype is None else master_dtype.itemsize\n"
        "    return 2 * param_dtype.itemsize + master + 2 * state_dtype.itemsize\n",
        # m and v always at 4 bytes, ignoring state_dtype
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    master = 0 if master_dtype is None else master_dtype.itemsize\n"
        "    return param_dtype.itemsize + grad_dtype.itemsize + master + 8\n",
        # leaves out the master copy: count master_dtype's size when it is given
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    return param_dtype.itemsize + grad_dtype.itemsize + 2 * state_dtype.itemsize\n",
        # the master copy sized by state_dtype, not master_dtype
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    master = 0 if master_dtype is None else state_dtype.itemsize\n"
        "    return param_dtype.itemsize + grad_dtype.itemsize + master"
        " + 2 * state_dtype.itemsize\n",
        # bits divided into bytes with /: a float, though a byte count is a whole number
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    bits = torch.finfo(param_dtype).bits + torch.finfo(grad_dtype).bits\n"
        "    bits += 2 * torch.finfo(state_dtype).bits\n"
        "    if master_dtype:\n"
        "        bits += torch.finfo(master_dtype).bits\n"
        "    return bits / 8\n",
    ],
}

RIGHT: dict[str, list[str]] = {
    "tensor_bytes": [
        "def tensor_bytes(x):\n    return x.nbytes\n",
        "def tensor_bytes(x):\n    return math.prod(x.shape) * x.dtype.itemsize\n",
        "def tensor_bytes(x):\n"
        "    return x.nelement() * torch.empty((), dtype=x.dtype).element_size()\n",
        # Tensor.itemsize, and a tensor product wrapped in int()
        "def tensor_bytes(x):\n    return x.itemsize * x.nelement()\n",
        "def tensor_bytes(x):\n"
        "    return int(torch.tensor(x.shape, dtype=torch.int64).prod()) * x.element_size()\n",
        # NumPy's product in int64, left a NumPy integer
        "import numpy as np\n\n"
        "def tensor_bytes(x):\n    return np.prod(x.shape, dtype=np.int64) * x.element_size()\n",
        # a 0-d int64 tensor
        "def tensor_bytes(x):\n    return torch.tensor(x.numel()) * x.element_size()\n",
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
        # torch.Size counts the elements
        "def bytes_for(shape, dtype):\n"
        "    return torch.Size(shape).numel() * torch.empty(0, dtype=dtype).element_size()\n",
        # NumPy's product in int64, made a Python int
        "import numpy as np\n\n"
        "def bytes_for(shape, dtype):\n"
        "    return int(np.prod(shape, dtype=np.int64)) * dtype.itemsize\n",
        # the same product left a NumPy integer
        "import numpy as np\n\n"
        "def bytes_for(shape, dtype):\n"
        "    return np.prod(shape, dtype=np.int64) * dtype.itemsize\n",
        # an int64 tensor's product: a 0-d tensor (the product of no sizes is 1)
        "def bytes_for(shape, dtype):\n"
        "    return torch.tensor(list(shape), dtype=torch.int64).prod() * dtype.itemsize\n",
    ],
    "storage_bytes": [
        # an untyped storage's size is counted in bytes
        "def storage_bytes(x):\n    return x.untyped_storage().size()\n",
        "def storage_bytes(x):\n    return len(x.untyped_storage())\n",
        # the deprecated TypedStorage: right answer, plus a torch UserWarning
        "def storage_bytes(x):\n    return x.storage().nbytes()\n",
        # the typed storage counts elements of the view's dtype: times their size
        "def storage_bytes(x):\n    return x.storage().size() * x.element_size()\n",
        # a NumPy integer
        "import numpy as np\n\n"
        "def storage_bytes(x):\n    return np.int64(x.untyped_storage().nbytes())\n",
        # a 0-d int64 tensor
        "def storage_bytes(x):\n    return torch.tensor(x.untyped_storage().nbytes())\n",
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
        # the dtypes that are there, summed
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    kept = [param_dtype, grad_dtype, master_dtype, state_dtype, state_dtype]\n"
        "    return sum(d.itemsize for d in kept if d is not None)\n",
        # NumPy's sum of the sizes: a NumPy integer
        "import numpy as np\n\n"
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    kept = [param_dtype, grad_dtype, master_dtype, state_dtype, state_dtype]\n"
        "    return np.sum([d.itemsize for d in kept if d is not None])\n",
        # a tensor of the sizes, summed: a 0-d int64 tensor
        "def adamw_bytes_per_param(param_dtype, grad_dtype, master_dtype=None,\n"
        "                          state_dtype=torch.float32):\n"
        "    kept = [param_dtype, grad_dtype, master_dtype, state_dtype, state_dtype]\n"
        "    return torch.tensor([d.itemsize for d in kept if d is not None]).sum()\n",
    ],
}

"""Wrong and right answers for notebook 02 (strides, views and copies), keyed by grade_id.

Each WRONG answer is a plausible mistake and must lose exactly its exercise's points; each
RIGHT answer is correct but written differently from the solution and must keep full marks.
"""

from __future__ import annotations

_COPIES_RIGHT = {
    "x.t()": False, "x[1]": False, "x[:, 1]": False, "x[::2]": False,
    "x.view(2, 6)": False, "x.view(torch.int32)": False, "x.unsqueeze(0)": False,
    "x.expand(2, 3, 4)": False, "x.repeat(2, 1)": True, "x.reshape(12)": False,
    "x[:2].reshape(-1)": False, "x[:, :2].reshape(-1)": True, "x.t().reshape(12)": True,
    "x.t().reshape(2, 2, 3)": False, "x.contiguous()": False, "x.t().contiguous()": True,
    "x[[0, 2]]": True, "x[x > 5]": True, "x.clone()": True, "x.flip(0)": True,
    "x.float()": False, "x.double()": True,
}


def _copies_cell(table: dict[str, bool]) -> str:
    """A predict_copies cell returning ``table``, with the cell's COPIES assignment."""
    return (
        "def predict_copies() -> dict[str, bool]:\n"
        f"    return {table!r}\n\n\n"
        "COPIES = predict_copies()\n"
    )


def _with(changes: dict[str, bool]) -> dict[str, bool]:
    return {**_COPIES_RIGHT, **changes}


WRONG: dict[str, list[str]] = {
    "contiguous_strides": [
        # strides in bytes (float32), as NumPy reports them, instead of elements
        "def contiguous_strides(shape):\n"
        "    out, step = [], 4\n"
        "    for size in reversed(tuple(shape)):\n"
        "        out.append(step)\n"
        "        step *= size\n"
        "    return tuple(reversed(out))\n",
        # column-major (Fortran order): the first index moves fastest
        "def contiguous_strides(shape):\n"
        "    out, step = [], 1\n"
        "    for size in tuple(shape):\n"
        "        out.append(step)\n"
        "        step *= size\n"
        "    return tuple(out)\n",
        # off by one dimension: each stride includes its own size
        "import math\n\n"
        "def contiguous_strides(shape):\n"
        "    shape = tuple(shape)\n"
        "    return tuple(math.prod(shape[i:]) for i in range(len(shape)))\n",
        # returns a list, not a tuple like torch's .stride()
        "def contiguous_strides(shape):\n"
        "    shape = list(shape)\n"
        "    return [int(torch.tensor(shape[i + 1:]).prod()) for i in range(len(shape))]\n",
        # strides by true division (/): floats, though a stride is a whole number of elements
        "import math\n\n"
        "def contiguous_strides(shape):\n"
        "    shape = tuple(shape)\n"
        "    return tuple(math.prod(shape[i:]) / shape[i] for i in range(len(shape)))\n",
        # a scalar's strides are (): the empty shape treated as one dimension
        'def contiguous_strides(shape):\n'
        '    t = torch.tensor(list(shape)[1:] + [1])\n'
        '    return tuple(t.flip(0).cumprod(0).flip(0).tolist())\n',
    ],
    "element_offset": [
        # ignores storage_offset: right only for views that start at the storage's start
        "def element_offset(index, stride, storage_offset=0):\n"
        "    return sum(i * s for i, s in zip(index, stride))\n",
        # pairs each index with the wrong dimension's stride
        "def element_offset(index, stride, storage_offset=0):\n"
        "    return storage_offset + sum(i * s for i, s in zip(index, reversed(stride)))\n",
        # a byte offset (float32) instead of an element offset
        "def element_offset(index, stride, storage_offset=0):\n"
        "    return 4 * (storage_offset + sum(i * s for i, s in zip(index, stride)))\n",
        # numpy.dot of two empty sequences is the float 0.0: a scalar's offset comes out as a
        # float
        'import numpy as np\n'
        'def element_offset(index, stride, storage_offset=0):\n'
        '    return np.dot(index, stride) + storage_offset\n',
        # only the first two dimensions counted: sum over every dimension
        'def element_offset(index, stride, storage_offset=0):\n'
        '    if not index: return storage_offset\n'
        '    if len(index) == 1: return storage_offset + index[0] * stride[0]\n'
        '    return storage_offset + index[0] * stride[0] + index[1] * stride[1]\n',
    ],
    "is_contiguous": [
        # judged by the shape alone: any well-formed shape counts as contiguous
        "def is_contiguous(shape, stride):\n"
        "    return len(shape) == len(stride)\n",
        # strict comparison with the row-major strides: wrong for size-1 and empty dims
        "def is_contiguous(shape, stride):\n"
        "    expected, step = [], 1\n"
        "    for size in reversed(tuple(shape)):\n"
        "        expected.append(step)\n"
        "        step *= size\n"
        "    return tuple(stride) == tuple(reversed(expected))\n",
        # skips size-1 dimensions but forgets that an empty tensor is always contiguous
        "def is_contiguous(shape, stride):\n"
        "    expected = 1\n"
        "    for size, step in zip(reversed(tuple(shape)), reversed(tuple(stride))):\n"
        "        if size != 1:\n"
        "            if step != expected:\n"
        "                return False\n"
        "            expected *= size\n"
        "    return True\n",
        # "strides decreasing" is taken for contiguity: misses gaps and steps
        "def is_contiguous(shape, stride):\n"
        "    return list(stride) == sorted(stride, reverse=True)\n",
        # no elements handled, but size-1 dimensions compared strictly
        'def is_contiguous(shape, stride):\n'
        '    if 0 in tuple(shape): return True\n'
        '    exp, step = [], 1\n'
        '    for size in reversed(tuple(shape)):\n'
        '        exp.append(step); step *= size\n'
        '    return tuple(stride) == tuple(reversed(exp))\n',
        # "no gaps" taken for contiguity: the span equals the element count, in any order
        'import math\n'
        'def is_contiguous(shape, stride):\n'
        '    n = math.prod(shape)\n'
        '    if n == 0: return True\n'
        '    return 1 + sum((a - 1) * s for a, s in zip(shape, stride)) == n\n',
    ],
    "shares_storage": [
        # compares the tensors' own data pointers: a view with an offset starts elsewhere
        "def shares_storage(a, b):\n"
        "    return a.data_ptr() == b.data_ptr()\n",
        # equal values taken for shared memory
        "def shares_storage(a, b):\n"
        "    return a.shape == b.shape and bool(torch.equal(a, b))\n",
        # follows ._base: misses detach() and two sibling views
        "def shares_storage(a, b):\n"
        "    return a is b or a._base is b or b._base is a\n",
        # overlapping elements taken for shared storage: misses disjoint slices of one storage
        "def shares_storage(a, b):\n"
        "    def span(t):\n"
        "        return t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()\n"
        "    (a0, a1), (b0, b1) = span(a), span(b)\n"
        "    return a0 < b1 and b0 < a1\n",
        # NumPy's overlap test: two disjoint slices of one storage share no element
        'import numpy as np\n'
        'def shares_storage(a, b):\n'
        '    return bool(np.shares_memory(a.numpy(), b.numpy()))\n',
        # the root found through ._base: detach() and dtype views set none
        'def shares_storage(a, b):\n'
        '    ra = a if a._base is None else a._base\n'
        '    rb = b if b._base is None else b._base\n'
        '    return ra is rb\n',
        # a dtype view taken for another storage
        'def shares_storage(a, b):\n'
        '    return a.dtype == b.dtype and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n',
    ],
    "predict_copies": [
        # "reshape always copies"
        _copies_cell(_with({"x.reshape(12)": True, "x[:2].reshape(-1)": True,
                            "x.t().reshape(2, 2, 3)": True})),
        # "contiguous() and float() always make a new tensor"
        _copies_cell(_with({"x.contiguous()": True, "x.float()": True})),
        # expand taken for a copy like repeat, flip for a view as in NumPy
        _copies_cell(_with({"x.expand(2, 3, 4)": True, "x.flip(0)": False})),
        # a key missing: one operation forgotten
        _copies_cell({k: v for k, v in _COPIES_RIGHT.items() if k != "x.double()"}),
        # every dtype change taken for a copy: view(torch.int32) reads the same bytes
        _copies_cell(_with({"x.view(torch.int32)": True, "x.float()": True})),
        # "reshape copies whenever its input is not contiguous"
        _copies_cell(_with({"x.t().reshape(2, 2, 3)": True})),
    ],
    "sliding_windows": [
        # window count off by one: the last complete window is lost
        "def sliding_windows(x, size, step):\n"
        "    n = (len(x) - size) // step\n"
        "    return x.as_strided((n, size), (step * x.stride(0), x.stride(0)))\n",
        # the incomplete last window kept: reads past x's end when the storage goes on
        "import math\n\n"
        "def sliding_windows(x, size, step):\n"
        "    n = math.ceil((len(x) - size) / step) + 1\n"
        "    return x.as_strided((n, size), (step * x.stride(0), x.stride(0)))\n",
        # right values, but copied: the windows no longer share x's storage
        "def sliding_windows(x, size, step):\n"
        "    starts = range(0, len(x) - size + 1, step)\n"
        "    return torch.stack([x[s:s + size] for s in starts])\n",
        # ignores x's own stride and offset: right only for a fresh contiguous x
        "def sliding_windows(x, size, step):\n"
        "    n = (len(x) - size) // step + 1\n"
        "    return x.as_strided((n, size), (step, 1), 0)\n",
        # made contiguous first: a copy of a strided x, so not a view of x's storage
        "def sliding_windows(x, size, step):\n"
        "    x = x.contiguous()\n"
        "    n = (len(x) - size) // step + 1\n"
        "    return x.as_strided((n, size), (step, 1))\n",
        # each window starts step storage cells on, not step elements of x
        'def sliding_windows(x, size, step):\n'
        '    n = (len(x) - size) // step + 1\n'
        '    s = x.stride(0)\n'
        '    return x.as_strided((n, size), (step, s))\n',
        # x's stride ignored, its offset kept (as_strided keeps it)
        'def sliding_windows(x, size, step):\n'
        '    n = (len(x) - size) // step + 1\n'
        '    return x.as_strided((n, size), (step, 1))\n',
        # NumPy's windows, wrapped by from_numpy: a new storage that starts where x does
        'import numpy as np\n'
        'def sliding_windows(x, size, step):\n'
        '    return torch.from_numpy(np.lib.stride_tricks.sliding_window_view(x.numpy(), size)[::step])\n',
    ],
}

RIGHT: dict[str, list[str]] = {
    "contiguous_strides": [
        # ask torch, on the meta device (allocates nothing)
        "def contiguous_strides(shape):\n"
        "    return tuple(torch.empty(tuple(shape), device='meta').stride())\n",
        # a product per dimension
        "import math\n\n"
        "def contiguous_strides(shape):\n"
        "    shape = tuple(shape)\n"
        "    return tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))\n",
        # NumPy's byte strides of a uint8 array: one byte per element, so bytes = elements
        'import numpy as np\n'
        'def contiguous_strides(shape):\n'
        '    return tuple(np.empty(tuple(shape), dtype=np.uint8).strides)\n',
        # NumPy's cumulative product: a tuple of NumPy integers
        'import numpy as np\n'
        'def contiguous_strides(shape):\n'
        '    s = list(shape)\n'
        '    if not s: return ()\n'
        '    return tuple(np.cumprod([1] + s[:0:-1])[::-1])\n',
        # torch's cumulative product: a tuple of 0-d int64 tensors
        'def contiguous_strides(shape):\n'
        '    rest = torch.tensor(list(shape)[1:] + [1], dtype=torch.int64)\n'
        '    return tuple(rest.flip(0).cumprod(0).flip(0)) if len(shape) else ()\n',
        # recursion: a dimension's stride is the next one's times the next size
        'def contiguous_strides(shape):\n'
        '    shape = tuple(shape)\n'
        '    if not shape: return ()\n'
        '    rest = contiguous_strides(shape[1:])\n'
        '    return ((rest[0] * shape[1]) if rest else 1,) + rest\n',
    ],
    "element_offset": [
        # an explicit loop over dimensions
        "def element_offset(index, stride, storage_offset=0):\n"
        "    total = storage_offset\n"
        "    for d in range(len(index)):\n"
        "        total += index[d] * stride[d]\n"
        "    return int(total)\n",
        # let torch read it: as_strided over a tensor of positions
        "def element_offset(index, stride, storage_offset=0):\n"
        "    shape = tuple(i + 1 for i in index)\n"
        "    n = storage_offset + sum(s * i for s, i in zip(stride, index)) + 1\n"
        "    cells = torch.arange(n).as_strided(shape, tuple(stride), storage_offset)\n"
        "    return int(cells[tuple(index)])\n",
        # NumPy's dot product, made a Python int
        'import numpy as np\n'
        'def element_offset(index, stride, storage_offset=0):\n'
        '    return int(np.dot(index, stride)) + storage_offset\n',
        # a 0-d int64 tensor
        'def element_offset(index, stride, storage_offset=0):\n'
        '    return storage_offset + (torch.tensor(list(index), dtype=torch.long) * torch.tensor(list(stride), dtype=torch.long)).sum()\n',
        # a NumPy integer
        'import numpy as np\n'
        'def element_offset(index, stride, storage_offset=0):\n'
        '    return np.sum(np.multiply(index, stride), dtype=np.int64) + storage_offset\n',
    ],
    "is_contiguous": [
        # ask torch, on a real tensor laid out that way
        "def is_contiguous(shape, stride):\n"
        "    span = 1 + sum(s * max(n - 1, 0) for n, s in zip(shape, stride))\n"
        "    return torch.empty(span).as_strided(tuple(shape), tuple(stride)).is_contiguous()\n",
        # compare only the dimensions that matter with the row-major strides
        "import math\n\n"
        "def is_contiguous(shape, stride):\n"
        "    shape, stride = list(shape), list(stride)\n"
        "    if math.prod(shape) == 0:\n"
        "        return True\n"
        "    for d in range(len(shape)):\n"
        "        if shape[d] > 1 and stride[d] != math.prod(shape[d + 1:]):\n"
        "            return False\n"
        "    return True\n",
        # a 0-d bool tensor from torch comparisons
        'import math\n'
        'def is_contiguous(shape, stride):\n'
        '    if math.prod(shape) == 0: return True\n'
        '    keep = [(n, s) for n, s in zip(shape, stride) if n != 1]\n'
        '    want = [math.prod(n for n, _ in keep[i + 1:]) for i in range(len(keep))]\n'
        '    return torch.tensor([s for _, s in keep], dtype=torch.long).eq(torch.tensor(want, dtype=torch.long)).all()\n',
        # a NumPy bool
        'import numpy as np, math\n'
        'def is_contiguous(shape, stride):\n'
        '    if math.prod(shape) == 0: return np.True_\n'
        '    keep = [(n, s) for n, s in zip(shape, stride) if n != 1]\n'
        '    want = [math.prod(n for n, _ in keep[i + 1:]) for i in range(len(keep))]\n'
        '    return np.array_equal([s for _, s in keep], want)\n',
    ],
    "shares_storage": [
        # the storage's start, through the typed storage
        "def shares_storage(a, b):\n"
        "    start = lambda t: t.data_ptr() - t.storage_offset() * t.element_size()\n"
        "    return start(a) == start(b)\n",
        # comparing the storages' own pointers with an explicit bool
        "def shares_storage(a, b):\n"
        "    sa, sb = a.untyped_storage(), b.untyped_storage()\n"
        "    return bool(sa.data_ptr() == sb.data_ptr())\n",
        # the storage objects themselves: torch keeps one Python object per live storage
        "def shares_storage(a, b):\n"
        "    return a.untyped_storage() is b.untyped_storage()\n",
        # a 0-d bool tensor from comparing the two storage addresses as tensors
        'def shares_storage(a, b):\n'
        '    return torch.tensor(a.untyped_storage().data_ptr()) == torch.tensor(b.untyped_storage().data_ptr())\n',
    ],
    "predict_copies": [
        # measured rather than predicted: does the result share x's storage?
        "def predict_copies():\n"
        "    x = torch.arange(12.0).view(3, 4)\n"
        "    base = x.untyped_storage().data_ptr()\n"
        f"    ops = {list(_COPIES_RIGHT)!r}\n"
        "    made = {op: eval(op, {'x': x, 'torch': torch}) for op in ops}\n"
        "    return {op: t.untyped_storage().data_ptr() != base for op, t in made.items()}\n\n\n"
        "COPIES = predict_copies()\n",
        # the views listed, everything else copies
        "VIEWS = {'x.t()', 'x[1]', 'x[:, 1]', 'x[::2]', 'x.view(2, 6)',\n"
        "         'x.view(torch.int32)', 'x.unsqueeze(0)', 'x.expand(2, 3, 4)',\n"
        "         'x.reshape(12)', 'x[:2].reshape(-1)', 'x.t().reshape(2, 2, 3)',\n"
        "         'x.contiguous()', 'x.float()'}\n\n\n"
        "def predict_copies():\n"
        "    return {op: op not in VIEWS for op in OPERATIONS}\n\n\n"
        "try:\n"
        "    COPIES = predict_copies()\n"
        "except NotImplementedError:\n"
        "    COPIES = {}\n",
    ],
    "sliding_windows": [
        # torch's own unfold is the same view
        "def sliding_windows(x, size, step):\n"
        "    return x.unfold(0, size, step)\n",
        # torch.as_strided with everything spelt out, offset included
        "def sliding_windows(x, size, step):\n"
        "    count = 1 + (x.numel() - size) // step\n"
        "    s = x.stride()[0]\n"
        "    return torch.as_strided(x, [count, size], [s * step, s], x.storage_offset())\n",
        # torch.as_strided with keyword arguments (the offset kept by default)
        'def sliding_windows(x, size, step):\n'
        '    n = 1 + (x.size(0) - size) // step\n'
        '    return torch.as_strided(x, size=(n, size), stride=(x.stride(0) * step, x.stride(0)))\n',
        # unfold on the part of x the windows cover
        'def sliding_windows(x, size, step):\n'
        '    n = (x.shape[0] - size) // step + 1\n'
        '    return x[: (n - 1) * step + size].unfold(0, size, step)\n',
    ],
}

"""Wrong and right answers of notebook 04 (matmul FLOPs, FLOP/s and MFU), keyed by grade_id.

Each wrong answer is a mistake students make and must lose exactly its exercise; each right
answer is written differently from the instructor's and must score full marks.
"""

WRONG: dict[str, list[str]] = {
    "matmul_flops": [
        # a multiply-add counted as one FLOP
        "def matmul_flops(m, k, n):\n    return m * k * n\n",
        # m·n·(2k − 1): one add per output fewer than FlopCounterMode, the datasheets and the
        # lecture's 2·B·D·K count
        "def matmul_flops(m, k, n):\n    return m * n * (2 * k - 1)\n",
        # computed through a float: above 2^53 a float64 rounds the count
        "def matmul_flops(m, k, n):\n    return int(2.0 * m * k * n)\n",
        # computed in int32, which wraps around past 2^31 − 1: keep the count in Python ints
        "import torch\n\n"
        "def matmul_flops(m, k, n):\n"
        "    return int(2 * torch.tensor(m, dtype=torch.int32) * k * n)\n",
        # a float, not an int
        "def matmul_flops(m, k, n):\n    return 2.0 * m * k * n\n",
        # the count measured by the FLOP counter on meta tensors, not the formula asked for
        "import torch\nfrom lecture_utils.flops import count_flops\n\n"
        "def matmul_flops(m, k, n):\n"
        "    a = torch.empty(m, k, device='meta')\n"
        "    b = torch.empty(k, n, device='meta')\n"
        "    return count_flops(torch.matmul, a, b)\n",
        # torch's own counting rule for mm, not the formula asked for
        "from torch.utils.flop_counter import mm_flop\n\n"
        "def matmul_flops(m, k, n):\n"
        "    return int(mm_flop((m, k), (k, n)))\n",
        # FlopCounterMode by hand, renamed on import, on meta tensors
        "import torch\nfrom torch.utils.flop_counter import FlopCounterMode as Counter\n\n"
        "def matmul_flops(m, k, n):\n"
        "    with Counter(display=False) as c:\n"
        "        torch.empty(m, k, device='meta') @ torch.empty(k, n, device='meta')\n"
        "    return int(c.get_total_flops())\n",
    ],
    "batched_matmul_flops": [
        # batch dimensions not broadcast: A's batch only
        "import math\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    *batch, m, k = a_shape\n"
        "    n = b_shape[-1]\n"
        "    return math.prod(batch) * 2 * m * k * n\n",
        # every batch dimension of both operands multiplied together
        "import math\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]\n"
        "    return math.prod(a_shape[:-2]) * math.prod(b_shape[:-2]) * 2 * m * k * n\n",
        # the larger of the two batch sizes, as if one operand always had the whole batch
        "import math\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    batch = max(math.prod(a_shape[:-2]), math.prod(b_shape[:-2]))\n"
        "    return batch * 2 * a_shape[-2] * a_shape[-1] * b_shape[-1]\n",
        # 3-D assumed: the first dimension read as the batch, m and k as dims 1 and 2
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    if len(a_shape) == 2:\n"
        "        return 2 * a_shape[0] * a_shape[1] * b_shape[-1]\n"
        "    return a_shape[0] * 2 * a_shape[1] * a_shape[2] * b_shape[-1]\n",
        # a multiply-add counted as one FLOP
        "import math\n\nimport torch\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    batch = torch.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))\n"
        "    return math.prod(batch) * a_shape[-2] * a_shape[-1] * b_shape[-1]\n",
        # batch dimensions lined up from the left, the larger size per dimension
        "import itertools\nimport math\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    *ba, m, k = a_shape\n"
        "    *bb, _, n = b_shape\n"
        "    batch = [max(x, y) for x, y in itertools.zip_longest(ba, bb, fillvalue=1)]\n"
        "    return math.prod(batch) * 2 * m * k * n\n",
        # an empty batch counted as one matmul: a max of sizes lets the missing dimension's 1
        # win over the empty one
        "import math\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    *ba, m, k = a_shape\n"
        "    *bb, _, n = b_shape\n"
        "    r = max(len(ba), len(bb))\n"
        "    pa = [1] * (r - len(ba)) + list(ba)\n"
        "    pb = [1] * (r - len(bb)) + list(bb)\n"
        "    return math.prod(max(x, y) for x, y in zip(pa, pb)) * 2 * m * k * n\n",
        # measured with FlopCounterMode on meta tensors, not counted from the shapes
        "import torch\nfrom torch.utils.flop_counter import FlopCounterMode\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    a = torch.empty(tuple(a_shape), device='meta')\n"
        "    b = torch.empty(tuple(b_shape), device='meta')\n"
        "    with FlopCounterMode(display=False) as counter:\n"
        "        a @ b\n"
        "    return int(counter.get_total_flops())\n",
        # measured with count_flops on meta tensors, not counted from the shapes
        "import torch\nfrom lecture_utils.flops import count_flops\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    return count_flops(torch.matmul, torch.empty(tuple(a_shape), device='meta'),\n"
        "                       torch.empty(tuple(b_shape), device='meta'))\n",
        # a float: a count of FLOPs is a whole number, return an integer
        "import math\n\nimport torch\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    batch = torch.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))\n"
        "    return float(math.prod(batch) * 2 * a_shape[-2] * a_shape[-1] * b_shape[-1])\n",
        # the whole shapes broadcast, matrix dimensions included
        "import math\n\nimport torch\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    batch = torch.broadcast_shapes(tuple(a_shape), tuple(b_shape))[:-2]\n"
        "    return math.prod(batch) * 2 * a_shape[-2] * a_shape[-1] * b_shape[-1]\n",
    ],
    "mfu": [
        # FLOPs and seconds swapped
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return seconds / flops / peak_flops_per_sec\n",
        # a percentage instead of a fraction
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return 100 * flops / seconds / peak_flops_per_sec\n",
        # clipped at 1, hiding a wrong peak
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return min(1.0, flops / seconds / peak_flops_per_sec)\n",
        # the ratio upside down: the peak over the achieved rate
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return peak_flops_per_sec / (flops / seconds)\n",
        # floor division (//) of the FLOPs by the seconds
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return (flops // seconds) / peak_flops_per_sec\n",
    ],
    "mfu_from_datasheet": [
        # the "with sparsity" figure used as printed: a dense matmul gets half of it
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    return flops / seconds / (datasheet_tflops * 1e12)\n",
        # a figure without the sparsity footnote halved: it is dense as printed
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    return flops / seconds / (datasheet_tflops * 1e12 / 2)\n",
        # the flag read the wrong way round: the dense line halved, the sparse one not
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops * 1e12 / (1 if with_sparsity else 2)\n"
        "    return flops / seconds / peak\n",
        # tera read as 1e9: a teraFLOPS is 10^12 FLOP/s
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops * 1e9 / (2 if with_sparsity else 1)\n"
        "    return flops / seconds / peak\n",
        # tera read as 2^40: FLOP/s prefixes are decimal, 10^12
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops * 2**40 / (2 if with_sparsity else 1)\n"
        "    return flops / seconds / peak\n",
        # a percentage instead of a fraction
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops * 1e12 / (2 if with_sparsity else 1)\n"
        "    return 100 * flops / seconds / peak\n",
        # rounded: return the full fraction, and round only when printing
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops * 1e12 / (2 if with_sparsity else 1)\n"
        "    return round(flops / seconds / peak, 2)\n",
        # sparsity doubled instead of halved
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops * 1e12 * (2 if with_sparsity else 1)\n"
        "    return flops / seconds / peak\n",
        # teraFLOPS taken as FLOP/s (no 1e12)
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops / 2 if with_sparsity else datasheet_tflops\n"
        "    return flops / seconds / peak\n",
    ],
    "arithmetic_intensity": [
        # C forgotten: only the two inputs' bytes
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return 2 * m * k * n / ((m * k + k * n) * bytes_per_element)\n",
        # bits instead of bytes
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return 2 * m * k * n / ((m * k + k * n + m * n) * 8 * bytes_per_element)\n",
        # a multiply-add counted as one FLOP
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return m * k * n / ((m * k + k * n + m * n) * bytes_per_element)\n",
        # C read and written (C += A @ B): its bytes counted twice
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return 2 * m * k * n / ((m * k + k * n + 2 * m * n) * bytes_per_element)\n",
        # m·n·(2k − 1) FLOPs: count 2k per output, as in exercise 1
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return m * n * (2 * k - 1) / ((m * k + k * n + m * n) * bytes_per_element)\n",
        # floor division (//): the intensity is a ratio, divide with /
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return 2 * m * k * n // ((m * k + k * n + m * n) * bytes_per_element)\n",
        # a square matmul's 2n/(3·bytes) used for a matmul that is not square
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return 2 * n / (3 * bytes_per_element)\n",
        # measured, not the formula asked for: counted FLOPs over meta tensors' nbytes
        "import torch\nfrom lecture_utils.flops import count_flops\n\n"
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    dtype = {1: torch.int8, 2: torch.float16, 4: torch.float32,\n"
        "             8: torch.float64}[bytes_per_element]\n"
        "    a = torch.empty(m, k, device='meta', dtype=torch.float32)\n"
        "    b = torch.empty(k, n, device='meta', dtype=torch.float32)\n"
        "    flops = count_flops(torch.matmul, a, b)\n"
        "    sizes = [torch.empty(s, device='meta', dtype=dtype).nbytes\n"
        "             for s in ((m, k), (k, n), (m, n))]\n"
        "    return flops / sum(sizes)\n",
    ],
}

RIGHT: dict[str, list[str]] = {
    "matmul_flops": [
        # multiplies and adds counted separately
        "def matmul_flops(m, k, n):\n"
        "    multiplies = m * n * k\n"
        "    adds = m * n * k\n"
        "    return multiplies + adds\n",
        # the standard library's product
        "import math\n\ndef matmul_flops(m, k, n):\n    return 2 * math.prod((m, k, n))\n",
        # an int64 tensor's product, back to a Python int
        "import torch\n\n"
        "def matmul_flops(m, k, n):\n"
        "    return int(torch.tensor([m, k, n]).prod()) * 2\n",
        # zero guarded first
        "def matmul_flops(m, k, n):\n"
        "    return 2 * m * k * n if m and k and n else 0\n",
        # a NumPy int64 (the counts of the checks fit in 63 bits)
        "import numpy as np\n\n"
        "def matmul_flops(m, k, n):\n"
        "    return np.int64(2) * m * k * n\n",
        # a 0-d int64 tensor
        "import torch\n\n"
        "def matmul_flops(m, k, n):\n"
        "    return 2 * torch.tensor(m, dtype=torch.int64) * k * n\n",
    ],
    "batched_matmul_flops": [
        # broadcasting by hand, aligned from the right
        "from itertools import zip_longest\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    a_shape, b_shape = list(a_shape), list(b_shape)\n"
        "    batch = 1\n"
        "    for x, y in zip_longest(reversed(a_shape[:-2]), reversed(b_shape[:-2]),\n"
        "                            fillvalue=1):\n"
        "        batch *= x if y == 1 else y\n"
        "    return 2 * batch * a_shape[-2] * a_shape[-1] * b_shape[-1]\n",
        # torch's broadcast of the two batch slices, its numel
        "import torch\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    batch = torch.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))\n"
        "    return batch.numel() * 2 * a_shape[-2] * a_shape[-1] * b_shape[-1]\n",
        # the result's shape from a meta matmul: batch × m × n outputs, 2k FLOPs each
        "import torch\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    out = torch.empty(tuple(a_shape), device='meta') @ "
        "torch.empty(tuple(b_shape), device='meta')\n"
        "    return out.numel() * 2 * a_shape[-1]\n",
        # a NumPy integer: the broadcast batch's product in int64
        "import numpy as np\nimport torch\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    *ba, m, k = a_shape\n"
        "    *bb, _, n = b_shape\n"
        "    batch = torch.broadcast_shapes(tuple(ba), tuple(bb))\n"
        "    return np.prod(batch, dtype=np.int64) * 2 * m * k * n\n",
        # a 0-d int64 tensor: the product of the broadcast batch and the three sizes
        "import torch\n\n"
        "def batched_matmul_flops(a_shape, b_shape):\n"
        "    *ba, m, k = a_shape\n"
        "    *bb, _, n = b_shape\n"
        "    batch = torch.broadcast_shapes(tuple(ba), tuple(bb))\n"
        "    sizes = torch.tensor([*batch, m, k, n], dtype=torch.int64)\n"
        "    return 2 * sizes.prod()\n",
    ],
    "mfu": [
        # one division by the product
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return flops / (seconds * peak_flops_per_sec)\n",
        # the achieved rate first, in a variable, then its share of the peak
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    rate = flops / seconds\n"
        "    return rate / peak_flops_per_sec\n",
        # the peak divided out first
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return (flops / peak_flops_per_sec) / seconds\n",
        # float32 tensor arithmetic (right to about 7 digits)
        "import torch\n\n"
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return float(torch.tensor(flops) / seconds / peak_flops_per_sec)\n",
        # a 0-d float64 tensor
        "import torch\n\n"
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return torch.tensor(flops, dtype=torch.float64) / seconds / peak_flops_per_sec\n",
        # the helper that takes a rate: the exercise allows it
        "from lecture_utils.hardware import fraction_of_peak\n\n"
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return fraction_of_peak(flops / seconds, peak_flops_per_sec)\n",
        # another helper doing the same one division
        "from lecture_utils import roofline\n\n"
        "def mfu(flops, seconds, peak_flops_per_sec):\n"
        "    return roofline.ridge_point(flops / seconds, peak_flops_per_sec)\n",
    ],
    "mfu_from_datasheet": [
        # halve the FLOP/s by doubling the achieved rate's share
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    share = flops / seconds / (datasheet_tflops * 1e12)\n"
        "    return 2 * share if with_sparsity else share\n",
        # via a dense peak and the exercise-3 formula
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    dense_tflops = datasheet_tflops / (2 if with_sparsity else 1)\n"
        "    return (flops / 1e12) / seconds / dense_tflops\n",
        # exercise 3's mfu on the dense peak
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    return mfu(flops, seconds, datasheet_tflops * 1e12 * (0.5 if with_sparsity else 1.0))\n",
        # bool arithmetic: 1 + True == 2
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    return flops / seconds / (datasheet_tflops * 1e12 / (1 + with_sparsity))\n",
        # the helper that takes a rate: the exercise allows it
        "from lecture_utils.hardware import fraction_of_peak\n\n"
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = datasheet_tflops * 1e12 / (2 if with_sparsity else 1)\n"
        "    return fraction_of_peak(flops / seconds, peak)\n",
        # float32 tensor arithmetic (right to about 7 digits)
        "import torch\n\n"
        "def mfu_from_datasheet(flops, seconds, datasheet_tflops, with_sparsity):\n"
        "    peak = torch.tensor(datasheet_tflops * 1e12) / (2 if with_sparsity else 1)\n"
        "    return (torch.tensor(flops) / seconds / peak).item()\n",
    ],
    "arithmetic_intensity": [
        # bytes of each matrix separately
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    a_bytes = m * k * bytes_per_element\n"
        "    b_bytes = k * n * bytes_per_element\n"
        "    c_bytes = m * n * bytes_per_element\n"
        "    return 2 * m * k * n / (a_bytes + b_bytes + c_bytes)\n",
        # the traffic summed over the three matrices' shapes
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    shapes = ((m, k), (k, n), (m, n))\n"
        "    traffic = bytes_per_element * sum(rows * cols for rows, cols in shapes)\n"
        "    return float(2 * m * k * n) / traffic\n",
        # exercise 1's matmul_flops over the bytes
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    return matmul_flops(m, k, n) / ((m * k + k * n + m * n) * bytes_per_element)\n",
        # int64 tensors and true division: a float32 result (right to about 7 digits)
        "import torch\n\n"
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    flops = torch.tensor(2 * m * k * n)\n"
        "    moved = torch.tensor((m * k + k * n + m * n) * bytes_per_element)\n"
        "    return (flops / moved).item()\n",
        # a 0-d float64 tensor
        "import torch\n\n"
        "def arithmetic_intensity(m, k, n, bytes_per_element):\n"
        "    flops = torch.tensor(2 * m * k * n, dtype=torch.float64)\n"
        "    return flops / ((m * k + k * n + m * n) * bytes_per_element)\n",
    ],
}

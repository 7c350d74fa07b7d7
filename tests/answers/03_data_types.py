"""Wrong and right answers of notebook 03 (data types), keyed by solution cell grade_id.

Each wrong answer makes one plausible mistake (named in its comment) and must lose exactly its
exercise; each right answer is written differently from the instructor's and must keep full
marks. The notebook's first cell has imported ``math`` and ``torch``.
"""

WRONG: dict[str, list[str]] = {
    "decode_float": [
        # exponent bias off by one: 2**(e-1) instead of 2**(e-1) - 1
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    s = (bits >> (exp_bits + man_bits)) & 1\n"
        "    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n"
        "    m = bits & ((1 << man_bits) - 1)\n"
        "    bias = 2 ** (exp_bits - 1)\n"
        "    if e == (1 << exp_bits) - 1:\n"
        "        v = math.inf if m == 0 else math.nan\n"
        "    elif e == 0:\n"
        "        v = m / 2**man_bits * 2.0 ** (1 - bias)\n"
        "    else:\n"
        "        v = (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n"
        "    return -v if s else v\n",
        # subnormals decoded as normal numbers: implicit leading 1 and exponent -bias
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    s = (bits >> (exp_bits + man_bits)) & 1\n"
        "    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n"
        "    m = bits & ((1 << man_bits) - 1)\n"
        "    bias = 2 ** (exp_bits - 1) - 1\n"
        "    if e == (1 << exp_bits) - 1:\n"
        "        v = math.inf if m == 0 else math.nan\n"
        "    elif e == 0 and m == 0:\n"
        "        v = 0.0\n"
        "    else:\n"
        "        v = (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n"
        "    return -v if s else v\n",
        # subnormals without the implicit 1 but with exponent -bias instead of 1 - bias
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    s = (bits >> (exp_bits + man_bits)) & 1\n"
        "    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n"
        "    m = bits & ((1 << man_bits) - 1)\n"
        "    bias = 2 ** (exp_bits - 1) - 1\n"
        "    if e == (1 << exp_bits) - 1:\n"
        "        v = math.inf if m == 0 else math.nan\n"
        "    elif e == 0:\n"
        "        v = m / 2**man_bits * 2.0 ** (-bias)\n"
        "    else:\n"
        "        v = (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n"
        "    return -v if s else v\n",
        # E4M3's rule applied to an IEEE format: no inf, nan only when all bits are ones
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    s = (bits >> (exp_bits + man_bits)) & 1\n"
        "    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n"
        "    m = bits & ((1 << man_bits) - 1)\n"
        "    bias = 2 ** (exp_bits - 1) - 1\n"
        "    if e == (1 << exp_bits) - 1 and m == (1 << man_bits) - 1:\n"
        "        return math.nan\n"
        "    if e == 0:\n"
        "        v = m / 2**man_bits * 2.0 ** (1 - bias)\n"
        "    else:\n"
        "        v = (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n"
        "    return -v if s else v\n",
        # sign bit ignored
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n"
        "    m = bits & ((1 << man_bits) - 1)\n"
        "    bias = 2 ** (exp_bits - 1) - 1\n"
        "    if e == (1 << exp_bits) - 1:\n"
        "        return math.inf if m == 0 else math.nan\n"
        "    if e == 0:\n"
        "        return m / 2**man_bits * 2.0 ** (1 - bias)\n"
        "    return (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n",
        # bias hard-coded for fp16 (15), right only for 5-bit exponents
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    s = (bits >> (exp_bits + man_bits)) & 1\n"
        "    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n"
        "    m = bits & ((1 << man_bits) - 1)\n"
        "    if e == (1 << exp_bits) - 1:\n"
        "        v = math.inf if m == 0 else math.nan\n"
        "    elif e == 0:\n"
        "        v = m / 2**man_bits * 2.0 ** (1 - 15)\n"
        "    else:\n"
        "        v = (1 + m / 2**man_bits) * 2.0 ** (e - 15)\n"
        "    return -v if s else v\n",
        # the sign dropped for zero: a set sign bit makes -0.0
        'def decode_float(bits, exp_bits, man_bits):\n'
        '    s = (bits >> (exp_bits + man_bits)) & 1\n'
        '    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n'
        '    m = bits & ((1 << man_bits) - 1)\n'
        '    bias = 2 ** (exp_bits - 1) - 1\n'
        '    if e == 0 and m == 0:\n'
        '        return 0.0\n'
        '    if e == (1 << exp_bits) - 1:\n'
        '        v = math.inf if m == 0 else math.nan\n'
        '    elif e == 0:\n'
        '        v = m / 2**man_bits * 2.0 ** (1 - bias)\n'
        '    else:\n'
        '        v = (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n'
        '    return -v if s else v\n',
        # an all-ones exponent field decoded as an ordinary number (its test off by one)
        'def decode_float(bits, exp_bits, man_bits):\n'
        '    s = (bits >> (exp_bits + man_bits)) & 1\n'
        '    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n'
        '    m = bits & ((1 << man_bits) - 1)\n'
        '    bias = 2 ** (exp_bits - 1) - 1\n'
        '    if e == 2 ** exp_bits:\n'
        '        v = math.inf if m == 0 else math.nan\n'
        '    elif e == 0:\n'
        '        v = m / 2**man_bits * 2.0 ** (1 - bias)\n'
        '    else:\n'
        '        v = (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n'
        '    return -v if s else v\n',
        # computed in float32: fp64's pi rounded to fp32's
        'import numpy as np\n'
        'def decode_float(bits, exp_bits, man_bits):\n'
        '    s = (bits >> (exp_bits + man_bits)) & 1\n'
        '    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n'
        '    m = bits & ((1 << man_bits) - 1)\n'
        '    bias = 2 ** (exp_bits - 1) - 1\n'
        '    if e == (1 << exp_bits) - 1:\n'
        '        v = np.float32(math.inf if m == 0 else math.nan)\n'
        '    elif e == 0:\n'
        '        v = np.float32(m) / np.float32(2**man_bits) * np.float32(2.0) ** np.float32(1 - bias)\n'
        '    else:\n'
        '        v = (np.float32(1) + np.float32(m) / np.float32(2**man_bits)) * np.float32(2.0) ** np.float32(e - bias)\n'
        '    return -v if s else v\n',
        # the mantissa divided by 2**m - 1 instead of 2**m
        'def decode_float(bits, exp_bits, man_bits):\n'
        '    s = (bits >> (exp_bits + man_bits)) & 1\n'
        '    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n'
        '    m = bits & ((1 << man_bits) - 1)\n'
        '    bias = 2 ** (exp_bits - 1) - 1\n'
        '    if e == (1 << exp_bits) - 1:\n'
        '        v = math.inf if m == 0 else math.nan\n'
        '    elif e == 0:\n'
        '        v = m / (2**man_bits - 1) * 2.0 ** (1 - bias)\n'
        '    else:\n'
        '        v = (1 + m / (2**man_bits - 1)) * 2.0 ** (e - bias)\n'
        '    return -v if s else v\n',
        # torch's own reading for the widths it knows, and a formula without subnormals
        # for the rest
        'def decode_float(bits, exp_bits, man_bits):\n'
        '    table = {(8, 23): (torch.int32, torch.float32), (5, 10): (torch.int16, torch.float16), (8, 7): (torch.int16, torch.bfloat16), (11, 52): (torch.int64, torch.float64)}\n'
        '    if (exp_bits, man_bits) in table:\n'
        '        it, ft = table[(exp_bits, man_bits)]\n'
        '        n = 1 + exp_bits + man_bits\n'
        '        signed = bits - (1 << n) if bits >> (n - 1) else bits\n'
        '        return torch.tensor(signed, dtype=it).view(ft).item()\n'
        '    s = (bits >> (exp_bits + man_bits)) & 1\n'
        '    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n'
        '    m = bits & ((1 << man_bits) - 1)\n'
        '    bias = 2 ** (exp_bits - 1) - 1\n'
        '    if e == (1 << exp_bits) - 1:\n'
        '        v = math.inf if m == 0 else math.nan\n'
        '    else:\n'
        '        v = (1 + m / 2**man_bits) * 2.0 ** (e - bias)\n'
        '    return -v if s else v\n',
        # the sign applied to an exact Fraction: -Fraction(0) is 0, so -0.0 comes out as 0.0
        "from fractions import Fraction\n\n\n"
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    negative = bits >> (exp_bits + man_bits) & 1 == 1\n"
        "    field = bits >> man_bits & (2**exp_bits - 1)\n"
        "    fraction = Fraction(bits % 2**man_bits, 2**man_bits)\n"
        "    bias = 2 ** (exp_bits - 1) - 1\n"
        "    if field == 2**exp_bits - 1:\n"
        "        if fraction:\n"
        "            return math.nan\n"
        "        return -math.inf if negative else math.inf\n"
        "    if field == 0:\n"
        "        value = fraction * Fraction(2) ** (1 - bias)\n"
        "    else:\n"
        "        value = (1 + fraction) * Fraction(2) ** (field - bias)\n"
        "    return float(-value if negative else value)\n",
    ],
    "underflows": [
        # zero counted as an underflow
        "def underflows(value, dtype):\n"
        "    return torch.tensor(value, dtype=dtype).item() == 0\n",
        # compares with the smallest *normal* number, forgetting subnormals
        "def underflows(value, dtype):\n"
        "    return 0 < abs(value) < torch.finfo(dtype).tiny\n",
        # compares with the smallest subnormal, forgetting that the cast rounds
        "def underflows(value, dtype):\n"
        "    info = torch.finfo(dtype)\n"
        "    return 0 < abs(value) < info.tiny * info.eps\n",
        # casts through torch's default float32 before the dtype
        "def underflows(value, dtype):\n"
        "    return value != 0 and torch.tensor(value).to(dtype).item() == 0\n",
        # the stored bits compared with +0.0's pattern: -1e-8 becomes -0.0, whose sign bit
        # is set, so negative underflows are missed
        "def underflows(value, dtype):\n"
        "    return value != 0 and bits.bits_of(value, dtype) == 0\n",
        # negative numbers never underflow
        "def underflows(value, dtype):\n"
        "    return value > 0 and torch.tensor(value, dtype=dtype).item() == 0\n",
        # the estimate instead of torch's rounding, and the tie counted as kept
        'def underflows(value, dtype):\n'
        '    info = torch.finfo(dtype)\n'
        '    return 0 < abs(value) < info.tiny * info.eps / 2\n',
        # the estimate instead of torch's rounding: misses the detour through fp32
        'def underflows(value, dtype):\n'
        '    info = torch.finfo(dtype)\n'
        '    return 0 < abs(value) <= info.tiny * info.eps / 2\n',
        # a subnormal result counted as lost: compared with the smallest normal number
        'def underflows(value, dtype):\n'
        '    stored = torch.tensor(value, dtype=dtype).item()\n'
        '    return value != 0 and abs(stored) < torch.finfo(dtype).tiny\n',
    ],
    "accumulate": [
        # rounds only at the end: exact sum of the cast inputs, rounded once
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    acc_dtype = acc_dtype or dtype\n"
        "    exact = sum(torch.tensor(values, dtype=dtype).tolist())\n"
        "    return torch.tensor(exact, dtype=acc_dtype).item()\n",
        # inputs not cast to dtype first: only the partial sums are rounded
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    acc_dtype = acc_dtype or dtype\n"
        "    total = 0.0\n"
        "    for v in values:\n"
        "        total = torch.tensor(total + v, dtype=acc_dtype).item()\n"
        "    return total\n",
        # acc_dtype ignored: partial sums always rounded to dtype
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    total = 0.0\n"
        "    for v in torch.tensor(values, dtype=dtype).tolist():\n"
        "        total = torch.tensor(total + v, dtype=dtype).item()\n"
        "    return total\n",
        # torch's own sum: accumulates 16-bit inputs in fp32, so rounds (almost) once
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    acc_dtype = acc_dtype or dtype\n"
        "    return torch.tensor(values, dtype=dtype).to(acc_dtype).sum().item()\n",
        # adds in fp32 whatever acc_dtype is (wrong for an fp64 accumulator)
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    acc_dtype = acc_dtype or dtype\n"
        "    total = torch.zeros((), dtype=torch.float32)\n"
        "    for x in torch.tensor(values, dtype=dtype).float():\n"
        "        total = (total + x).to(acc_dtype).float()\n"
        "    return total.item()\n",
        # each value rounded to acc_dtype before it is added (a 0-d tensor of acc_dtype
        # updated in place): a second rounding the spec rules out, wrong for fp32 into bf16
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    total = torch.zeros((), dtype=acc_dtype or dtype)\n"
        "    for x in torch.tensor(values, dtype=dtype).tolist():\n"
        "        total.add_(x)\n"
        "    return total.item()\n",
        # type promotion instead of rounding: an accumulator narrower than the inputs is
        # promoted to the inputs' dtype and never rounded to acc_dtype
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    acc_dtype = acc_dtype or dtype\n"
        "    total = torch.zeros((), dtype=acc_dtype)\n"
        "    for x in torch.tensor(values, dtype=dtype):\n"
        "        total = total + x\n"
        "    return float(total)\n",
        # partial sums rounded to fp32: without acc_dtype, the accumulator is dtype itself
        'def accumulate(values, dtype, acc_dtype=None):\n'
        '    acc_dtype = acc_dtype or torch.float32\n'
        '    total = 0.0\n'
        '    for x in torch.tensor(values, dtype=dtype).tolist():\n'
        '        total = torch.tensor(total + x, dtype=acc_dtype).item()\n'
        '    return total\n',
        # the running sum started from the first value: an empty list fails
        'def accumulate(values, dtype, acc_dtype=None):\n'
        '    acc_dtype = acc_dtype or dtype\n'
        '    xs = torch.tensor(values, dtype=dtype).tolist()\n'
        '    total = xs[0]\n'
        '    for x in xs[1:]:\n'
        '        total = torch.tensor(total + x, dtype=acc_dtype).item()\n'
        '    return total\n',
        # each value converted to acc_dtype before it is added: a second rounding
        'def accumulate(values, dtype, acc_dtype=None):\n'
        '    acc = acc_dtype or dtype\n'
        '    total = torch.zeros((), dtype=acc)\n'
        '    for x in torch.tensor(values, dtype=dtype):\n'
        '        total = total + x.to(acc)\n'
        '    return total.item()\n',
    ],
}

RIGHT: dict[str, list[str]] = {
    "decode_float": [
        # fields by string slicing, value with math.ldexp
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    text = format(bits, f'0{1 + exp_bits + man_bits}b')\n"
        "    sign, exp, man = text[0], int(text[1:1 + exp_bits], 2), int(text[1 + exp_bits:], 2)\n"
        "    bias = (1 << (exp_bits - 1)) - 1\n"
        "    if exp == 2**exp_bits - 1:\n"
        "        value = float('nan') if man else float('inf')\n"
        "    elif exp == 0:\n"
        "        value = math.ldexp(man, 1 - bias - man_bits)\n"
        "    else:\n"
        "        value = math.ldexp(man + (1 << man_bits), exp - bias - man_bits)\n"
        "    return -value if sign == '1' else value\n",
        # exact arithmetic with fractions, converted to float before the sign is applied
        "from fractions import Fraction\n\n\n"
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    negative = bits >> (exp_bits + man_bits) & 1 == 1\n"
        "    field = bits >> man_bits & (2**exp_bits - 1)\n"
        "    fraction = Fraction(bits % 2**man_bits, 2**man_bits)\n"
        "    bias = 2 ** (exp_bits - 1) - 1\n"
        "    if field == 2**exp_bits - 1:\n"
        "        if fraction:\n"
        "            return math.nan\n"
        "        return -math.inf if negative else math.inf\n"
        "    if field == 0:\n"
        "        value = fraction * Fraction(2) ** (1 - bias)\n"
        "    else:\n"
        "        value = (1 + fraction) * Fraction(2) ** (field - bias)\n"
        "    return -float(value) if negative else float(value)\n",
        # (-1)**sign, subnormal as a shifted exponent
        "def decode_float(bits, exp_bits, man_bits):\n"
        "    total = 1 + exp_bits + man_bits\n"
        "    sign = (-1) ** (bits >> (total - 1))\n"
        "    e = (bits >> man_bits) % (1 << exp_bits)\n"
        "    m = bits % (1 << man_bits)\n"
        "    bias = 2 ** (exp_bits - 1) - 1\n"
        "    if e == 2**exp_bits - 1:\n"
        "        return sign * math.inf if m == 0 else math.nan\n"
        "    lead, power = (0, 1 - bias) if e == 0 else (1, e - bias)\n"
        "    return sign * (lead + m * 2.0**-man_bits) * 2.0**power\n",
        # float64 torch arithmetic, returned as a 0-d tensor, the sign as (-1) ** s
        'def decode_float(bits, exp_bits, man_bits):\n'
        '    s = (bits >> (exp_bits + man_bits)) & 1\n'
        '    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n'
        '    m = bits & ((1 << man_bits) - 1)\n'
        '    bias = 2 ** (exp_bits - 1) - 1\n'
        '    two = torch.tensor(2.0, dtype=torch.float64)\n'
        '    if e == (1 << exp_bits) - 1:\n'
        '        v = torch.tensor(math.inf if m == 0 else math.nan, dtype=torch.float64)\n'
        '    elif e == 0:\n'
        '        v = m * two ** (1 - bias - man_bits)\n'
        '    else:\n'
        '        v = (m + 2**man_bits) * two ** (e - bias - man_bits)\n'
        '    return (-1) ** s * v\n',
        # NumPy's ldexp and copysign (a NumPy float64)
        'import numpy as np\n'
        'def decode_float(bits, exp_bits, man_bits):\n'
        '    s = (bits >> (exp_bits + man_bits)) & 1\n'
        '    e = (bits >> man_bits) & ((1 << exp_bits) - 1)\n'
        '    m = bits & ((1 << man_bits) - 1)\n'
        '    bias = 2 ** (exp_bits - 1) - 1\n'
        '    if e == (1 << exp_bits) - 1:\n'
        '        v = np.inf if m == 0 else np.nan\n'
        '    elif e == 0:\n'
        '        v = np.ldexp(np.float64(m), 1 - bias - man_bits)\n'
        '    else:\n'
        '        v = np.ldexp(np.float64(m + (1 << man_bits)), e - bias - man_bits)\n'
        '    return np.copysign(v, -1.0 if s else 1.0)\n',
    ],
    "underflows": [
        # a one-element tensor, compared as a tensor
        "def underflows(value, dtype):\n"
        "    if value == 0:\n"
        "        return False\n"
        "    return bool(torch.tensor([value], dtype=dtype)[0] == 0)\n",
        # from a float64 tensor, cast with .to()
        "def underflows(value, dtype):\n"
        "    stored = torch.tensor(value, dtype=torch.float64).to(dtype)\n"
        "    return bool(value) and not bool(stored)\n",
        # torch.full, then compare magnitudes
        "def underflows(value, dtype):\n"
        "    stored = torch.full((), value, dtype=dtype).double().abs().item()\n"
        "    return abs(value) > 0 and stored == 0.0\n",
        # a 0-d bool tensor (or False for a zero)
        'def underflows(value, dtype):\n'
        '    return value != 0 and torch.tensor(value, dtype=dtype) == 0\n',
        # a NumPy bool
        'import numpy as np\n'
        'def underflows(value, dtype):\n'
        '    return np.bool_(value != 0) & np.bool_(torch.tensor(value, dtype=dtype).item() == 0)\n',
    ],
    "accumulate": [
        # 0-d tensors, each sum formed in float64 and rounded to the accumulator's dtype
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    acc_dtype = acc_dtype or dtype\n"
        "    total = torch.zeros((), dtype=acc_dtype)\n"
        "    for x in torch.tensor(values, dtype=dtype):\n"
        "        total = (total.double() + x.double()).to(acc_dtype)\n"
        "    return total.item()\n",
        # functools.reduce over Python floats
        "import functools\n\n\n"
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    acc = dtype if acc_dtype is None else acc_dtype\n"
        "    cast = [torch.tensor(v, dtype=dtype).item() for v in values]\n"
        "    step = lambda s, x: torch.tensor(s + x, dtype=acc).item()\n"
        "    return float(functools.reduce(step, cast, 0.0))\n",
        # a float64 running sum, copied into a 1-element acc_dtype tensor after each add
        "def accumulate(values, dtype, acc_dtype=None):\n"
        "    inputs = torch.tensor(values, dtype=dtype).to(torch.float64)\n"
        "    rounded = torch.zeros(1, dtype=acc_dtype or dtype)\n"
        "    for i in range(len(inputs)):\n"
        "        rounded.copy_(rounded.double() + inputs[i])\n"
        "    return float(rounded[0])\n",
        # NumPy float64 sums, each rounded by torch; the result a 0-d tensor
        'import numpy as np\n'
        'def accumulate(values, dtype, acc_dtype=None):\n'
        '    acc = dtype if acc_dtype is None else acc_dtype\n'
        '    total = torch.zeros((), dtype=acc)\n'
        '    for x in torch.tensor(values, dtype=dtype).double().numpy():\n'
        '        total = torch.tensor(np.float64(total.item()) + x, dtype=acc)\n'
        '    return total\n',
    ],
}

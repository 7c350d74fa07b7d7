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
        # exact arithmetic with fractions, converted to float at the end
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
    ],
}

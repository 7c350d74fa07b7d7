"""Wrong and right answers for notebook 10 (mixed precision)."""

from __future__ import annotations

WRONG: dict[str, list[str]] = {
    'underflow_fraction': [
        # loss scale applied after the cast: tiny values are already zero
        'def underflow_fraction(grads, scale=1.0):\n'
        '    nonzero = grads != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    stored = grads.to(torch.float16) * scale\n'
        '    return ((stored == 0) & nonzero).sum().item() / nonzero.sum().item()\n',
        # denominator over all values, zeros that were zero before counted as underflow
        'def underflow_fraction(grads, scale=1.0):\n'
        '    stored = (grads * scale).to(torch.float16)\n'
        '    return (stored == 0).float().mean().item()\n',
        # denominator over all values (newly zero / every entry)
        'def underflow_fraction(grads, scale=1.0):\n'
        '    if grads.numel() == 0:\n'
        '        return 0.0\n'
        '    stored = (grads * scale).to(torch.float16)\n'
        '    return ((stored == 0) & (grads != 0)).sum().item() / grads.numel()\n',
        # fp16's smallest NORMAL number as the threshold instead of letting the cast decide
        'def underflow_fraction(grads, scale=1.0):\n'
        '    g = (grads.float() * scale).abs()\n'
        '    nonzero = g != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    tiny = torch.finfo(torch.float16).tiny\n'
        '    return ((g < tiny) & nonzero).sum().item() / nonzero.sum().item()\n',
        # the smallest subnormal as threshold (ignores round-to-nearest up from 3e-8)
        'def underflow_fraction(grads, scale=1.0):\n'
        '    g = (grads.float() * scale).abs()\n'
        '    nonzero = g != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    return ((g < 2.0**-24) & nonzero).sum().item() / nonzero.sum().item()\n',
        # the rounding edge typed in as a strict threshold: keeps the tie 2^-25, which rounds
        # to even (0)
        'def underflow_fraction(grads, scale=1.0):\n'
        '    g = (grads.float() * scale).abs()\n'
        '    nonzero = g != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    return ((g < 2.0**-25) & nonzero).sum().item() / nonzero.sum().item()\n',
        # bf16 instead of fp16
        'def underflow_fraction(grads, scale=1.0):\n'
        '    nonzero = grads != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    stored = (grads * scale).to(torch.bfloat16)\n'
        '    return ((stored == 0) & nonzero).sum().item() / nonzero.sum().item()\n',
        # overflow to inf counted as lost, as if it were underflow
        'def underflow_fraction(grads, scale=1.0):\n'
        '    nonzero = grads != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    stored = (grads * scale).to(torch.float16)\n'
        '    lost = ((stored == 0) | stored.isinf()) & nonzero\n'
        '    return lost.sum().item() / nonzero.sum().item()\n',
        # no guard for an all-zero tensor: 0/0 gives nan
        'def underflow_fraction(grads, scale=1.0):\n'
        '    nonzero = grads != 0\n'
        '    stored = (grads * scale).to(torch.float16)\n'
        '    return float(((stored == 0) & nonzero).sum() / nonzero.sum())\n',
        # only the positive entries counted: a negative value that becomes -0.0 is lost too (-0.0
        # == 0 is True)
        'def underflow_fraction(grads, scale=1.0):\n'
        '    positive = grads > 0\n'
        '    if not positive.any():\n'
        '        return 0.0\n'
        '    lost = positive & ((grads * scale).half() == 0)\n'
        '    return lost.sum().item() / positive.sum().item()\n',
        # a signed comparison (x < edge) counts every negative value as lost: compare |x|, or let
        # the cast decide
        'def underflow_fraction(grads, scale=1.0):\n'
        '    nonzero = grads != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    lost = nonzero & (grads * scale <= 2.0**-25)\n'
        '    return lost.sum().item() / nonzero.sum().item()\n',
        # grads multiplied in place (grads *= scale or mul_): multiply out of place
        'def underflow_fraction(grads, scale=1.0):\n'
        '    nonzero = grads != 0\n'
        '    if not nonzero.any():\n'
        '        return 0.0\n'
        '    grads *= scale\n'
        '    lost = nonzero & (grads.half() == 0)\n'
        '    return lost.sum().item() / nonzero.sum().item()\n',
        # a loop over the first dimension, as if grads were always 1-D
        'def underflow_fraction(grads, scale=1.0):\n'
        '    values = [g for g in grads if g != 0]\n'
        '    if not values:\n'
        '        return 0.0\n'
        '    return sum(1 for g in values if (g * scale).half() == 0) / len(values)\n',
    ],
    'RECIPE_BYTES': [
        # master copy forgotten: a bf16 or fp16 model's optimizer updates an fp32 copy of each weight, 4
        # bytes
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 4 + 4 + 4 + 4,\n'
        '    "bf16 autocast (fp32 weights)": 4 + 4 + 4 + 4,\n'
        '    "bf16 mixed (fp32 master)": 2 + 2 + 4 + 4,\n'
        '    "fp16 mixed with loss scaling": 2 + 2 + 4 + 4,\n'
        '    "bf16 mixed, fp32 grads": 2 + 4 + 4 + 4,\n'
        '    "bf16 pure": 2 + 2 + 2 + 2,\n'
        '}\n',
        # grads counted in fp32 in the bf16/fp16 mixed recipes
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 4 + 4 + 4 + 4,\n'
        '    "bf16 autocast (fp32 weights)": 4 + 4 + 4 + 4,\n'
        '    "bf16 mixed (fp32 master)": 2 + 4 + 4 + 4 + 4,\n'
        '    "fp16 mixed with loss scaling": 2 + 4 + 4 + 4 + 4,\n'
        '    "bf16 mixed, fp32 grads": 2 + 4 + 4 + 4 + 4,\n'
        '    "bf16 pure": 2 + 2 + 2 + 2,\n'
        '}\n',
        # AdamW's two moments counted as one
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 4 + 4 + 4,\n'
        '    "bf16 autocast (fp32 weights)": 4 + 4 + 4,\n'
        '    "bf16 mixed (fp32 master)": 2 + 2 + 4 + 4,\n'
        '    "fp16 mixed with loss scaling": 2 + 2 + 4 + 4,\n'
        '    "bf16 mixed, fp32 grads": 2 + 4 + 4 + 4,\n'
        '    "bf16 pure": 2 + 2 + 2,\n'
        '}\n',
        # AdamW's two moments counted as one: m and v, 2 bytes each in bf16
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 4 + 4 + 4 + 4,\n'
        '    "bf16 autocast (fp32 weights)": 4 + 4 + 4 + 4,\n'
        '    "bf16 mixed (fp32 master)": 2 + 2 + 4 + 4 + 4,\n'
        '    "fp16 mixed with loss scaling": 2 + 2 + 4 + 4 + 4,\n'
        '    "bf16 mixed, fp32 grads": 2 + 4 + 4 + 4 + 4,\n'
        '    "bf16 pure": 2 + 2 + 2,\n'
        '}\n',
        # an extra fp32 master copy for autocast, whose weights are already fp32
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 4 + 4 + 4 + 4,\n'
        '    "bf16 autocast (fp32 weights)": 4 + 4 + 4 + 4 + 4,\n'
        '    "bf16 mixed (fp32 master)": 2 + 2 + 4 + 4 + 4,\n'
        '    "fp16 mixed with loss scaling": 2 + 2 + 4 + 4 + 4,\n'
        '    "bf16 mixed, fp32 grads": 2 + 4 + 4 + 4 + 4,\n'
        '    "bf16 pure": 2 + 2 + 2 + 2,\n'
        '}\n',
        # autocast assumed to store bf16 weights and gradients (2 + 2 + 4 + 4): it keeps them in
        # fp32 and only runs matmuls in bf16
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 4 + 4 + 4 + 4,\n'
        '    "bf16 autocast (fp32 weights)": 2 + 2 + 4 + 4,\n'
        '    "bf16 mixed (fp32 master)": 2 + 2 + 4 + 4 + 4,\n'
        '    "fp16 mixed with loss scaling": 2 + 2 + 4 + 4 + 4,\n'
        '    "bf16 mixed, fp32 grads": 2 + 4 + 4 + 4 + 4,\n'
        '    "bf16 pure": 2 + 2 + 2 + 2,\n'
        '}\n',
        # bf16 pure keeps fp32 moments
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 4 + 4 + 4 + 4,\n'
        '    "bf16 autocast (fp32 weights)": 4 + 4 + 4 + 4,\n'
        '    "bf16 mixed (fp32 master)": 2 + 2 + 4 + 4 + 4,\n'
        '    "fp16 mixed with loss scaling": 2 + 2 + 4 + 4 + 4,\n'
        '    "bf16 mixed, fp32 grads": 2 + 4 + 4 + 4 + 4,\n'
        '    "bf16 pure": 2 + 2 + 4 + 4,\n'
        '}\n',
        # bits instead of bytes
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": 128,\n'
        '    "bf16 autocast (fp32 weights)": 128,\n'
        '    "bf16 mixed (fp32 master)": 128,\n'
        '    "fp16 mixed with loss scaling": 128,\n'
        '    "bf16 mixed, fp32 grads": 144,\n'
        '    "bf16 pure": 64,\n'
        '}\n',
    ],
}

RIGHT: dict[str, list[str]] = {
    'underflow_fraction': [
        # a 0-d float32 tensor (a right answer: the checks read it as its number)
        'def underflow_fraction(grads, scale=1.0):\n'
        '    nonzero = grads != 0\n'
        '    if not nonzero.any():\n'
        '        return torch.tensor(0.0)\n'
        '    stored = (grads * scale).to(torch.float16)\n'
        '    return ((stored == 0) & nonzero).sum() / nonzero.sum()\n',
        # fp32 arithmetic, counting with Python ints
        'def underflow_fraction(grads, scale=1.0):\n'
        '    g = grads.float().flatten()\n'
        '    total = int((g != 0).sum())\n'
        '    if total == 0:\n'
        '        return 0.0\n'
        '    half = (g * scale).half()\n'
        '    lost = int(((half == 0) & (g != 0)).sum())\n'
        '    return lost / total\n',
        # select the non-zero entries first, then the mean of a boolean
        'def underflow_fraction(grads, scale=1.0):\n'
        '    values = grads[grads != 0]\n'
        '    if values.numel() == 0:\n'
        '        return 0.0\n'
        '    return float(((values * scale).to(torch.float16) == 0).double().mean())\n',
        # a loop over Python numbers, one fp16 tensor each
        'def underflow_fraction(grads, scale=1.0):\n'
        '    values = [v for v in grads.double().flatten().tolist() if v != 0]\n'
        '    if not values:\n'
        '        return 0.0\n'
        '    stored = torch.tensor([v * scale for v in values], dtype=torch.float32).half()\n'
        '    return sum(1 for s in stored.tolist() if s == 0) / len(values)\n',
        # count_nonzero before and after the cast, the fraction as a Python float
        'def underflow_fraction(grads, scale=1.0):\n'
        '    total = torch.count_nonzero(grads)\n'
        '    if total == 0:\n'
        '        return 0.0\n'
        '    kept = torch.count_nonzero(grads.mul(scale).to(torch.float16))\n'
        '    return float((total - kept) / total)\n',
        # NumPy's float16, from a float64 array
        'def underflow_fraction(grads, scale=1.0):\n'
        '    import numpy as np\n'
        '    values = grads.detach().double().numpy().ravel() * scale\n'
        '    values = values[values != 0]\n'
        '    if values.size == 0:\n'
        '        return 0.0\n'
        '    return float(np.mean(values.astype(np.float32).astype(np.float16) == 0))\n',
    ],
    'RECIPE_BYTES': [
        # plain numbers, a dict built up key by key
        'RECIPE_BYTES = {}\n'
        'RECIPE_BYTES["fp32"] = 16\n'
        'RECIPE_BYTES["bf16 autocast (fp32 weights)"] = 16\n'
        'RECIPE_BYTES["bf16 mixed (fp32 master)"] = 16\n'
        'RECIPE_BYTES["fp16 mixed with loss scaling"] = 16\n'
        'RECIPE_BYTES["bf16 mixed, fp32 grads"] = 18\n'
        'RECIPE_BYTES["bf16 pure"] = 8\n',
        # computed from dtype sizes
        'def _recipe(weights, grads, master, moments):\n'
        '    size = lambda d: 0 if d is None else torch.empty((), dtype=d).element_size()\n'
        '    return size(weights) + size(grads) + size(master) + 2 * size(moments)\n'
        '\n'
        'f32, b16, f16 = torch.float32, torch.bfloat16, torch.float16\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": _recipe(f32, f32, None, f32),\n'
        '    "bf16 autocast (fp32 weights)": _recipe(f32, f32, None, f32),\n'
        '    "bf16 mixed (fp32 master)": _recipe(b16, b16, f32, f32),\n'
        '    "fp16 mixed with loss scaling": _recipe(f16, f16, f32, f32),\n'
        '    "bf16 mixed, fp32 grads": _recipe(b16, f32, f32, f32),\n'
        '    "bf16 pure": _recipe(b16, b16, None, b16),\n'
        '}\n',
        # floats and dict(...) keyword-free construction from pairs
        'RECIPE_BYTES = {}\n'
        'pairs = [("fp32", 16.0), ("bf16 autocast (fp32 weights)", 16.0),\n'
        '         ("bf16 mixed (fp32 master)", 16.0), ("fp16 mixed with loss scaling", 16.0),\n'
        '         ("bf16 mixed, fp32 grads", 18.0), ("bf16 pure", 8.0)]\n'
        'RECIPE_BYTES = dict(pairs)\n',
        # NumPy integers, summed from arrays of part sizes
        'import numpy as np\n'
        '\n'
        'RECIPE_BYTES = {\n'
        '    "fp32": np.sum(np.array([4, 4, 4, 4], dtype=np.int64)),\n'
        '    "bf16 autocast (fp32 weights)": np.sum(np.array([4, 4, 4, 4], dtype=np.int64)),\n'
        '    "bf16 mixed (fp32 master)": np.sum(np.array([2, 2, 4, 4, 4], dtype=np.int64)),\n'
        '    "fp16 mixed with loss scaling": np.sum(np.array([2, 2, 4, 4, 4], dtype=np.int64)),\n'
        '    "bf16 mixed, fp32 grads": np.sum(np.array([2, 4, 4, 4, 4], dtype=np.int64)),\n'
        '    "bf16 pure": np.sum(np.array([2, 2, 2, 2], dtype=np.int64)),\n'
        '}\n',
        # 0-d int64 tensors
        'RECIPE_BYTES = {\n'
        '    "fp32": torch.tensor([4, 4, 4, 4]).sum(),\n'
        '    "bf16 autocast (fp32 weights)": torch.tensor([4, 4, 4, 4]).sum(),\n'
        '    "bf16 mixed (fp32 master)": torch.tensor([2, 2, 4, 4, 4]).sum(),\n'
        '    "fp16 mixed with loss scaling": torch.tensor([2, 2, 4, 4, 4]).sum(),\n'
        '    "bf16 mixed, fp32 grads": torch.tensor([2, 4, 4, 4, 4]).sum(),\n'
        '    "bf16 pure": torch.tensor([2, 2, 2, 2]).sum(),\n'
        '}\n',
    ],
}

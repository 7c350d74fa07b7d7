"""Wrong and right answers for notebook 02b (einops and named dimensions), keyed by grade_id.

Each WRONG answer is a plausible mistake and must lose exactly its exercise's points; each
RIGHT answer is correct but written differently from the solution and must keep full marks.
"""

from __future__ import annotations

_MERGE = (
    "\n\ndef merge_heads(x):\n"
    "    return rearrange(x, '... heads seq d -> ... seq (heads d)')\n"
)
_SPLIT = (
    "def split_heads(x, heads):\n"
    "    return rearrange(x, '... seq (heads d) -> ... heads seq d', heads=heads)\n"
)

WRONG: dict[str, list[str]] = {
    "attention_scores": [
        # not scaled: divide the dot products by sqrt(hidden)
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t')\n",
        # divided by hidden instead of sqrt(hidden)
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t') / q.shape[-1]\n",
        # a mean over hidden where the dot product needs a sum: the mean divides by hidden once more
        "def attention_scores(q, k):\n"
        "    prod = q.unsqueeze(-2) * k.unsqueeze(-3)\n"
        "    return prod.mean(-1) / math.sqrt(q.shape[-1])\n",
        # q @ k without the transpose: each query is multiplied by k's columns, so the sum runs over the wrong axis
        "def attention_scores(q, k):\n"
        "    return (q @ k) / math.sqrt(q.shape[-1])\n",
        # k transposed with fixed positions (1, 2) rather than (-2, -1): on 4-D tensors that swaps heads with seq
        "def attention_scores(q, k):\n"
        "    if q.dim() == 2:\n"
        "        return q @ k.t() / math.sqrt(q.shape[-1])\n"
        "    return q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])\n",
        # keys along the rows: the result is (seq_q, seq_k), queries first
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... s d, ... t d -> ... t s') / math.sqrt(q.shape[-1])\n",
        # every batch element scored against every batch's keys: batch must be matched, not summed
        "def attention_scores(q, k):\n"
        "    if q.dim() == 3:\n"
        "        return einsum(q, k, 'b s d, c t d -> b s t') / math.sqrt(q.shape[-1])\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t') / math.sqrt(q.shape[-1])\n",
        # converted to float32: keep the inputs' dtype
        "def attention_scores(q, k):\n"
        "    q, k = q.float(), k.float()\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t') / math.sqrt(q.shape[-1])\n",
        # q scaled in place: the caller's q is changed
        "def attention_scores(q, k):\n"
        "    q.mul_(q.shape[-1] ** -0.5)\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t')\n",
        # scaled by the size of the first dimension, not the hidden size (the last one)
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t') / math.sqrt(q.shape[0])\n",
        # q.view(...) of a non-contiguous q raises: use reshape, einsum or matmul
        "def attention_scores(q, k):\n"
        "    d = q.shape[-1]\n"
        "    q2 = q.view(-1, q.shape[-2], d)\n"
        "    k2 = k.reshape(-1, k.shape[-2], d)\n"
        "    out = torch.bmm(q2, k2.transpose(1, 2)) / math.sqrt(d)\n"
        "    return out.view(*q.shape[:-1], k.shape[-2])\n",
        # hidden ** -1/2 is (hidden ** -1) / 2, as ** binds tighter than /: write hidden ** -0.5
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t') * q.shape[-1] ** -1/2\n",
        # softmax applied: the exercise asks for the scores, before any softmax
        "def attention_scores(q, k):\n"
        "    scores = einsum(q, k, '... s d, ... t d -> ... s t') / math.sqrt(q.shape[-1])\n"
        "    return torch.softmax(scores, dim=-1)\n",
        # scaled by sqrt of the number of keys (k.shape[-2]), not of hidden (the last dimension)
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t') / math.sqrt(k.shape[-2])\n",
        # multiplied by sqrt(hidden) where the dot products are divided by it
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... s d, ... t d -> ... s t') * math.sqrt(q.shape[-1])\n",
        # names in the wrong order: '... d s' reads q's last axis as seq, so the sum runs over seq, not hidden
        "def attention_scores(q, k):\n"
        "    return einsum(q, k, '... d s, ... d t -> ... s t') / math.sqrt(q.shape[-1])\n",
    ],
    "split_merge_heads": [
        # split as (d_head heads): the features are dealt out to the heads in turn; the pattern is (heads d_head)
        "def split_heads(x, heads):\n"
        "    return rearrange(x, '... seq (d heads) -> ... heads seq d', heads=heads)\n"
        "\n\ndef merge_heads(x):\n"
        "    return rearrange(x, '... heads seq d -> ... seq (d heads)')\n",
        # the storage reread as (heads, seq, d_head) without moving heads in front of seq
        "def split_heads(x, heads):\n"
        "    *lead, seq, hidden = x.shape\n"
        "    return x.view(*lead, heads, seq, hidden // heads)\n"
        "\n\ndef merge_heads(x):\n"
        "    *lead, heads, seq, d = x.shape\n"
        "    return x.reshape(*lead, seq, heads * d)\n",
        # heads left after seq, as the lecture's pattern does: this exercise wants (..., heads, seq, d_head)
        "def split_heads(x, heads):\n"
        "    return rearrange(x, '... (heads d) -> ... heads d', heads=heads)\n"
        "\n\ndef merge_heads(x):\n"
        "    return rearrange(x, '... heads d -> ... (heads d)')\n",
        # a copy where a view was asked: .contiguous() copies x's data
        "def split_heads(x, heads):\n"
        "    return rearrange(x, '... seq (heads d) -> ... heads seq d', heads=heads).contiguous()\n"
        + _MERGE,
        # merge_heads copies even where a view exists: .contiguous() before .view copies
        _SPLIT
        + "\n\ndef merge_heads(x):\n"
        "    *lead, heads, seq, d = x.shape\n"
        "    return x.transpose(-3, -2).contiguous().view(*lead, seq, heads * d)\n",
        # a strided x copied first (.contiguous()): the split is no longer a view of x
        "def split_heads(x, heads):\n"
        "    x = x.contiguous()\n"
        "    *lead, seq, hidden = x.shape\n"
        "    return x.view(*lead, seq, heads, hidden // heads).transpose(-3, -2)\n"
        + _MERGE,
        # the heads argument ignored (2 heads assumed)
        "def split_heads(x, heads):\n"
        "    return rearrange(x, '... seq (heads d) -> ... heads seq d', heads=2)\n"
        + _MERGE,
        # merged as (d_head heads): the heads' features interleaved; the pattern is (heads d_head)
        _SPLIT
        + "\n\ndef merge_heads(x):\n"
        "    return rearrange(x, '... heads seq d -> ... seq (d heads)')\n",
        # only 3-D input handled: x.view(b, s, h, d) breaks without a batch or with two leading dims
        "def split_heads(x, heads):\n"
        "    b, s, hd = x.shape\n"
        "    return x.view(b, s, heads, hd // heads).transpose(1, 2)\n"
        "\n\ndef merge_heads(x):\n"
        "    b, h, s, d = x.shape\n"
        "    return x.transpose(1, 2).reshape(b, s, h * d)\n",
        # torch.stack copies the chunks into a new tensor: split_heads must be a view of x
        "def split_heads(x, heads):\n"
        "    return torch.stack(x.chunk(heads, dim=-1), dim=-3)\n"
        + _MERGE,
        # torch.cat copies even where a view exists: merging what split_heads made must give back x's storage
        _SPLIT
        + "\n\ndef merge_heads(x):\n"
        "    return torch.cat(x.unbind(-3), dim=-1)\n",
        # heads given as the size of d_head: rearrange(..., d=heads) cuts the features into pieces of length heads
        "def split_heads(x, heads):\n"
        "    return rearrange(x, '... s (h d) -> ... h s d', d=heads)\n"
        + _MERGE,
        # transpose(1, 2) by fixed positions: without a batch dimension it swaps seq with d_head, not heads with seq
        _SPLIT
        + "\n\ndef merge_heads(x):\n"
        "    y = x.transpose(1, 2)\n"
        "    return y.reshape(*y.shape[:-2], -1)\n",
    ],
    "einsum_flops": [
        # a multiply-add counted as one FLOP: it is two
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    names = set(inputs.replace(',', ' ').split())\n"
        "    return math.prod(sizes[n] for n in names)\n",
        # only the result's names: the summed name multiplies the work too
        "def einsum_flops(expression, sizes):\n"
        "    output = expression.split('->')[1]\n"
        "    return 2 * math.prod(sizes[n] for n in output.split())\n",
        # a name counted once per tensor that carries it: each distinct name counts once
        "def einsum_flops(expression, sizes):\n"
        "    inputs = expression.split('->')[0]\n"
        "    return 2 * math.prod(sizes[n] for n in inputs.replace(',', ' ').split())\n",
        # every size in the dict multiplied, not only the expression's names
        "def einsum_flops(expression, sizes):\n"
        "    return 2 * math.prod(sizes.values())\n",
        # computed through a float: above 2^53 it rounds the count
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    names = set(inputs.replace(',', ' ').split())\n"
        "    total = 2.0\n"
        "    for n in names:\n"
        "        total *= sizes[n]\n"
        "    return int(total)\n",
        # operands split on ', ' only: 'a b,b c->a c' without spaces is misread
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split(' -> ')\n"
        "    names = set(' '.join(inputs.split(', ')).split())\n"
        "    return 2 * math.prod(sizes[n] for n in names)\n",
        # the first name of each input only: read every name, not one per tensor
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    names = {part.split()[0] for part in inputs.split(',')} | set(output.split())\n"
        "    return 2 * math.prod(sizes[n] for n in names)\n",
        # asks torch's FLOP counter (count_flops) instead of reading the count off the expression
        "def einsum_flops(expression, sizes):\n"
        "    inputs = expression.split('->')[0].split(',')\n"
        "    tensors = [torch.empty([sizes[n] for n in part.split()], device='meta') for part in inputs]\n"
        "    return count_flops(einsum, *tensors, expression)\n",
        # a float (2.0 * ...): a count is a whole number, keep it in integers
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    names = set(inputs.replace(',', ' ').split())\n"
        "    return 2.0 * math.prod(sizes[n] for n in names)\n",
        # only three names taken, as in 2·m·k·n: every distinct name counts
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    names = list(dict.fromkeys(inputs.replace(',', ' ').split()))\n"
        "    return 2 * math.prod(sizes[n] for n in names[:3])\n",
        # split on spaces only: 'hidden,' and '->' are not names
        "def einsum_flops(expression, sizes):\n"
        "    names = set(expression.split()) - {'->'}\n"
        "    return 2 * math.prod(sizes[n] for n in names)\n",
        # every name of both inputs taken as summed: batch is in both inputs but kept, so it counts twice
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    first, second = (set(part.split()) for part in inputs.split(','))\n"
        "    names = [*output.split(), *(first & second)]\n"
        "    return 2 * math.prod(sizes[n] for n in names)\n",
    ],
    "causal_mask": [
        # the upper triangle (triu): in (query, key) order that lets each query see the future
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.bool, device=device).triu()\n",
        # True where attention is forbidden: this exercise's mask is True where it is allowed
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.bool, device=device).triu(1)\n",
        # the diagonal left out: each position may attend to itself
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.bool, device=device).tril(-1)\n",
        # a float mask (torch.ones makes float32 unless given dtype=torch.bool): make it torch.bool
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, device=device).tril()\n",
        # an integer mask: make it torch.bool
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.long, device=device).tril()\n",
        # the device argument ignored
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.bool).tril()\n",
        # a uint8 mask (what masks were before torch.bool): make it torch.bool
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.uint8, device=device).tril()\n",
        # a NumPy array: return a torch tensor, made on the device asked for
        "import numpy as np\n\n"
        "def causal_mask(seq, device=None):\n"
        "    return np.tril(np.ones((seq, seq), dtype=bool))\n",
        # a float mask (torch.ones makes float32 unless given dtype=torch.bool): make it torch.bool
        "def causal_mask(seq, device=None):\n"
        "    allowed = torch.ones(seq, seq, dtype=torch.bool, device=device).tril()\n"
        "    return torch.zeros(seq, seq, device=device).masked_fill(~allowed, float('-inf'))\n",
        # tril(1) lets each query see one key ahead: the diagonal argument shifts the triangle
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.bool, device=device).tril(1)\n",
    ],
}

RIGHT: dict[str, list[str]] = {
    "attention_scores": [
        # plain torch: matmul with the last two dimensions swapped, divided by sqrt
        "def attention_scores(q, k):\n"
        "    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n",
        # torch.einsum with an ellipsis, scaled with rsqrt of a tensor
        "def attention_scores(q, k):\n"
        "    scale = torch.rsqrt(torch.tensor(float(q.shape[-1]), dtype=q.dtype))\n"
        "    return torch.einsum('...sd,...td->...st', q, k) * scale\n",
        # broadcast multiply and sum over hidden, no matmul at all
        "def attention_scores(q, k):\n"
        "    d = q.shape[-1]\n"
        "    return (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(-1) / d ** 0.5\n",
        # matmul with .mT, q scaled first (out of place)
        "def attention_scores(q, k):\n"
        "    return (q * q.size(-1) ** -0.5) @ k.mT\n",
    ],
    "split_merge_heads": [
        # view then transpose, and transpose then reshape
        "def split_heads(x, heads):\n"
        "    return x.view(*x.shape[:-1], heads, x.shape[-1] // heads).transpose(-3, -2)\n"
        "\n\ndef merge_heads(x):\n"
        "    y = x.transpose(-3, -2)\n"
        "    return y.reshape(*y.shape[:-2], y.shape[-2] * y.shape[-1])\n",
        # unflatten and movedim, then movedim and flatten
        "def split_heads(x, heads):\n"
        "    return x.unflatten(-1, (heads, -1)).movedim(-2, -3)\n"
        "\n\ndef merge_heads(x):\n"
        "    return x.movedim(-3, -2).flatten(-2)\n",
        # reshape with -1 and swapaxes, both ways
        "def split_heads(x, heads):\n"
        "    return x.reshape(*x.shape[:-1], heads, -1).swapaxes(-3, -2)\n"
        "\n\ndef merge_heads(x):\n"
        "    return x.swapaxes(-3, -2).reshape(*x.shape[:-3], x.shape[-2], -1)\n",
    ],
    "einsum_flops": [
        # a loop over the characters' names with a set, int arithmetic
        "def einsum_flops(expression, sizes):\n"
        "    seen = set()\n"
        "    for part in expression.replace('->', ',').split(','):\n"
        "        seen.update(part.split())\n"
        "    total = 2\n"
        "    for name in sorted(seen):\n"
        "        total = total * int(sizes[name])\n"
        "    return total\n",
        # regular expression for the names; only the inputs (every result name is in an input)
        "import re\n\n"
        "def einsum_flops(expression, sizes):\n"
        "    names = set(re.findall(r'\\w+', expression.split('->')[0]))\n"
        "    return 2 * math.prod(sizes[n] for n in names)\n",
        # NumPy product: an np.int64 (exact below 2^63)
        "import numpy as np\n\n"
        "def einsum_flops(expression, sizes):\n"
        "    names = set(expression.replace('->', ',').replace(',', ' ').split())\n"
        "    return 2 * np.prod([sizes[n] for n in sorted(names)])\n",
        # a 0-d int64 tensor: the result's size times the summed names' sizes
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    kept = output.split()\n"
        "    summed = set(inputs.replace(',', ' ').split()) - set(kept)\n"
        "    return 2 * torch.tensor([sizes[n] for n in [*kept, *summed]]).prod()\n",
        # the first input's names and the result's (every name is in one of them)
        "def einsum_flops(expression, sizes):\n"
        "    inputs, output = expression.split('->')\n"
        "    names = set(inputs.split(',')[0].split()) | set(output.split())\n"
        "    return 2 * math.prod(sizes[n] for n in names)\n",
    ],
    "causal_mask": [
        # comparison of positions: key index <= query index
        "def causal_mask(seq, device=None):\n"
        "    i = torch.arange(seq, device=device)\n"
        "    return i[None, :] <= i[:, None]\n",
        # torch.tril of a bool ones, then the lecture's triu transposed
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, dtype=torch.bool, device=device).triu().t()\n",
        # float ones, tril, then .bool()
        "def causal_mask(seq, device=None):\n"
        "    return torch.ones(seq, seq, device=device).tril().bool()\n",
        # not the strict upper triangle, made on the CPU and moved with .to(device)
        "def causal_mask(seq, device=None):\n"
        "    return (~torch.ones(seq, seq, dtype=torch.bool).triu(1)).to(device)\n",
    ],
}

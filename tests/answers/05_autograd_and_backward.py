"""Wrong and right answers for notebook 05 (autograd and the cost of backward)."""

from __future__ import annotations

WRONG: dict[str, list[str]] = {
    "linear_backward": [
        # grad_w transposed: grad_out.T @ x is (d_out, d_in), the shape of w only when square
        "def linear_backward(x, w, grad_out):\n"
        "    return grad_out @ w.T, grad_out.T @ x\n",
        # grad_x without the transpose of w: right shape only for square w
        "def linear_backward(x, w, grad_out):\n"
        "    return grad_out @ w, x.T @ grad_out\n",
        # the factors of grad_w in the wrong order (grad_out @ x): runs when everything is square
        "def linear_backward(x, w, grad_out):\n"
        "    grad_w = grad_out @ x if grad_out.shape[1] == x.shape[0] else x.T @ grad_out\n"
        "    return grad_out @ w.T, grad_w\n",
        # the two gradients returned in the wrong order
        "def linear_backward(x, w, grad_out):\n"
        "    return x.T @ grad_out, grad_out @ w.T\n",
        # autograd asked for the gradients instead of deriving them (right values, no derivation)
        "def linear_backward(x, w, grad_out):\n"
        "    with torch.enable_grad():\n"
        "        x, w = x.detach().requires_grad_(), w.detach().requires_grad_()\n"
        "        return torch.autograd.grad(x @ w, (x, w), grad_outputs=grad_out)\n",
        # grad_w divided by the batch size: the gradient of a sum over rows is not a mean
        "def linear_backward(x, w, grad_out):\n"
        "    return grad_out @ w.T, x.T @ grad_out / x.shape[0]\n",
        # NumPy arrays returned: compute with torch (or convert back with torch.from_numpy)
        "def linear_backward(x, w, grad_out):\n"
        "    return grad_out.numpy() @ w.numpy().T, x.numpy().T @ grad_out.numpy()\n",
    ],
    "two_layer_grads": [
        # forgets the 1/numel of the mean: differentiates the sum
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    g2 = torch.ones(x.shape[0], w2.shape[1], dtype=x.dtype)\n"
        "    return x.T @ (g2 @ w2.T), h1.T @ g2\n",
        # divides by the batch only, as if the mean were over rows
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    g2 = torch.ones(x.shape[0], w2.shape[1], dtype=x.dtype) / x.shape[0]\n"
        "    return x.T @ (g2 @ w2.T), h1.T @ g2\n",
        # transposed gradients, arranged so the shapes still come out right
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    g2 = torch.ones(x.shape[0], w2.shape[1], dtype=x.dtype) / (x.shape[0] * w2.shape[1])\n"
        "    g1 = g2 @ w2.T\n"
        "    gw1 = (g1.T @ x).T if w1.shape[0] != w1.shape[1] else g1.T @ x\n"
        "    gw2 = (g2.T @ h1).T if w2.shape[0] != w2.shape[1] else g2.T @ h1\n"
        "    return gw1, gw2\n",
        # calls autograd: .backward() on copies that require grad
        "def two_layer_grads(x, w1, w2):\n"
        "    w1 = w1.detach().clone().requires_grad_(True)\n"
        "    w2 = w2.detach().clone().requires_grad_(True)\n"
        "    (x @ w1 @ w2).mean().backward()\n"
        "    return w1.grad, w2.grad\n",
        # calls autograd under torch.enable_grad(), which passes the inference_mode check
        "def two_layer_grads(x, w1, w2):\n"
        "    with torch.inference_mode(False), torch.enable_grad():\n"
        "        x, w1, w2 = x.clone(), w1.clone().requires_grad_(), w2.clone().requires_grad_()\n"
        "        return torch.autograd.grad((x @ w1 @ w2).mean(), (w1, w2))\n",
        # torch.func.grad: automatic differentiation under another name
        "def two_layer_grads(x, w1, w2):\n"
        "    return torch.func.grad(lambda a, b: (x @ a @ b).mean(), argnums=(0, 1))(w1, w2)\n",
        # dL/dh2 divided by d2 alone: the mean is over all B·d2 elements of h2, not over the columns
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    g2 = torch.ones(x.shape[0], w2.shape[1], dtype=x.dtype) / w2.shape[1]\n"
        "    return x.T @ (g2 @ w2.T), h1.T @ g2\n",
        # dL/dh2 made in float32 whatever the inputs' dtype: float64 inputs fail in the matmul
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    g2 = torch.ones(x.shape[0], w2.shape[1]) / (x.shape[0] * w2.shape[1])\n"
        "    return x.T @ (g2 @ w2.T), h1.T @ g2\n",
        # the lecture's loss mean(h2²) differentiated (2·h2/numel), not this exercise's mean(h2)
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    h2 = h1 @ w2\n"
        "    g2 = 2 * h2 / h2.numel()\n"
        "    return x.T @ (g2 @ w2.T), h1.T @ g2\n",
    ],
    "forward_backward_flops": [
        # backward as exactly twice the forward, whatever the input needs
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    forward = sum(2 * batch * a * b for a, b in zip(dims, dims[1:]))\n"
        "    return forward, 2 * forward\n",
        # a multiply-add counted as one FLOP
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    layers = [batch * a * b for a, b in zip(dims, dims[1:])]\n"
        "    skipped = 0 if input_requires_grad else layers[0]\n"
        "    return sum(layers), 2 * sum(layers) - skipped\n",
        # skips the first layer's input gradient even when the input requires grad
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    layers = [2 * batch * a * b for a, b in zip(dims, dims[1:])]\n"
        "    return sum(layers), 2 * sum(layers) - layers[0]\n",
        # skips the last layer's input gradient instead of the first's
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    layers = [2 * batch * a * b for a, b in zip(dims, dims[1:])]\n"
        "    skipped = 0 if input_requires_grad else layers[-1]\n"
        "    return sum(layers), 2 * sum(layers) - skipped\n",
        # forward counted right, backward only the weight gradients
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    forward = sum(2 * batch * a * b for a, b in zip(dims, dims[1:]))\n"
        "    return forward, forward\n",
        # measured, not counted: FlopCounterMode on meta tensors (the right numbers, no formula)
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    from torch.utils.flop_counter import FlopCounterMode\n"
        "    h = torch.empty(batch, dims[0], device='meta',\n"
        "                    requires_grad=input_requires_grad)\n"
        "    weights = [torch.empty(a, b, device='meta', requires_grad=True)\n"
        "               for a, b in zip(dims[:-1], dims[1:])]\n"
        "    with FlopCounterMode(display=False) as counter:\n"
        "        for w in weights:\n"
        "            h = h @ w\n"
        "    forward = counter.get_total_flops()\n"
        "    with FlopCounterMode(display=False) as counter:\n"
        "        h.sum().backward()\n"
        "    return int(forward), int(counter.get_total_flops())\n",
        # the notebook's measuring cell copied: nn.Linear layers on meta, counted
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    stack = nn.Sequential(*[nn.Linear(a, b, bias=False, device='meta')\n"
        "                            for a, b in zip(dims[:-1], dims[1:])])\n"
        "    x = torch.empty(batch, dims[0], device='meta', requires_grad=input_requires_grad)\n"
        "    with FlopCounterMode(display=False) as counter:\n"
        "        out = stack(x)\n"
        "    forward = counter.get_total_flops()\n"
        "    with FlopCounterMode(display=False) as counter:\n"
        "        out.sum().backward()\n"
        "    return int(forward), int(counter.get_total_flops())\n",
        # count_flops on the forward and on the whole step
        "from lecture_utils.flops import count_flops\n\n"
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    x = torch.empty(batch, dims[0], device='meta', requires_grad=input_requires_grad)\n"
        "    ws = [torch.empty(a, b, device='meta', requires_grad=True)\n"
        "          for a, b in zip(dims[:-1], dims[1:])]\n"
        "    def fwd():\n"
        "        h = x\n"
        "        for w in ws:\n"
        "            h = h @ w\n"
        "        return h\n"
        "    forward = count_flops(fwd)\n"
        "    return forward, count_flops(lambda: fwd().sum().backward()) - forward\n",
        # the last layer left out: range(len(dims) - 2) stops one layer early
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    forward = backward = 0\n"
        "    for i in range(len(dims) - 2):\n"
        "        matmul = 2 * batch * dims[i] * dims[i + 1]\n"
        "        forward += matmul\n"
        "        backward += matmul if i == 0 and not input_requires_grad else 2 * matmul\n"
        "    return forward, backward\n",
        # the whole step (forward + backward) returned as the backward count
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    forward = sum(2 * batch * a * b for a, b in zip(dims, dims[1:]))\n"
        "    skipped = 0 if input_requires_grad else 2 * batch * dims[0] * dims[1]\n"
        "    return forward, 3 * forward - skipped\n",
        # float arithmetic (2.0 * ...): FLOP counts are whole numbers, returned as ints
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    forward = sum(2.0 * batch * a * b for a, b in zip(dims, dims[1:]))\n"
        "    skipped = 0 if input_requires_grad else 2.0 * batch * dims[0] * dims[1]\n"
        "    return forward, 2 * forward - skipped\n",
    ],
}

RIGHT: dict[str, list[str]] = {
    "linear_backward": [
        # torch.matmul with .t()
        "def linear_backward(x, w, grad_out):\n"
        "    return torch.matmul(grad_out, w.t()), torch.matmul(x.t(), grad_out)\n",
        # einsum, written from the index formulas
        "def linear_backward(x, w, grad_out):\n"
        "    grad_x = torch.einsum('ik,jk->ij', grad_out, w)\n"
        "    grad_w = torch.einsum('ij,ik->jk', x, grad_out)\n"
        "    return grad_x, grad_w\n",
        # a sum of outer products over the batch, and transposes taken the other way round
        "def linear_backward(x, w, grad_out):\n"
        "    grad_w = sum(torch.outer(x[i], grad_out[i]) for i in range(x.shape[0]))\n"
        "    grad_x = (w @ grad_out.transpose(0, 1)).transpose(0, 1)\n"
        "    return grad_x, grad_w\n",
        # computed in NumPy, returned as torch tensors, in a list
        "def linear_backward(x, w, grad_out):\n"
        "    import numpy as np\n"
        "    g, xs, ws = np.asarray(grad_out), np.asarray(x), np.asarray(w)\n"
        "    return [torch.from_numpy(g @ ws.T), torch.from_numpy(xs.T @ g)]\n",
        # three loops over the index formula, accumulated into zeros of the inputs' dtype
        "def linear_backward(x, w, grad_out):\n"
        "    grad_x, grad_w = torch.zeros_like(x), torch.zeros_like(w)\n"
        "    for i in range(x.shape[0]):\n"
        "        for j in range(x.shape[1]):\n"
        "            for k in range(w.shape[1]):\n"
        "                grad_x[i, j] += grad_out[i, k] * w[j, k]\n"
        "                grad_w[j, k] += x[i, j] * grad_out[i, k]\n"
        "    return grad_x, grad_w\n",
    ],
    "two_layer_grads": [
        # einsum throughout, the mean's gradient from ones_like / numel
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = torch.einsum('ij,jk->ik', x, w1)\n"
        "    h2 = torch.einsum('ij,jk->ik', h1, w2)\n"
        "    g2 = torch.ones_like(h2) / h2.numel()\n"
        "    g1 = torch.einsum('ik,jk->ij', g2, w2)\n"
        "    return torch.einsum('ij,ik->jk', x, g1), torch.einsum('ij,ik->jk', h1, g2)\n",
        # closed form: dL/dh2 is constant, so both gradients are outer products of sums
        "def two_layer_grads(x, w1, w2):\n"
        "    n = x.shape[0] * w2.shape[1]\n"
        "    grad_w2 = (x @ w1).sum(0)[:, None].expand(-1, w2.shape[1]) / n\n"
        "    grad_w1 = torch.outer(x.sum(0), w2.sum(1)) / n\n"
        "    return grad_w1, grad_w2\n",
        # the chain through linear_backward, scaling at the end
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    ones = torch.ones(x.shape[0], w2.shape[1], dtype=x.dtype)\n"
        "    grad_h1, grad_w2 = linear_backward(h1, w2, ones)\n"
        "    _, grad_w1 = linear_backward(x, w1, grad_h1)\n"
        "    n = ones.numel()\n"
        "    return grad_w1 / n, grad_w2 / n\n",
        # full_like on the forward output, so dtype and device follow the inputs
        "def two_layer_grads(x, w1, w2):\n"
        "    h1 = x @ w1\n"
        "    g2 = torch.full_like(h1 @ w2, 1.0 / (x.shape[0] * w2.shape[1]))\n"
        "    return x.T @ (g2 @ w2.T), h1.T @ g2\n",
        # computed in NumPy (float64), converted back to the inputs' dtype
        "def two_layer_grads(x, w1, w2):\n"
        "    import numpy as np\n"
        "    xs, a, b = np.asarray(x), np.asarray(w1), np.asarray(w2)\n"
        "    g2 = np.full((xs.shape[0], b.shape[1]), 1.0 / (xs.shape[0] * b.shape[1]))\n"
        "    grad_w1, grad_w2 = xs.T @ (g2 @ b.T), (xs @ a).T @ g2\n"
        "    return torch.from_numpy(grad_w1).to(x.dtype), torch.from_numpy(grad_w2).to(x.dtype)\n",
    ],
    "forward_backward_flops": [
        # closed form: 2·B·P forward, 4·B·P backward, minus the first layer's input gradient
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    params = sum(a * b for a, b in zip(dims[:-1], dims[1:]))\n"
        "    skipped = 0 if input_requires_grad else 2 * batch * dims[0] * dims[1]\n"
        "    return 2 * batch * params, 4 * batch * params - skipped\n",
        # layer by layer, the input gradient's condition written as a skip of layer 0
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    layers = [2 * batch * a * b for a, b in zip(dims[:-1], dims[1:])]\n"
        "    inputs = layers if input_requires_grad else layers[1:]\n"
        "    return sum(layers), sum(layers) + sum(inputs)\n",
        # math.prod per layer, returned as a list
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    layers = [2 * batch * math.prod(pair) for pair in zip(dims[:-1], dims[1:])]\n"
        "    skipped = 0 if input_requires_grad else layers[0]\n"
        "    return [sum(layers), 2 * sum(layers) - skipped]\n",
        # NumPy arrays of the widths: NumPy integers
        "import numpy as np\n\n"
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    d = np.array(dims, dtype=np.int64)\n"
        "    layers = 2 * batch * d[:-1] * d[1:]\n"
        "    skipped = 0 if input_requires_grad else layers[0]\n"
        "    return layers.sum(), 2 * layers.sum() - skipped\n",
        # torch tensors of the widths: 0-d int64 tensors
        "def forward_backward_flops(batch, dims, input_requires_grad=False):\n"
        "    d = torch.tensor(list(dims))\n"
        "    layers = 2 * batch * d[:-1] * d[1:]\n"
        "    skipped = 0 if input_requires_grad else layers[0]\n"
        "    return layers.sum(), 2 * layers.sum() - skipped\n",
    ],
}

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
    ],
}

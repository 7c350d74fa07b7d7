"""Wrong and right answers for notebook 06 (parameters and modules)."""

from __future__ import annotations

_LINEAR_HEAD = (
    "class Linear(nn.Module):\n"
    "    def __init__(self, d_in, d_out):\n"
    "        super().__init__()\n"
)
_FORWARD = (
    "    def forward(self, x):\n"
    "        return x @ self.weight\n"
)
_CRUNCHER_HEAD = (
    "class Cruncher(nn.Module):\n"
    "    def __init__(self, dim, num_layers):\n"
    "        super().__init__()\n"
)

WRONG: dict[str, list[str]] = {
    "Linear": [
        # std 1: torch.randn without the 1/sqrt(d_in) scale
        _LINEAR_HEAD
        + "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=1.0, a=-3.0, b=3.0))\n"
        + _FORWARD,
        # std 1/d_in instead of 1/sqrt(d_in)
        _LINEAR_HEAD
        + "        s = 1 / d_in\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-3 * s, b=3 * s))\n"
        + _FORWARD,
        # no truncation: a plain normal of the right std
        _LINEAR_HEAD
        + "        self.weight = nn.Parameter(torch.randn(d_in, d_out) / math.sqrt(d_in))\n"
        + _FORWARD,
        # truncation at ±3 (trunc_normal_'s a and b are absolute), not at ±3 std
        _LINEAR_HEAD
        + "        s = 1 / math.sqrt(d_in)\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-3, b=3))\n"
        + _FORWARD,
        # truncation at ±2 std (trunc_normal_'s defaults are a=-2, b=2, scaled here)
        _LINEAR_HEAD
        + "        s = 1 / math.sqrt(d_in)\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-2 * s, b=2 * s))\n"
        + _FORWARD,
        # a bias, as nn.Linear has (initialised to zero, so the forward values still match)
        _LINEAR_HEAD
        + "        s = 1 / math.sqrt(d_in)\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-3 * s, b=3 * s))\n"
        "        self.bias = nn.Parameter(torch.zeros(d_out))\n"
        "    def forward(self, x):\n"
        "        return x @ self.weight + self.bias\n",
        # nn.Linear's layout: weight (d_out, d_in) and x @ weight.T
        _LINEAR_HEAD
        + "        s = 1 / math.sqrt(d_in)\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_out, d_in), std=s, a=-3 * s, b=3 * s))\n"
        "    def forward(self, x):\n"
        "        return x @ self.weight.T\n",
        # a plain tensor, not an nn.Parameter: the module does not register it
        _LINEAR_HEAD
        + "        s = 1 / math.sqrt(d_in)\n"
        "        self.weight = nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s,\n"
        "                                            a=-3 * s, b=3 * s)\n"
        + _FORWARD,
        # std 1/sqrt(d_out): the sum in x @ weight runs over d_in terms, so the scale is 1/sqrt(d_in)
        _LINEAR_HEAD
        + "        s = 1 / math.sqrt(d_out)\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-3 * s, b=3 * s))\n"
        + _FORWARD,
        # Glorot's std sqrt(2 / (d_in + d_out)): the exercise asks for 1/sqrt(d_in)
        _LINEAR_HEAD
        + "        s = math.sqrt(2 / (d_in + d_out))\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-3 * s, b=3 * s))\n"
        + _FORWARD,
        # d_in ** -1/2 is (d_in ** -1) / 2: write d_in ** -0.5
        _LINEAR_HEAD
        + "        s = d_in ** -1/2\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-3 * s, b=3 * s))\n"
        + _FORWARD,
        # clamped at ±3 std instead of redrawn: the tails pile up at the cut
        _LINEAR_HEAD
        + "        self.weight = nn.Parameter(torch.randn(d_in, d_out).clamp(-3, 3) / math.sqrt(d_in))\n"
        + _FORWARD,
        # the global generator reseeded in __init__: every layer draws the same weights
        _LINEAR_HEAD
        + "        torch.manual_seed(0)\n"
        "        s = 1 / math.sqrt(d_in)\n"
        "        self.weight = nn.Parameter(\n"
        "            nn.init.trunc_normal_(torch.empty(d_in, d_out), std=s, a=-3 * s, b=3 * s))\n"
        + _FORWARD,
    ],
    "Cruncher": [
        # output (batch, 1): final's last dimension kept
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return self.final(x)\n",
        # squeeze() also drops a batch of one
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return self.final(x).squeeze()\n",
        # one layer repeated num_layers times
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([Linear(dim, dim)] * num_layers)\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return self.final(x).squeeze(-1)\n",
        # a plain Python list: the layers are not registered
        _CRUNCHER_HEAD
        + "        self.layers = [Linear(dim, dim) for _ in range(num_layers)]\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return self.final(x).squeeze(-1)\n",
        # a ReLU between layers, which the lecture's model does not have
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = torch.relu(layer(x))\n"
        "        return self.final(x).squeeze(-1)\n",
        # torch's nn.Linear (with bias) in place of the student's own Linear
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = nn.Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return self.final(x).squeeze(-1)\n",
        # torch's nn.Linear without bias: no extra parameters, but (d_out, d_in) and its init
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([nn.Linear(dim, dim, bias=False)\n"
        "                                     for _ in range(num_layers)])\n"
        "        self.final = nn.Linear(dim, 1, bias=False)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return self.final(x).squeeze(-1)\n",
        # nn.Sequential registers the layers too, but the exercise's layers is an nn.ModuleList
        _CRUNCHER_HEAD
        + "        self.layers = nn.Sequential(*[Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        return self.final(self.layers(x)).squeeze(-1)\n",
        # the layers applied last to first
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in reversed(self.layers):\n"
        "            x = layer(x)\n"
        "        return self.final(x).squeeze(-1)\n",
        # the layers built but never applied: forward runs final alone
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        return self.final(x).squeeze(-1)\n",
    ],
    "count_parameters": [
        # frozen parameters counted too
        "def count_parameters(model):\n"
        "    return sum(p.numel() for p in model.parameters())\n",
        # a shared parameter counted once per module that uses it
        "def count_parameters(model):\n"
        "    return sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False)\n"
        "               if p.requires_grad)\n",
        # the state_dict: buffers counted, frozen parameters too
        "def count_parameters(model):\n"
        "    return sum(t.numel() for t in model.state_dict().values())\n",
        # module by module: a shared module or parameter counted each time it appears
        "def count_parameters(model):\n"
        "    return sum(p.numel() for _, m in model.named_modules(remove_duplicate=False)\n"
        "               for p in m.parameters(recurse=False) if p.requires_grad)\n",
        # counted the parameter tensors, not the numbers in them: sum p.numel()
        "def count_parameters(model):\n"
        "    return len([p for p in model.parameters() if p.requires_grad])\n",
        # counted only parameters that have a .grad, and a new model has none: filter on requires_grad
        "def count_parameters(model):\n"
        "    return sum(p.numel() for p in model.parameters() if p.grad is not None)\n",
        # parameters(recurse=False): only the top module's own, none of its submodules'
        "def count_parameters(model):\n"
        "    return sum(p.numel() for p in model.parameters(recurse=False) if p.requires_grad)\n",
        # numpy.sum of an empty list is the float 0.0: a model with nothing trainable counts
        # a float
        "import numpy as np\n\n"
        "def count_parameters(model):\n"
        "    return np.sum([p.numel() for p in model.parameters() if p.requires_grad])\n",
    ],
}

RIGHT: dict[str, list[str]] = {
    "Linear": [
        # trunc_normal_ straight on the Parameter, einsum forward
        _LINEAR_HEAD
        + "        self.weight = nn.Parameter(torch.empty(d_in, d_out))\n"
        "        std = d_in ** -0.5\n"
        "        with torch.no_grad():\n"
        "            torch.nn.init.trunc_normal_(self.weight, 0.0, std, -3 * std, 3 * std)\n"
        "    def forward(self, x):\n"
        "        return torch.einsum('...i,io->...o', x, self.weight)\n",
        # a unit truncated normal scaled afterwards, register_parameter, torch.matmul
        _LINEAR_HEAD
        + "        w = nn.init.trunc_normal_(torch.empty(d_in, d_out), std=1.0, a=-3.0, b=3.0)\n"
        "        self.register_parameter('weight', nn.Parameter(w / math.sqrt(d_in)))\n"
        "    def forward(self, x):\n"
        "        return torch.matmul(x, self.weight)\n",
        # rejection sampling by hand: redraw every value beyond 3 std
        _LINEAR_HEAD
        + "        z = torch.randn(d_in, d_out)\n"
        "        while (bad := z.abs() > 3).any():\n"
        "            z[bad] = torch.randn(int(bad.sum()))\n"
        "        self.weight = nn.Parameter(z / math.sqrt(d_in))\n"
        + _FORWARD,
        # drawn in float64 and cast to float32
        _LINEAR_HEAD
        + "        s = 1 / math.sqrt(d_in)\n"
        "        w = torch.empty(d_in, d_out, dtype=torch.float64)\n"
        "        nn.init.trunc_normal_(w, std=s, a=-3 * s, b=3 * s)\n"
        "        self.weight = nn.Parameter(w.float())\n"
        + _FORWARD,
        # inverse-CDF sampling of the truncated normal with torch.erfinv
        _LINEAR_HEAD
        + "        low = 0.5 * (1 + math.erf(-3 / math.sqrt(2)))\n"
        "        u = low + (1 - 2 * low) * torch.rand(d_in, d_out)\n"
        "        z = math.sqrt(2) * torch.erfinv(2 * u - 1)\n"
        "        self.weight = nn.Parameter(z / math.sqrt(d_in))\n"
        + _FORWARD,
    ],
    "Cruncher": [
        # ModuleList built by append, the output indexed with [..., 0]
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList()\n"
        "        for _ in range(num_layers):\n"
        "            self.layers.append(Linear(dim, dim))\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for i in range(len(self.layers)):\n"
        "            x = self.layers[i](x)\n"
        "        return self.final(x)[..., 0]\n",
        # functools.reduce over the layers, reshape to (batch,)
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList(Linear(dim, dim) for _ in range(num_layers))\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        import functools\n"
        "        h = functools.reduce(lambda h, layer: layer(h), self.layers, x)\n"
        "        return self.final(h).reshape(x.shape[0])\n",
        # view(-1) and flatten() both turn (batch, 1) into (batch,), a batch of one included
        _CRUNCHER_HEAD
        + "        self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(num_layers)])\n"
        "        self.final = Linear(dim, 1)\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        return self.final(x).view(-1)\n",
    ],
    "count_parameters": [
        # deduplicate by identity by hand, from the list with duplicates
        "def count_parameters(model):\n"
        "    seen, total = set(), 0\n"
        "    for _, p in model.named_parameters(remove_duplicate=False):\n"
        "        if p.requires_grad and id(p) not in seen:\n"
        "            seen.add(id(p))\n"
        "            total += p.numel()\n"
        "    return total\n",
        # math.prod of shapes, filtered list, explicit int
        "def count_parameters(model):\n"
        "    trainable = [p for p in model.parameters() if p.requires_grad]\n"
        "    return int(sum(math.prod(p.shape) for p in trainable))\n",
        # a set of Parameter objects (hashed by identity) removes the shared ones
        "def count_parameters(model):\n"
        "    return sum(p.nelement() for p in set(model.parameters()) if p.requires_grad)\n",
        # NumPy's sum in int64: a NumPy integer
        "import numpy as np\n\n"
        "def count_parameters(model):\n"
        "    sizes = [p.numel() for p in model.parameters() if p.requires_grad]\n"
        "    return np.sum(sizes, dtype=np.int64)\n",
        # a tensor of the sizes, summed: a 0-d int64 tensor
        "def count_parameters(model):\n"
        "    sizes = [p.numel() for p in model.parameters() if p.requires_grad]\n"
        "    return torch.tensor(sizes, dtype=torch.int64).sum()\n",
    ],
}

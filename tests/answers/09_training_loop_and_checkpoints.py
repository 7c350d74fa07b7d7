"""Wrong and right answers for notebook 09 (the training loop and checkpoints)."""

from __future__ import annotations

_SAVE = '''
def save_checkpoint(path, model, optimizer, step: int) -> None:
    rng = {"python": random.getstate(), "numpy": np.random.get_state(),
           "torch": torch.get_rng_state()}
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step, "rng": rng}, path)
'''

_LOAD = '''
def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=False)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    random.setstate(checkpoint["rng"]["python"])
    np.random.set_state(checkpoint["rng"]["numpy"])
    torch.set_rng_state(checkpoint["rng"]["torch"])
    return checkpoint["step"]
'''

# the same, with every GPU's generator too (each answer built on these has one slip only)
_SAVE_ALL = _SAVE.replace('"torch": torch.get_rng_state()}',
                          '"torch": torch.get_rng_state(),\n'
                          '           "cuda": torch.cuda.get_rng_state_all()}')
_LOAD_ALL = _LOAD.replace('    return checkpoint["step"]',
                          '    torch.cuda.set_rng_state_all(checkpoint["rng"]["cuda"])\n'
                          '    return checkpoint["step"]')

WRONG: dict[str, list[str]] = {
    "training_step_budget": [
        # the optimizer's state is left out: AdaGrad keeps one sum per parameter, Adam two
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": 0,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # Adam and AdamW counted with one state per parameter: they keep two, exp_avg and
        # exp_avg_sq
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 1, "adamw": 1}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # the gradients are left out: backward makes one gradient per parameter, kept until the
        # optimizer's step
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": 0,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # activations counted per parameter (batch_size · P values): the forward pass keeps each
        # layer's output, batch_size · dim values per layer
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * params * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # values counted, not bytes: multiply each count by the size of one value of dtype
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = 1
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # 2·B·P FLOPs is the forward pass alone: backward adds 4·B·P
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 2 * batch_size * params
    return budget
''',
        # the dtype is ignored: every part is counted at 4 bytes a value
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = 4
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # the input batch is counted as an activation: it exists anyway; the lecture counts each
        # layer's output, batch_size · dim · num_layers values
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * (num_layers + 1) * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # the total leaves the activations out: it is parameters + gradients + optimizer state +
        # activations
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = (budget["parameters"] + budget["gradients"]
                       + budget["optimizer_state"])
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # bytes per value as a float (finfo bits / 8): bytes are whole numbers, keep them ints
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.finfo(dtype).bits / 8
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # FLOPs computed in floating point: past 2^53 a float rounds the count
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = int(6.0 * batch_size * params)
    return budget
''',
        # the final layer counted as dim×dim: it maps dim values to 1 (dim×1)
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * (num_layers + 1)
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # the final dim×1 layer is left out of the parameters
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * batch_size * params
    return budget
''',
        # 6·P FLOPs: the batch is left out; every example costs 6 FLOPs per parameter
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    params = dim * dim * num_layers + dim
    element = torch.tensor([], dtype=dtype).element_size()
    states = {"sgd": 0, "sgd_momentum": 1, "adagrad": 1, "rmsprop": 1,
              "adam": 2, "adamw": 2}[optimizer_name]
    budget = {"parameters": params * element,
              "gradients": params * element,
              "optimizer_state": states * params * element,
              "activations": batch_size * dim * num_layers * element}
    budget["total"] = sum(budget.values())
    budget["flops"] = 6 * params
    return budget
''',
    ],
    "set_seed": [
        # only torch is seeded: Python's random and NumPy's global generator are not
        "def set_seed(seed):\n    torch.manual_seed(seed)\n",
        # NumPy's global generator is not seeded (item 1): np.random.seed(seed) seeds it
        "def set_seed(seed):\n    random.seed(seed)\n    torch.manual_seed(seed)\n",
        # Python's global random is not seeded (item 0): random.seed(seed) seeds it
        "def set_seed(seed):\n    np.random.seed(seed)\n    torch.manual_seed(seed)\n",
        # torch's CPU generator only: torch.default_generator leaves every GPU unseeded
        "def set_seed(seed):\n    random.seed(seed)\n    np.random.seed(seed)\n"
        "    torch.default_generator.manual_seed(seed)\n",
        # NumPy's global generator is not seeded (item 1): np.random.seed(seed) seeds it
        "def set_seed(seed):\n    random.seed(seed)\n    np.random.default_rng(seed)\n"
        "    torch.manual_seed(seed)\n",
        # Python's global random is not seeded (item 0): random.seed(seed) seeds it
        "def set_seed(seed):\n    random.Random(seed)\n    np.random.seed(seed)\n"
        "    torch.manual_seed(seed)\n",
        # torch's global generator is not seeded (item 2): torch.manual_seed(seed) seeds it
        "def set_seed(seed):\n    random.seed(seed)\n    np.random.seed(seed)\n"
        "    torch.Generator().manual_seed(seed)\n",
        # seeds with a fixed number, not with the seed it is given
        "def set_seed(seed):\n    random.seed(0)\n    np.random.seed(0)\n"
        "    torch.manual_seed(0)\n",
    ],
    "cosine_lr": [
        # nanoGPT-style warm-up, off by one: (step + 1) / warmup_steps
        '''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return max_lr * (step + 1) / warmup_steps
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))
''',
        # not clamped after total_steps: the cosine climbs back up
        '''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return max_lr * step / warmup_steps
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))
''',
        # decays to 0 instead of min_lr (min_lr only after the end)
        '''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return max_lr * step / warmup_steps
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return 0.5 * max_lr * (1 + math.cos(math.pi * progress))
''',
        # cosine phase off by one: the decay starts one step late, peak at warmup_steps + 1
        '''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step <= warmup_steps:
        return max_lr * step / (warmup_steps + 1)
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps - 1) / (total_steps - warmup_steps - 1)
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))
''',
        # warm-up from min_lr instead of from 0
'''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return min_lr + (max_lr - min_lr) * step / warmup_steps
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))
''',
        # a straight line from max_lr down to min_lr, not half a cosine
'''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return max_lr * step / warmup_steps
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return max_lr - (max_lr - min_lr) * progress
''',
        # decay progress over total_steps instead of total_steps - warmup_steps
'''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return max_lr * step / warmup_steps
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps) / total_steps
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))
''',
        # integer division in the warm-up: step // warmup_steps is 0 until it ends
'''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return step // warmup_steps * max_lr
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))
''',
    ],
    "clip_grad_norm": [
        # returns the norm after clipping
        '''
def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    coefficient = max_norm / (total + 1e-6)
    if coefficient < 1:
        for g in grads:
            g.mul_(coefficient)
        total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    return total.item()
''',
        # scales small gradients up (no clamp of the coefficient at 1)
        '''
def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads)).item()
    for g in grads:
        g.mul_(max_norm / (total + 1e-6))
    return total
''',
        # one norm per parameter
        '''
def clip_grad_norm(parameters, max_norm):
    total = 0.0
    for p in parameters:
        if p.grad is None:
            continue
        norm = p.grad.norm().item()
        total += norm ** 2
        if norm > max_norm:
            p.grad.mul_(max_norm / (norm + 1e-6))
    return total ** 0.5
''',
        # forgets parameters without a gradient
        '''
def clip_grad_norm(parameters, max_norm):
    params = list(parameters)
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params)).item()
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (total + 1e-6))
    return total
''',
        # iterates the generator twice: the second loop sees nothing, nothing is clipped
        '''
def clip_grad_norm(parameters, max_norm):
    total = math.sqrt(sum((p.grad ** 2).sum().item() for p in parameters
                          if p.grad is not None))
    if total > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / (total + 1e-6))
    return total
''',
        # the sum of the parameters' norms, not the norm of all gradients together
'''
def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = sum(g.norm().item() for g in grads)
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / (total + 1e-6))
    return total
''',
        # scales a local copy: g = g * c leaves every .grad unchanged
'''
def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = math.sqrt(sum((g ** 2).sum().item() for g in grads))
    if total > max_norm:
        for g in grads:
            g = g * (max_norm / (total + 1e-6))
    return total
''',
        # clips each entry to [-max_norm, max_norm] (by value, not by the norm)
'''
def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = math.sqrt(sum((g ** 2).sum().item() for g in grads))
    for g in grads:
        g.clamp_(-max_norm, max_norm)
    return total
''',
        # not hand-written: torch's own clipping
        '''
def clip_grad_norm(parameters, max_norm):
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm).item()
''',
        # not hand-written, hidden behind an alias imported into the cell
        '''
from torch.nn.utils import clip_grad_norm_ as _clip


def clip_grad_norm(parameters, max_norm):
    return float(_clip(parameters, max_norm))
''',
    ],
    "load_checkpoint": [
        # the step comes back as a float (3.0): a step is a whole number, and range(step, N)
        # refuses a float
        _SAVE_ALL + _LOAD_ALL.replace('    return checkpoint["step"]',
                                      '    return float(checkpoint["step"])'),
        # no RNG states in the checkpoint: after loading, the generators are not where they were
        '''
def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step}, path)


def load_checkpoint(path, model, optimizer):
    checkpoint = torch.load(path)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["step"]
''',
        # torch's RNG only: Python's and NumPy's are forgotten
        '''
def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step, "rng": torch.get_rng_state()}, path)


def load_checkpoint(path, model, optimizer):
    checkpoint = torch.load(path)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    torch.set_rng_state(checkpoint["rng"])
    return checkpoint["step"]
''',
        # the model but not the optimizer state
        _SAVE.replace('"optimizer": optimizer.state_dict(),\n                ', "")
        + _LOAD.replace('    optimizer.load_state_dict(checkpoint["optimizer"])\n', ""),
        # no step in the file: load returns 0, as if starting over
        _SAVE.replace('\n                "step": step,', "") + _LOAD.replace(
            'return checkpoint["step"]', "return 0"),
        # Python's, NumPy's and torch's CPU RNG states, but not the GPUs'
        _SAVE + _LOAD,
        # the GPUs' RNG states saved, never restored
        _SAVE.replace('    torch.save(', '    rng["cuda"] = torch.cuda.get_rng_state_all()\n'
                      '    torch.save(') + _LOAD,
        # only the current GPU's state (torch.cuda.get_rng_state()), not every GPU's
        _SAVE.replace('    torch.save(', '    rng["cuda"] = torch.cuda.get_rng_state()\n'
                      '    torch.save(')
        + _LOAD.replace('    return checkpoint["step"]',
                        '    torch.cuda.set_rng_state(checkpoint["rng"]["cuda"])\n'
                        '    return checkpoint["step"]'),
        # the RNG states are saved but never restored: the generators are not where they were
        _SAVE + _LOAD.replace('    random.setstate(checkpoint["rng"]["python"])\n'
                              '    np.random.set_state(checkpoint["rng"]["numpy"])\n'
                              '    torch.set_rng_state(checkpoint["rng"]["torch"])\n', ""),
        # returns the step after the saved one: the resumed loop would skip a step
        _SAVE_ALL + _LOAD_ALL.replace('return checkpoint["step"]', 'return checkpoint["step"] + 1'),
        # torch.load with its default weights_only=True (torch >= 2.6) refuses NumPy's state
        _SAVE_ALL + _LOAD_ALL.replace("torch.load(path, weights_only=False)", "torch.load(path)"),
        # an atomic write through a random temporary name moves Python's generator
        _SAVE_ALL.replace('"step": step, "rng": rng}, path)',
                          '"step": step, "rng": rng}, temporary)\n    os.replace(temporary, path)'
                          ).replace('    torch.save(',
                                    '    temporary = f"{path}.{random.randrange(10**6)}.tmp"\n'
                                    '    torch.save(') + _LOAD_ALL,
        # deletes the checkpoint it was asked to read
        _SAVE_ALL + _LOAD_ALL.replace('    return checkpoint["step"]',
                                  '    os.remove(path)\n    return checkpoint["step"]'),
        # "load" that rebinds a local name instead of loading into the given objects
        _SAVE + '''
def load_checkpoint(path, model, optimizer):
    checkpoint = torch.load(path, weights_only=False)
    model = checkpoint["model"]
    optimizer = checkpoint["optimizer"]
    random.setstate(checkpoint["rng"]["python"])
    np.random.set_state(checkpoint["rng"]["numpy"])
    torch.set_rng_state(checkpoint["rng"]["torch"])
    return checkpoint["step"]
''',
    ],
}

RIGHT: dict[str, list[str]] = {
    "training_step_budget": [
        '''
import numpy as _np


def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    size = _np.int64(dtype.itemsize)
    n = _np.int64(num_layers * dim ** 2 + dim)
    per_param = {"sgd": 2, "sgd_momentum": 3, "adagrad": 3, "rmsprop": 3,
                 "adam": 4, "adamw": 4}[optimizer_name] - 2
    act = _np.int64(batch_size) * dim * num_layers * size
    return dict(parameters=n * size, gradients=n * size,
                optimizer_state=per_param * n * size, activations=act,
                total=(2 + per_param) * n * size + act, flops=6 * _np.int64(batch_size) * n)
''',
        '''
def training_step_budget(dim, num_layers, batch_size, optimizer_name, dtype=torch.float32):
    layers = [torch.nn.Linear(dim, dim, bias=False, device="meta") for _ in range(num_layers)]
    layers.append(torch.nn.Linear(dim, 1, bias=False, device="meta"))
    P = torch.tensor(sum(layer.weight.numel() for layer in layers))
    nbytes = torch.empty((), dtype=dtype).element_size()
    moments = 2 if optimizer_name.startswith("adam") else (
        0 if optimizer_name == "sgd" else 1)
    out = {"parameters": P * nbytes, "gradients": P * nbytes,
           "optimizer_state": moments * P * nbytes,
           "activations": torch.tensor(num_layers * batch_size * dim * nbytes)}
    out["total"] = out["parameters"] + out["gradients"] + out["optimizer_state"] + out["activations"]
    out["flops"] = 2 * P * batch_size + 4 * P * batch_size
    return out
''',
    ],
    "set_seed": [
        "def set_seed(seed):\n    torch.manual_seed(seed)\n    np.random.seed(seed)\n"
        "    random.seed(seed)\n",
        # NumPy seeded by setting a state made from the seed, torch through torch.random
        "def set_seed(seed):\n    random.seed(seed)\n"
        "    np.random.set_state(np.random.RandomState(seed).get_state())\n"
        "    torch.random.manual_seed(seed)\n    return seed\n",
        '''
import random as _random

import numpy as _np


def set_seed(seed: int) -> None:
    for seeder in (_random.seed, _np.random.seed, torch.manual_seed,
                   torch.cuda.manual_seed_all):
        seeder(seed)
''',
    ],
    "cosine_lr": [
        # float32 torch arithmetic, returned as a 0-d tensor
        '''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    s = torch.tensor(float(step))
    if step < warmup_steps:
        return max_lr * s / warmup_steps
    progress = torch.clamp((s - warmup_steps) / (total_steps - warmup_steps), max=1.0)
    return min_lr + (max_lr - min_lr) * (1 + torch.cos(torch.pi * progress)) / 2
''',
        '''
def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    if step < warmup_steps:
        return step / warmup_steps * max_lr
    t = min(step, total_steps)
    ratio = (t - warmup_steps) / max(1, total_steps - warmup_steps)
    return min_lr + (max_lr - min_lr) * (math.cos(math.pi * ratio) + 1) / 2
''',
        '''
import numpy as _np


def cosine_lr(step, max_lr, min_lr, warmup_steps, total_steps):
    warm = max_lr * step / warmup_steps if warmup_steps else max_lr
    fraction = _np.clip((step - warmup_steps) / (total_steps - warmup_steps), 0.0, 1.0)
    decay = min_lr + 0.5 * (max_lr - min_lr) * (1 + _np.cos(_np.pi * fraction))
    return float(warm if step < warmup_steps else decay)
''',
    ],
    "clip_grad_norm": [
        '''
def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    scale = torch.clamp(max_norm / (norm + 1e-6), max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(scale)
    return norm
''',
        # NumPy float64 for the norm (returned as a NumPy scalar), torch.mul(..., out=g)
        '''
def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = np.sqrt(sum(np.square(g.detach().numpy().astype(np.float64)).sum() for g in grads))
    if max_norm < total:
        for g in grads:
            torch.mul(g, max_norm / (total + 1e-6), out=g)
    return total
''',
        '''
def clip_grad_norm(parameters, max_norm):
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
    flat = torch.cat([g.reshape(-1) for g in grads])
    total = flat.norm(2).item()
    if total > max_norm:
        for g in grads:
            g *= max_norm / (total + 1e-6)
    return total
''',
    ],
    "load_checkpoint": [
        # the step stored and returned as a 0-d int64 tensor (range() accepts it)
        _SAVE_ALL.replace('"step": step,', '"step": torch.tensor(step),') + _LOAD_ALL,
        # the step returned as a NumPy int64
        _SAVE_ALL + _LOAD_ALL.replace('    return checkpoint["step"]',
                                      '    return np.int64(checkpoint["step"])'),
        # through file handles, map_location="cpu", a deep copy; the GPUs only where CUDA is
        '''
import copy as _copy


def save_checkpoint(path, model, optimizer, step):
    state = {"weights": _copy.deepcopy(model.state_dict()),
             "adamw": optimizer.state_dict(), "step": int(step),
             "generators": {"random": random.getstate(), "numpy": np.random.get_state(),
                            "torch": torch.random.get_rng_state(),
                            "cuda": (torch.cuda.get_rng_state_all()
                                     if torch.cuda.is_available() else [])}}
    with open(path, "wb") as handle:
        torch.save(state, handle)


def load_checkpoint(path, model, optimizer):
    with open(path, "rb") as handle:
        state = torch.load(handle, map_location="cpu", weights_only=False)
    model.load_state_dict(state["weights"], strict=True)
    optimizer.load_state_dict(state["adamw"])
    generators = state["generators"]
    random.setstate(generators["random"])
    np.random.set_state(generators["numpy"])
    torch.random.set_rng_state(generators["torch"])
    if torch.cuda.is_available():
        torch.cuda.set_rng_state_all(generators["cuda"])
    return state["step"]
''',
        # NumPy's state stored as a tensor, so the default weights_only load works
        '''
def save_checkpoint(path, model, optimizer, step):
    name, key, pos, has_gauss, gauss = np.random.get_state()
    torch.save({
        "model": model.state_dict(), "optimizer": optimizer.state_dict(),
        "step": torch.tensor(step),
        "python_rng": random.getstate(),
        "numpy_rng": [torch.from_numpy(key.astype(np.int64)), pos, has_gauss, gauss],
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all(),   # [] without a GPU
    }, path)


def load_checkpoint(path, model, optimizer):
    c = torch.load(path)
    model.load_state_dict(c["model"])
    optimizer.load_state_dict(c["optimizer"])
    random.setstate(c["python_rng"])
    key, pos, has_gauss, gauss = c["numpy_rng"]
    np.random.set_state(("MT19937", key.numpy().astype(np.uint32), pos, has_gauss, gauss))
    torch.set_rng_state(c["torch_rng"])
    torch.cuda.set_rng_state_all(c["cuda_rng"])
    return int(c["step"])
''',
        # a flat tuple, NumPy's new-style state dict
        '''
def save_checkpoint(path, model, optimizer, step):
    cuda = [torch.cuda.get_rng_state(i) for i in range(torch.cuda.device_count())]
    state = (model.state_dict(), optimizer.state_dict(), step, random.getstate(),
             np.random.get_state(legacy=False), torch.get_rng_state(), cuda)
    torch.save(state, path)


def load_checkpoint(path, model, optimizer):
    weights, opt, step, py, npy, th, cuda = torch.load(path, weights_only=False)
    for i, state in enumerate(cuda):
        torch.cuda.set_rng_state(state, i)
    model.load_state_dict(weights)
    optimizer.load_state_dict(opt)
    random.setstate(py)
    np.random.set_state(npy)
    torch.set_rng_state(th)
    return step
''',
    ],
}

"""Drive an optimizer class on one fixed tiny problem and report plain numbers.

Notebook 07 grades hand-written optimizers as data: a test calls
``trajectory(AdamW(probe_groups(), lr=0.1))`` and compares the parameters after each step
with what ``torch.optim``'s class of the same name gives on the same problem. Nothing here
updates a parameter itself: the probe builds the problem, calls ``zero_grad``, ``backward``
and ``step`` on the optimizer it is given, and reads the results back as lists of floats.

The problem has four float64 parameters in two parameter groups:

* group 0: ``a`` (2×3), and ``c`` (2), which is never part of the loss: its ``.grad``
  stays None, so a correct optimizer leaves it (and its state) alone;
* group 1: ``b`` (4), and ``d`` (3), which is part of the loss only on odd steps (1, 3, ...):
  on the others its ``.grad`` is None, so its own step count falls behind the others'.

Two gradients are tiny (about 1e-4), so where ``eps`` sits in a formula shows.
``probe_groups(no_grad_first=True)`` puts ``c`` and ``d`` first in their groups, so an
optimizer that stops at a parameter without a gradient (``break`` for ``continue``) misses
the ones after it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

NAMES = ("a", "b", "d", "c")  # the order of parameters in every result
_DTYPE = torch.float64
_NAME = "_probe_name"  # each probe parameter's name, kept on the tensor


def _parameters() -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(7)
    shapes = {"a": (2, 3), "b": (4,), "d": (3,), "c": (2,)}
    params = {name: torch.randn(shape, generator=generator, dtype=_DTYPE).requires_grad_()
              for name, shape in shapes.items()}
    for name, tensor in params.items():
        setattr(tensor, _NAME, name)
    return params


def _loss(p: dict[str, torch.Tensor], step: int) -> torch.Tensor:
    scale_a = torch.tensor([[1.0, 1e-4, 2.0], [0.5, 3e-4, -1.0]], dtype=_DTYPE)
    scale_b = torch.tensor([1.0, 0.1, 2.0, 5e-4], dtype=_DTYPE)
    loss = ((p["a"].sin() * scale_a).sum() + ((p["b"] - 1) ** 2 * scale_b).sum()
            + 0.1 * p["a"][1].sum() * p["b"][:3].sum())
    if step % 2 == 1:
        loss = loss + (p["d"] ** 2).sum() - p["d"].sum()
    return loss


def probe_groups(group1: dict[str, Any] | None = None, *,
                 no_grad_first: bool = False) -> list[dict[str, Any]]:
    """Fresh probe parameters as two parameter groups, to construct an optimizer on:
    group 0 (``a``, ``c``) takes the constructor's settings, group 1 (``b``, ``d``)
    overrides them with ``group1``. E.g. ``AdamW(probe_groups({"lr": 0.1}), lr=1e-3)``.
    ``no_grad_first``: ``c`` and ``d`` (sometimes without a gradient) lead their groups."""
    params = _parameters()
    groups = [[params["a"], params["c"]], [params["b"], params["d"]]]
    if no_grad_first:
        groups = [group[::-1] for group in groups]
    return [{"params": groups[0]}, {"params": groups[1], **(group1 or {})}]


def _params_of(optimizer: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    groups = optimizer.param_groups
    found = {getattr(p, _NAME, None): p for g in groups for p in g["params"]}
    if len(groups) != 2 or [len(g["params"]) for g in groups] != [2, 2] or \
            set(found) != set(NAMES):
        raise ValueError("build the optimizer on probe_groups(...): two groups of two "
                         "parameters each")
    return found


def _run(optimizer: torch.optim.Optimizer, steps: int) -> Iterator[list[float]]:
    params = _params_of(optimizer)
    for step in range(1, steps + 1):
        optimizer.zero_grad(set_to_none=True)
        _loss(params, step).backward()
        optimizer.step()
        yield [x for name in NAMES for x in params[name].detach().flatten().tolist()]


def trajectory(optimizer: torch.optim.Optimizer, steps: int = 3) -> list[list[float]]:
    """The 15 parameter values (``a``, ``b``, ``d``, ``c``, flattened) after each of
    ``steps`` steps of ``optimizer``, built on ``probe_groups(...)``."""
    return list(_run(optimizer, steps))


def stepped(optimizer: torch.optim.Optimizer, steps: int = 1) -> torch.optim.Optimizer:
    """``optimizer`` (built on ``probe_groups(...)``) after ``steps`` steps, for state checks."""
    for _ in _run(optimizer, steps):
        pass
    return optimizer


def buffers(optimizer: torch.optim.Optimizer, steps: int = 1) -> list[int]:
    """For each parameter (``a``, ``b``, ``d``, ``c``): how many tensors of its shape
    ``optimizer`` (built on ``probe_groups(...)``) keeps in its state after ``steps`` steps
    (torch's AdamW: 2 per parameter that has had a gradient, 0 before the first step)."""
    params = _params_of(optimizer)
    for _ in _run(optimizer, steps):
        pass
    counts = []
    for name in NAMES:
        state = optimizer.state.get(params[name], {})
        counts.append(sum(1 for v in state.values()
                          if isinstance(v, torch.Tensor) and v.shape == params[name].shape))
    return counts


def state_dtypes(optimizer: torch.optim.Optimizer, steps: int = 1) -> list[str]:
    """The dtypes of the tensors of a parameter's shape that ``optimizer`` (built on
    ``probe_groups(...)``, float64 parameters) keeps in its state after ``steps`` steps, each
    dtype once, sorted: ``["torch.float64"]`` for torch's optimizers, whose buffers take
    their parameter's dtype (``torch.zeros_like(p)``); ``torch.zeros(p.shape)`` makes
    float32 ones."""
    params = _params_of(optimizer)
    for _ in _run(optimizer, steps):
        pass
    return sorted({str(v.dtype) for name in NAMES
                   for v in optimizer.state.get(params[name], {}).values()
                   if isinstance(v, torch.Tensor) and v.shape == params[name].shape})


def grads_kept(optimizer: torch.optim.Optimizer, steps: int = 3) -> bool:
    """True if every ``step`` of ``optimizer`` (built on ``probe_groups(...)``) leaves each
    parameter's ``.grad`` as ``backward`` made it: the same values, and None where it was
    None. An update that works in ``p.grad`` itself (``p.grad.mul_(lr)``) changes it, and
    code that reads the gradients after the step (logging, a count of zeros) sees wrong ones."""
    params = _params_of(optimizer)
    for step in range(1, steps + 1):
        optimizer.zero_grad(set_to_none=True)
        _loss(params, step).backward()
        before = {name: None if p.grad is None else p.grad.clone()
                  for name, p in params.items()}
        optimizer.step()
        for name, p in params.items():
            if (p.grad is None) != (before[name] is None):
                return False
            if p.grad is not None and not torch.equal(p.grad, before[name]):
                return False
    return True


def python_steps(optimizer: torch.optim.Optimizer) -> torch.optim.Optimizer:
    """``optimizer`` with every 0-d ``step`` tensor in its state replaced by the Python
    number it holds, as many hand-written optimizers keep their step count; for checks of
    code that walks the state and must skip what is not a tensor."""
    for state in optimizer.state.values():
        if isinstance(state.get("step"), torch.Tensor) and state["step"].dim() == 0:
            state["step"] = state["step"].item()
    return optimizer


_TORCH_CLASSES = ("SGD", "Adagrad", "RMSprop", "Adam", "AdamW")
_TORCH_MODULES = ("sgd", "adagrad", "rmsprop", "adam", "adamw")


_ABSENT = object()

# torch's fused update kernels, callable without torch.optim (torch._fused_adamw_,
# torch.ops.aten._fused_sgd_, ...): any of these ops running during a step counts as borrowing
_FUSED_OPS = ("_fused_adam", "_fused_adamw", "_fused_sgd", "_fused_adagrad")


class _CalledTorch(Exception):
    pass


@contextmanager
def _sentinels() -> Iterator[list[str]]:
    """Replace torch.optim's steps and update functions by ones that record the call."""
    calls: list[str] = []
    saved: list[tuple[Any, str, Any]] = []

    def sentinel(label: str) -> Any:
        def called(*_args: Any, **_kwargs: Any) -> None:
            calls.append(label)
            raise _CalledTorch(label)
        return called

    targets = [(getattr(torch.optim, c), "step", f"torch.optim.{c}.step")
               for c in _TORCH_CLASSES]
    functional = importlib.import_module("torch.optim._functional")
    for m in _TORCH_MODULES:
        module = importlib.import_module(f"torch.optim.{m}")
        for name in (m, f"_single_tensor_{m}", f"_multi_tensor_{m}", f"_fused_{m}"):
            if hasattr(module, name):
                targets.append((module, name, f"torch.optim.{m}.{name}"))
        if hasattr(functional, m):
            targets.append((functional, m, f"torch.optim._functional.{m}"))
    try:
        for owner, name, label in targets:
            saved.append((owner, name, vars(owner).get(name, _ABSENT)))
            setattr(owner, name, sentinel(label))
        yield calls
    finally:
        for owner, name, original in reversed(saved):
            if original is _ABSENT:
                delattr(owner, name)       # it was inherited: inherit it again
            else:
                setattr(owner, name, original)


class _FusedOps(TorchDispatchMode):
    """Record (and stop at) any of torch's fused optimizer kernels, however it is reached:
    ``torch._fused_adamw_``, ``torch._C._VariableFunctions``, ``torch.ops.aten``..."""

    def __init__(self, calls: list[str]) -> None:
        super().__init__()
        self.calls = calls

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
        name = func.name().split("::")[-1].split(".")[0]
        if name.rstrip("_") in _FUSED_OPS:
            self.calls.append(f"torch.{name}")
            raise _CalledTorch(name)
        return func(*args, **(kwargs or {}))


def uses_torch_optim(optimizer: torch.optim.Optimizer) -> bool:
    """True if ``optimizer`` (built on ``probe_groups(...)``) is an instance of one of
    torch.optim's SGD, Adagrad, RMSprop, Adam or AdamW, or calls their ``step`` or update
    functions, or one of torch's fused update kernels (``torch._fused_adamw_``,
    ``torch._fused_adam_``, ``torch._fused_sgd_``, ``torch._fused_adagrad_``, by any path),
    while it takes one step on the probe problem."""
    torch_classes = {getattr(torch.optim, c) for c in _TORCH_CLASSES}
    if any(cls in torch_classes for cls in type(optimizer).__mro__):
        return True
    with _sentinels() as calls:
        try:
            with _FusedOps(calls):
                for _ in _run(optimizer, 1):
                    pass
        except _CalledTorch:
            pass
    return bool(calls)

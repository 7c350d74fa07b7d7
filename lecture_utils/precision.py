"""Mixed-precision training on a small scale: fp16's range, which dtype each part of a step
uses, an fp32 master copy for a low-precision model, and a short training loop per recipe.

Nothing here decides which gradients vanish in fp16 or how many bytes a recipe needs: the
notebooks measure those (or ask the student to work them out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import torch
from torch import nn

FP16_SMALLEST_SUBNORMAL = 2.0**-24  # 5.96e-8: the smallest positive fp16 number
FP16_SMALLEST_NORMAL = 2.0**-14     # 6.10e-5: below this fp16 loses significant bits
FP16_MAX = 65504.0                  # the largest finite fp16 number


def activation_dtypes(model: nn.Module, x: torch.Tensor,
                      autocast_dtype: torch.dtype | None = None) -> dict[str, str]:
    """The dtype of each direct child's output in one forward pass of ``model`` on ``x``,
    under ``torch.autocast`` of ``autocast_dtype`` on ``x``'s device (None: no autocast)."""
    seen: dict[str, str] = {}
    hooks = [child.register_forward_hook(
        lambda _m, _i, out, name=name: seen.__setitem__(name, str(out.dtype)))
        for name, child in model.named_children()]
    try:
        with torch.autocast(x.device.type, dtype=autocast_dtype or torch.bfloat16,
                            enabled=autocast_dtype is not None), torch.no_grad():
            model(x)
    finally:
        for hook in hooks:
            hook.remove()
    return seen


class MasterWeights:
    """An optimizer for a model stored in bf16 or fp16 that updates fp32 copies of its weights.

    ``step()`` turns the model's low-precision gradients into fp32 gradients of the master
    copies (divided by ``grad_scale``, the loss scale used in ``backward``), skips the update
    if any of them is inf or nan (the loss scale was too large), runs ``optimizer_class`` on
    the master copies (so its state is fp32 too) and rounds the result back into the model.
    With ``keep_fp32_grads`` the fp32 gradients are kept between steps and the model's own
    gradients are dropped instead (the "accumulate gradients in fp32" variant).
    """

    def __init__(self, model: nn.Module,
                 optimizer_class: Callable[..., torch.optim.Optimizer] = torch.optim.AdamW,
                 *, keep_fp32_grads: bool = False, **settings: object) -> None:
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.master = [p.detach().float().clone().requires_grad_() for p in self.params]
        self.optimizer = optimizer_class(self.master, **settings)
        self.keep_fp32_grads = keep_fp32_grads

    def zero_grad(self) -> None:
        for p in (*self.params, *self.master):
            p.grad = None

    @torch.no_grad()
    def step(self, grad_scale: float = 1.0) -> bool:
        """One update; False (and nothing changed) if a gradient was not finite."""
        for p, m in zip(self.params, self.master):
            m.grad = None if p.grad is None else p.grad.float() / grad_scale
        grads = [m.grad for m in self.master if m.grad is not None]
        if not all(bool(torch.isfinite(g).all()) for g in grads):
            self.zero_grad()
            return False
        self.optimizer.step()
        for p, m in zip(self.params, self.master):
            p.copy_(m)
            if self.keep_fp32_grads:
                p.grad = None
            else:
                m.grad = None
        return True


def train_losses(model: nn.Module, batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
                 *, autocast_dtype: torch.dtype | None = None,
                 scaler: torch.amp.GradScaler | None = None, loss_factor: float = 1.0,
                 lr: float = 1e-2, eps: float = 1e-15) -> tuple[list[float], list[float]]:
    """Train ``model`` (fp32 parameters) with AdamW on ``batches`` of (x, y), mean squared
    error, forward under ``torch.autocast`` of ``autocast_dtype`` (None: plain fp32).

    The loss that ``backward`` sees is multiplied by ``loss_factor`` (AdamW divides by the
    gradients' own size, so in fp32 this changes almost nothing; in fp16 small gradients
    vanish). AdamW's ``eps`` defaults to 1e-15 rather than torch's 1e-8, so that it stays far
    below gradients shrunk by a small ``loss_factor`` and the factor really changes almost
    nothing.
    ``scaler`` is an optional ``torch.amp.GradScaler``. Returns the loss of each
    step (before ``loss_factor``) and the fraction of gradient entries that were exactly 0.
    """
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, eps=eps)
    losses, zero_fractions = [], []
    for x, y in batches:
        optimizer.zero_grad()
        with torch.autocast(x.device.type, dtype=autocast_dtype or torch.bfloat16,
                            enabled=autocast_dtype is not None):
            out = model(x)
        loss = (out.float() - y).pow(2).mean()
        if scaler is None:
            (loss * loss_factor).backward()
            optimizer.step()
        else:
            scaler.scale(loss * loss_factor).backward()
            scaler.step(optimizer)
            scaler.update()
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        zeros = sum(int((g == 0).sum()) for g in grads)
        losses.append(loss.item())
        zero_fractions.append(zeros / sum(g.numel() for g in grads))
    return losses, zero_fractions


def flat_grads(model: nn.Module) -> torch.Tensor:
    """All of ``model``'s parameter gradients, flattened into one fp32 tensor."""
    return torch.cat([p.grad.detach().float().flatten() for p in model.parameters()
                      if p.grad is not None])


def bytes_held(tensors: Sequence[torch.Tensor | None]) -> int:
    """Bytes of the given tensors (None skipped), each tensor counted once."""
    seen: set[int] = set()
    total = 0
    for t in tensors:
        if t is not None and id(t) not in seen:
            seen.add(id(t))
            total += t.numel() * t.element_size()
    return total

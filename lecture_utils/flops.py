"""Counting floating-point operations: formulas, and a measured count to check them against.

One multiply plus one add is two FLOPs. The matmul formula itself is notebook 04's first
exercise, so it is not here. ``count_flops`` runs code under torch's ``FlopCounterMode``,
which counts matmuls, convolutions and attention only: elementwise work counts as zero, which
is why the notebooks' formulas ignore it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.flop_counter import FlopCounterMode

from lecture_utils.timing import Timing, benchmark


def count_flops(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Run ``fn(*args, **kwargs)`` under FlopCounterMode and return the FLOPs it counted.

    Works on any device, including ``meta`` (shapes only, nothing is computed).
    """
    with FlopCounterMode(display=False) as counter:
        fn(*args, **kwargs)
    return int(counter.get_total_flops())


def count_flops_by_op(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, int]:
    """Like ``count_flops`` but split by operator name (e.g. ``{"aten.mm": 2048}``)."""
    with FlopCounterMode(display=False) as counter:
        fn(*args, **kwargs)
    totals: dict[str, int] = {}
    for per_op in counter.get_flop_counts().values():
        for op, flops in per_op.items():
            name = str(op).removesuffix(".default")
            totals[name] = max(totals.get(name, 0), int(flops))
    return totals


def random_matmul_operands(
    m: int, k: int, n: int, *, dtype: torch.dtype = torch.float32, device: str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random (not zero) operands: some GPUs run measurably faster on zeros."""
    generator = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(m, k, generator=generator).to(device=device, dtype=dtype)
    b = torch.randn(k, n, generator=generator).to(device=device, dtype=dtype)
    return a, b


@dataclass(frozen=True)
class AchievedRate:
    """FLOPs one call really performs (counted), its timing, and the rate they give."""

    flops: int
    timing: Timing

    @property
    def flops_per_second(self) -> float:
        return self.flops / self.timing.median


def achieved_rate(fn: Callable[[], Any], **timer_options: Any) -> AchievedRate:
    """Count the FLOPs ``fn()`` performs, then time it with ``timing.benchmark``.

    The rate divides what actually ran by the median time, never a formula's count: a formula
    such as 6·N·D can include work autograd skips (an input's gradient nobody asked for).
    ``fn`` runs once more for the count, which also serves as a warm-up call.
    """
    counted = count_flops(fn)
    return AchievedRate(flops=counted, timing=benchmark(fn, **timer_options))

"""Probes for notebook 06: drive a student's module and report plain numbers.

Nothing here builds a layer or counts parameters: each probe takes the student's class (or an
instance of it) and measures what it does, so a test cell can compare plain values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn


def truncated_std_factor(cut: float = 3.0) -> float:
    """Standard deviation of a unit normal truncated to [-cut, cut] (0.98658 at cut = 3)."""
    density = math.exp(-cut * cut / 2) / math.sqrt(2 * math.pi)
    mass = math.erf(cut / math.sqrt(2))
    return math.sqrt(1 - 2 * cut * density / mass)


def weight_stats(make_layer: Callable[[int, int], nn.Module], d_in: int, d_out: int,
                 seed: int = 0) -> dict[str, float]:
    """Seed the global RNG, build ``make_layer(d_in, d_out)`` and describe its ``weight``
    in units of 1/sqrt(d_in): ``{"std", "max", "mean"}`` (``max`` is the largest |w|)."""
    torch.manual_seed(seed)
    weight = make_layer(d_in, d_out).weight.detach().double()
    scale = math.sqrt(d_in)
    return {"std": float(weight.std()) * scale, "max": float(weight.abs().max()) * scale,
            "mean": float(weight.mean()) * scale}


def forward_with_weight(layer: nn.Module, weight: Any, x: torch.Tensor) -> torch.Tensor:
    """Copy ``weight`` into ``layer.weight`` (shapes must match) and return ``layer(x)``."""
    with torch.no_grad():
        layer.weight.copy_(torch.as_tensor(weight, dtype=layer.weight.dtype))
        return layer(x).detach()


def tie(first: nn.Module, second: nn.Module, name: str = "weight") -> nn.Sequential:
    """``nn.Sequential(first, second)`` after making ``second.<name>`` the very same
    Parameter object as ``first.<name>``: one tensor, used by two modules."""
    setattr(second, name, getattr(first, name))
    return nn.Sequential(first, second)


def layer_stds(layers: list[Callable[[torch.Tensor], torch.Tensor]],
               x: torch.Tensor) -> list[float]:
    """Std of ``x`` and of the activations after each of ``layers`` in turn (no gradients)."""
    stds = [float(x.std())]
    with torch.no_grad():
        for layer in layers:
            x = layer(x)
            stds.append(float(x.std()))
    return stds

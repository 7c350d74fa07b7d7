"""Byte accounting for tensors and modules, and the CUDA allocator's view to check it against."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch

_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]


def format_bytes(n: float) -> str:
    """Binary units, three significant digits: ``format_bytes(2415919104) == '2.25 GiB'``."""
    value = float(n)
    for unit in _UNITS:
        if abs(value) < 1024 or unit == _UNITS[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.3g} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def dtype_bytes(dtype: torch.dtype) -> int:
    """Bytes of one element of ``dtype`` (works for float8 and bool too)."""
    return torch.empty((), dtype=dtype, device="meta").element_size()


def module_bytes(module: torch.nn.Module, *, include_buffers: bool = True) -> int:
    """Bytes held by a module's parameters (and buffers), a shared tensor counted once."""
    tensors = list(module.parameters())
    if include_buffers:
        tensors += list(module.buffers())
    seen: set[int] = set()
    total = 0
    for t in tensors:
        if id(t) not in seen:
            seen.add(id(t))
            total += t.numel() * t.element_size()
    return total


@dataclass
class AllocatorDelta:
    """What the CUDA caching allocator reports across a ``with`` block (bytes)."""

    allocated: int = 0
    reserved: int = 0
    peak: int = 0


@contextmanager
def cuda_allocated_delta(device: torch.device | str = "cuda") -> Iterator[AllocatorDelta]:
    """Measure ``memory_allocated`` / ``memory_reserved`` before and after a block on CUDA.

    The allocator rounds every block up (512 B minimum) and keeps freed blocks cached, so
    ``allocated`` tracks live tensors while ``reserved`` is what the process holds from the GPU.
    """
    if not torch.cuda.is_available():
        raise RuntimeError("cuda_allocated_delta needs a CUDA GPU; none is available here")
    torch.cuda.synchronize(device)
    before_alloc = torch.cuda.memory_allocated(device)
    before_res = torch.cuda.memory_reserved(device)
    torch.cuda.reset_peak_memory_stats(device)
    delta = AllocatorDelta()
    yield delta
    torch.cuda.synchronize(device)
    delta.allocated = torch.cuda.memory_allocated(device) - before_alloc
    delta.reserved = torch.cuda.memory_reserved(device) - before_res
    delta.peak = torch.cuda.max_memory_allocated(device) - before_alloc

"""Byte accounting for tensors and modules, and what the allocators report to check it against.

On a GPU, the CUDA caching allocator keeps counters (``cuda_allocated_delta``). On a CPU there
are none, so ``cpu_allocated_delta`` asks torch's profiler, which records every allocation and
free made by an operator: a view allocates nothing, a copy allocates its own bytes.
"""

from __future__ import annotations

import os
import sys
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


@dataclass
class CPUAllocations:
    """What torch's CPU allocator did inside a ``with cpu_allocated_delta()`` block (bytes)."""

    allocated: int = 0  # net: bytes allocated in the block and still alive at its end
    total: int = 0  # every allocation, including temporaries freed inside the block


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """Drop what C++ code writes to file descriptor 2 (torch 2.13's profiler logs a line at
    every start and stop, which a notebook would show as an error-coloured output)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@contextmanager
def cpu_allocated_delta() -> Iterator[CPUAllocations]:
    """Measure the bytes torch allocates on the CPU inside a block.

    Uses the profiler's memory records (the legacy, non-Kineto profiler: fast). Only
    allocations made by torch operators count; tensors on the ``meta`` device allocate
    nothing. ``allocated`` is net, so a tensor created before the block and freed inside it
    counts negative: create what you measure inside the block and keep what existed alive.
    """
    from torch.autograd import profiler

    result = CPUAllocations()
    prof = profiler.profile(profile_memory=True, use_kineto=False)
    with _stderr_silenced():
        prof.__enter__()
    try:
        yield result
    finally:
        with _stderr_silenced():
            prof.__exit__(None, None, None)
    changes = [event.cpu_memory_usage for event in prof.function_events
               if event.cpu_memory_usage and event.cpu_parent is None]
    result.allocated = sum(changes)
    result.total = sum(c for c in changes if c > 0)


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

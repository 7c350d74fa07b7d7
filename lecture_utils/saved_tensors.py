"""What autograd keeps for the backward pass, and what that costs in bytes.

During a forward pass that needs gradients, each operation stores the tensors its backward
formula will read (a matmul keeps its inputs, an activation keeps its input or its output).
They stay alive until the backward pass has used them: that is the activation memory of
training. ``record_saved()`` lists them, through the same hooks autograd offers for moving
saved tensors elsewhere (``torch.autograd.graph.saved_tensors_hooks``), and ``allocated_during``
measures what the allocator says about the same block, so the two can be put side by side.

Several saves can share one storage (a layer's output is also the next layer's saved input; a
weight is saved as a transposed view of itself), and some saved tensors exist anyway (the
parameters, the input batch). ``SavedTensors.new_bytes`` counts each storage once and leaves
out those you name, which is what the forward pass adds to memory.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from lecture_utils.i18n import tr
from lecture_utils.memory import cpu_allocated_delta, cuda_allocated_delta, format_bytes
from lecture_utils.tables import text_table


def _storage_key(t: torch.Tensor) -> tuple[str, int]:
    """Which block of memory a tensor reads from (its storage), as a hashable key."""
    return (str(t.device), t.untyped_storage().data_ptr())


@dataclass(frozen=True)
class SavedTensor:
    """One tensor autograd saved for backward: its shape, dtype, and the storage behind it."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    nbytes: int  # bytes of the elements this saved tensor shows
    storage: tuple[str, int]  # (device, address) of its storage: equal keys share memory
    storage_nbytes: int  # bytes of that whole storage
    is_view: bool  # saved as a view of another tensor (e.g. a weight's transpose)


@dataclass
class SavedTensors:
    """What ``record_saved`` saw, in the order autograd saved it."""

    items: list[SavedTensor] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[SavedTensor]:
        return iter(self.items)

    @property
    def total_bytes(self) -> int:
        """Bytes of every save, as if each were a separate copy (shared storage counted again)."""
        return sum(s.nbytes for s in self.items)

    def new_bytes(self, exclude: Iterable[torch.Tensor] = ()) -> int:
        """Bytes of the distinct storages saved, leaving out the storages of ``exclude``
        (tensors that exist anyway: parameters, the input batch)."""
        skip = {_storage_key(t) for t in exclude}
        distinct = {s.storage: s.storage_nbytes for s in self.items if s.storage not in skip}
        return sum(distinct.values())

    def names(self, named: Mapping[str, torch.Tensor]) -> list[str]:
        """Each save labelled with the name in ``named`` whose storage it shares, else "?"."""
        by_storage = {_storage_key(t): name for name, t in named.items()}
        return [by_storage.get(s.storage, "?") for s in self.items]

    def table(self, named: Mapping[str, torch.Tensor] | None = None) -> str:
        """One line per save: name (when ``named`` is given), shape, dtype, bytes, view or not.
        The header and the "view" note are in the notebook's language; columns line up by
        display width (a CJK character takes two)."""
        labels = self.names(named) if named is not None else ["" for _ in self.items]
        head = [tr("tensor"), tr("shape"), tr("dtype"), tr("bytes"), tr("note")]
        rows = [[label, str(s.shape), str(s.dtype), f"{s.nbytes:,}", tr("view") if s.is_view
                 else ""] for label, s in zip(labels, self.items)]
        return text_table([head, *rows], "lllrl", rule=True, min_widths=(0, 14, 15, 11))

    def __str__(self) -> str:
        return (f"{len(self.items)} saved tensors, {format_bytes(self.total_bytes)} "
                f"if each were separate")


@contextmanager
def record_saved() -> Iterator[SavedTensors]:
    """Record every tensor autograd saves for backward inside the block.

    The tensors themselves are saved exactly as without the hook (the record keeps only their
    sizes and storage addresses, never a reference), so memory measured around the block is
    unchanged. Inside ``torch.utils.checkpoint`` regions, checkpointing's own hooks take over
    and this record sees only what checkpointing keeps. ``torch.func`` transforms refuse to
    run under saved-tensor hooks.
    """
    record = SavedTensors()

    def pack(t: torch.Tensor) -> torch.Tensor:
        record.items.append(SavedTensor(
            shape=tuple(t.shape), dtype=t.dtype, nbytes=t.numel() * t.element_size(),
            storage=_storage_key(t), storage_nbytes=t.untyped_storage().nbytes(),
            is_view=t._base is not None))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield record


@dataclass
class Allocated:
    """Net bytes the allocator handed out inside an ``allocated_during`` block (still alive
    at its end), and, on CUDA, the peak above the starting point."""

    allocated: int = 0
    peak: int | None = None  # None on the CPU, which keeps no peak counter


@contextmanager
def allocated_during(device: torch.device | str) -> Iterator[Allocated]:
    """Measure the memory a block leaves allocated on ``device``: the CUDA caching allocator's
    counters on a GPU, torch's profiler records on the CPU (``lecture_utils.memory``).

    On the CPU, create inside the block what you measure and do not free, inside it, tensors
    made before it (the profiler cannot size a block it did not see allocated); garbage
    collection waits until the block ends."""
    device = torch.device(device)
    result = Allocated()
    if device.type == "cuda":
        with cuda_allocated_delta(device) as delta:
            yield result
        result.allocated, result.peak = delta.allocated, delta.peak
    elif device.type == "cpu":
        # No garbage collection inside: it could free tensors made before the block.
        collecting = gc.isenabled()
        gc.disable()
        try:
            with cpu_allocated_delta() as delta:
                yield result
        finally:
            if collecting:
                gc.enable()
        result.allocated = delta.allocated
    else:
        raise ValueError(f"allocated_during measures cpu and cuda memory, not {device.type}")

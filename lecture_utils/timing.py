"""Benchmark timer for CPU, CUDA and MPS work.

``benchmark(fn)`` follows the recipe of ``torch.utils.benchmark.Timer.blocked_autorange``:
warm up, pick how many calls go into one timed block so that clock reads and device
synchronisation are negligible, then time many blocks and report robust statistics
(median and interquartile range) of the per-call time.

GPU work is asynchronous: a kernel launch returns long before the kernel finishes, so a
clock read without a synchronisation measures only the launch. Every timed block here
therefore ends with a synchronisation on CUDA and MPS.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from lecture_utils.device import get_device, synchronize
from lecture_utils.i18n import tr, tr_format
from lecture_utils.tables import text_table

__all__ = ["Timing", "benchmark", "compare", "format_seconds"]

# Doubling stops here even if a block is still shorter than ``block_time`` (a no-op
# lambda needs ~2**17 calls for 10 ms); this only guards against a fn that does nothing.
_MAX_CALLS_PER_BLOCK = 2**24

_SUPPORTED_DEVICES = ("cpu", "cuda", "mps")


@dataclass(frozen=True)
class Timing:
    """Result of :func:`benchmark`: per-call times of each measured block.

    Attributes:
        label: What was timed (free text, shown by ``str`` and :func:`compare`, translated
            by ``lecture_utils.i18n.tr`` where a catalog knows it).
        times: Seconds per call, one entry per measured block (block time divided by
            ``calls_per_block``).
        calls_per_block: How many calls of the function each block ran.
        device: Device type the work ran on: "cpu", "cuda" or "mps".
    """

    label: str
    times: tuple[float, ...]
    calls_per_block: int
    device: str

    def __post_init__(self) -> None:
        if not self.times:
            raise ValueError("Timing needs at least one measured block")
        if self.calls_per_block < 1:
            raise ValueError(f"calls_per_block must be >= 1, got {self.calls_per_block}")
        # Accept any sequence (e.g. a list) but store an immutable tuple of floats, so
        # the frozen dataclass stays hashable and cannot be changed behind its back.
        object.__setattr__(self, "times", tuple(float(t) for t in self.times))

    @property
    def median(self) -> float:
        """Median per-call time in seconds (robust to the odd slow block)."""
        return statistics.median(self.times)

    @property
    def iqr(self) -> float:
        """Interquartile range of the per-call times in seconds (0.0 with < 2 blocks)."""
        if len(self.times) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.times, n=4)
        return q3 - q1

    @property
    def mean(self) -> float:
        """Mean per-call time in seconds."""
        return statistics.fmean(self.times)

    def __str__(self) -> str:
        """``label: median X, IQR Y (B blocks × C calls)``, in the notebook's language."""
        blocks, calls = len(self.times), self.calls_per_block
        # "median X, IQR Y", not "X ± Y": the IQR is the spread of the middle half of the
        # blocks, and "±" would read as a half-width around the median.
        summary = tr_format(
            "median {median}, IQR {iqr} ({blocks} × {calls})",
            median=format_seconds(self.median), iqr=format_seconds(self.iqr),
            blocks=(tr_format("{n} block", n=blocks) if blocks == 1
                    else tr_format("{n} blocks", n=blocks)),
            calls=(tr_format("{n} call", n=calls) if calls == 1
                   else tr_format("{n} calls", n=calls)))
        if not self.label:
            return summary
        return tr_format("{label}: {summary}", label=tr(self.label), summary=summary)


# Largest unit first; the first unit in which the value rounds to >= 1 is used.
_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def format_seconds(seconds: float) -> str:
    """Format a duration with 3 significant digits in the best-fitting unit.

    >>> format_seconds(123e-9), format_seconds(45.6e-6), format_seconds(2.5)
    ('123 ns', '45.6 µs', '2.50 s')
    """
    if not math.isfinite(seconds):
        return f"{seconds} s"
    sign = "-" if seconds < 0 else ""
    magnitude = abs(seconds)
    if magnitude == 0:
        return "0 s"
    for unit, scale in _UNITS:
        # Round before choosing the unit so that 999.96 µs prints as "1.00 ms", not
        # "1000 µs".
        value = float(f"{magnitude / scale:.3g}")
        if value >= 1 or unit == "ns":
            break
    decimals = max(0, 2 - math.floor(math.log10(value)))
    return f"{sign}{value:.{decimals}f} {unit}"


def _resolve_device(device: torch.device | str | None) -> torch.device:
    # None is the notebooks' device ($LECTURE_DEVICE, else CUDA > MPS > CPU), so the timer
    # synchronises with whatever the work was put on, MPS included.
    resolved = get_device() if device is None else torch.device(device)
    if resolved.type not in _SUPPORTED_DEVICES:
        raise ValueError(f"benchmark supports devices {_SUPPORTED_DEVICES}, got {str(resolved)!r}")
    return resolved


def _block_timer(fn: Callable[[], object], device: torch.device) -> Callable[[int], float]:
    """Return ``run(n)``: call ``fn`` n times and return the block's elapsed seconds."""
    if device.type == "cuda":

        def run_cuda(calls: int) -> float:
            # Events are recorded on the device's current stream, so they measure GPU time
            # of the block rather than how long the CPU took to enqueue it.
            with torch.cuda.device(device):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(calls):
                    fn()
                end.record()
            # elapsed_time is only valid once the end event has completed.
            torch.cuda.synchronize(device)
            return start.elapsed_time(end) / 1e3  # milliseconds -> seconds

        return run_cuda

    def run_host(calls: int) -> float:
        # The previous block (or the warm-up) ended with a synchronisation, so the
        # device is idle when the clock starts; one sync at the end covers the block.
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        synchronize(device)
        return time.perf_counter() - start

    return run_host


def benchmark(
    fn: Callable[[], object],
    *,
    label: str = "",
    device: torch.device | str | None = None,
    warmup: int = 3,
    min_run_time: float = 0.2,
    min_blocks: int = 5,
    max_blocks: int = 100,
    block_time: float = 0.01,
    num_threads: int | None = None,
) -> Timing:
    """Time ``fn()`` on ``device`` and return per-call statistics.

    Args:
        fn: Zero-argument callable doing the work (e.g. ``lambda: a @ b``).
        label: Name shown when the result is printed or compared.
        device: Where ``fn`` runs; decides how to synchronise and which clock to use.
            ``None`` means the notebooks' device, ``lecture_utils.device.get_device()``:
            $LECTURE_DEVICE if set, else CUDA, else MPS, else CPU.
        warmup: Untimed calls first, to pay one-off costs (allocation, kernel selection,
            lazy initialisation, caches).
        min_run_time: Keep measuring blocks until this many seconds were measured.
        min_blocks: ... and at least this many blocks were taken.
        max_blocks: Never take more blocks than this.
        block_time: Calls per block double from 1 until one block lasts this long, so
            clock and synchronisation overhead (microseconds) is negligible even for
            ~10 µs calls.
        num_threads: CPU threads torch may use while timing, restored afterwards; ``None``
            leaves the setting alone. One thread gives steady figures on a busy machine
            (``torch.utils.benchmark`` times with one thread by default).

    On CUDA a block is timed by CUDA events on the current stream (GPU time), so work that
    ``fn`` queues on other streams is waited for but not counted. On CPU and MPS it is
    timed by ``time.perf_counter`` (MPS synchronises before the clock stops).

    Returns:
        A :class:`Timing` with one per-call time per measured block.
    """
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}")
    if not 1 <= min_blocks <= max_blocks:
        raise ValueError(f"need 1 <= min_blocks <= max_blocks, got {min_blocks}, {max_blocks}")
    torch_device = _resolve_device(device)
    previous = torch.get_num_threads()
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    try:
        return _measure(fn, torch_device, label, warmup, min_run_time, min_blocks, max_blocks,
                        block_time)
    finally:
        torch.set_num_threads(previous)


def _measure(fn: Callable[[], object], torch_device: torch.device, label: str, warmup: int,
             min_run_time: float, min_blocks: int, max_blocks: int,
             block_time: float) -> Timing:
    run = _block_timer(fn, torch_device)

    for _ in range(warmup):
        fn()
    synchronize(torch_device)

    # Calibrate the block size; these blocks double as extra warm-up and are not kept.
    calls = 1
    while run(calls) < block_time and calls < _MAX_CALLS_PER_BLOCK:
        calls *= 2

    # Stop on measured time, as blocked_autorange does, so CUDA (GPU time) and host
    # devices follow the same rule.
    times: list[float] = []
    total = 0.0
    while len(times) < max_blocks and (total < min_run_time or len(times) < min_blocks):
        elapsed = run(calls)
        total += elapsed
        times.append(elapsed / calls)

    return Timing(label=label, times=tuple(times), calls_per_block=calls, device=torch_device.type)


def compare(timings: Sequence[Timing], baseline: Timing | None = None) -> str:
    """An aligned text table of label, median, IQR and ratio to ``baseline``.

    ``baseline`` defaults to the first timing; a ratio above 1 means slower than it.
    """
    if not timings:
        raise ValueError("compare needs at least one Timing")
    reference = timings[0] if baseline is None else baseline
    header = (tr("label"), tr("median"), tr("IQR"), tr("ratio"))
    rows = [
        (
            tr(timing.label) if timing.label else f"#{index}",
            format_seconds(timing.median),
            format_seconds(timing.iqr),
            f"{timing.median / reference.median:.2f}" if reference.median > 0 else tr("n/a"),
        )
        for index, timing in enumerate(timings)
    ]
    # Labels read best left-aligned, numbers right-aligned so units line up.
    return text_table([header, *rows], "lrrr")

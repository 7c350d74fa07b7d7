"""Matmul sweeps, measured ceilings and the roofline plot (notebook 04).

``time_square_matmuls`` times n×n @ n×n matmuls of one dtype over several sizes with the shared
timer and records, for each, what really happened: the FLOPs ``FlopCounterMode`` counted, the
bytes of the three tensors involved (read from the tensors themselves), and the median time.
Nothing here computes a matmul's FLOPs, bytes or intensity from its dimensions: those are the
notebook's exercises, and their answers are checked against these measurements.

A *ceiling* is the best rate a machine reaches: the datasheet peak on a known GPU, else the
best rate measured (``measured_ceiling``). With a memory bandwidth (the datasheet's, or one
measured by ``copy_bandwidth``) it gives the roofline: a kernel doing ``I`` FLOPs per byte it
moves cannot run faster than ``min(ceiling, I × bandwidth)`` (``attainable``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from lecture_utils.flops import count_flops
from lecture_utils.timing import Timing, benchmark

__all__ = [
    "MatmulPoint", "attainable", "by_label", "copy_bandwidth", "dtype_label",
    "flops_vs_size_plot", "measured_ceiling", "ridge_point", "roofline_plot",
    "time_square_matmuls",
]

_LABELS = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16",
           torch.float64: "fp64"}
_MARKERS = ("o", "s", "^", "D", "v", "P")
_LINESTYLES = ("-", "--", "-.", ":")


def dtype_label(dtype: torch.dtype, *, tf32: bool = False) -> str:
    """Short name of a matmul precision: "fp32", "bf16", "fp16", or "tf32" (fp32 inputs with
    TF32 tensor-core matmuls enabled)."""
    if tf32:
        if dtype != torch.float32:
            raise ValueError(f"TF32 applies to float32 matmuls only, not {dtype}")
        return "tf32"
    return _LABELS.get(dtype, str(dtype).removeprefix("torch."))


@dataclass(frozen=True)
class MatmulPoint:
    """One timed n×n @ n×n matmul: what was counted, what was moved, how long it took."""

    label: str          # precision, e.g. "bf16" (see dtype_label)
    size: int           # n
    flops: int          # counted by FlopCounterMode for one call
    bytes_moved: int    # nbytes of A, B and the result C, as allocated
    timing: Timing      # the shared timer's result for one call

    @property
    def seconds(self) -> float:
        """Median seconds per call."""
        return self.timing.median

    @property
    def flops_per_second(self) -> float:
        """Achieved rate: counted FLOPs over the median time."""
        return self.flops / self.timing.median

    @property
    def intensity(self) -> float:
        """Measured arithmetic intensity: counted FLOPs per byte of the three tensors."""
        return self.flops / self.bytes_moved


def time_square_matmuls(
    sizes: Sequence[int],
    *,
    dtype: torch.dtype,
    device: torch.device | str,
    tf32: bool = False,
    num_threads: int | None = None,
    warmup: int = 1,
    min_run_time: float = 0.05,
    min_blocks: int = 3,
    seed: int = 0,
) -> list[MatmulPoint]:
    """Time ``a @ b`` for square matrices of each size in ``sizes``, in ``dtype`` on ``device``.

    Operands are random, never zeros (some GPUs run measurably faster on zeros). The result
    goes into a preallocated ``out=`` tensor, so the timing holds the matmul and not an
    allocation. ``tf32=True`` enables TF32 for CUDA fp32 matmuls during the sweep and restores
    the setting afterwards; it is an error on other devices, which have no TF32.
    """
    device = torch.device(device)
    if tf32 and device.type != "cuda":
        raise ValueError("TF32 matmuls exist on CUDA GPUs only")
    label = dtype_label(dtype, tf32=tf32)
    previous = torch.backends.cuda.matmul.allow_tf32
    generator = torch.Generator(device="cpu").manual_seed(seed)
    points = []
    try:
        if device.type == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = tf32
        for n in sizes:
            a = torch.randn(n, n, generator=generator).to(device=device, dtype=dtype)
            b = torch.randn(n, n, generator=generator).to(device=device, dtype=dtype)
            c = torch.empty(n, n, device=device, dtype=dtype)

            def run(a: torch.Tensor = a, b: torch.Tensor = b, c: torch.Tensor = c) -> None:
                torch.matmul(a, b, out=c)

            flops = count_flops(run)
            timing = benchmark(run, label=f"{label} {n}×{n}", device=device,
                               num_threads=num_threads, warmup=warmup,
                               min_run_time=min_run_time, min_blocks=min_blocks)
            points.append(MatmulPoint(label=label, size=n, flops=flops,
                                      bytes_moved=a.nbytes + b.nbytes + c.nbytes, timing=timing))
            del a, b, c
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous
    return points


def by_label(points: Iterable[MatmulPoint]) -> dict[str, list[MatmulPoint]]:
    """Points grouped by precision label, in first-seen order, each group sorted by size."""
    groups: dict[str, list[MatmulPoint]] = {}
    for point in points:
        groups.setdefault(point.label, []).append(point)
    return {label: sorted(group, key=lambda p: p.size) for label, group in groups.items()}


def measured_ceiling(points: Iterable[MatmulPoint], label: str | None = None) -> float:
    """The best achieved FLOP/s among ``points`` (of precision ``label`` if given): a lower
    bound on what the machine can do, for when there is no datasheet peak to compare with."""
    rates = [p.flops_per_second for p in points if label is None or p.label == label]
    if not rates:
        raise ValueError(f"no timed points{f' labelled {label!r}' if label else ''}")
    return max(rates)


def copy_bandwidth(
    *,
    device: torch.device | str,
    nbytes: int = 64 * 2**20,
    num_threads: int | None = None,
    min_run_time: float = 0.1,
) -> float:
    """Measured memory bandwidth in bytes/s: ``dst.copy_(src)`` of ``nbytes`` reads ``nbytes``
    and writes ``nbytes``, so the rate is ``2 · nbytes / median time``.

    Pick ``nbytes`` well above the CPU caches (the default 64 MiB is), or the figure is the
    cache's bandwidth rather than the memory's.
    """
    device = torch.device(device)
    src = torch.ones(nbytes // 4, device=device)
    dst = torch.empty_like(src)
    timing = benchmark(lambda: dst.copy_(src), device=device, num_threads=num_threads,
                       warmup=1, min_run_time=min_run_time, min_blocks=3)
    return 2 * src.nbytes / timing.median


def ridge_point(peak_flops_per_sec: float, bandwidth: float) -> float:
    """The machine balance: the intensity (FLOPs per byte) above which a kernel can reach the
    compute ceiling, ``peak / bandwidth``. Below it, memory traffic is the limit."""
    return peak_flops_per_sec / bandwidth


def attainable(intensity: float, peak_flops_per_sec: float, bandwidth: float) -> float:
    """The roofline: the best FLOP/s a kernel of this intensity can reach on this machine."""
    return min(peak_flops_per_sec, intensity * bandwidth)


def _rate_unit(largest: float) -> tuple[float, str]:
    return (1e12, "TFLOP/s") if largest >= 1e12 else (1e9, "GFLOP/s")


def flops_vs_size_plot(
    points: Iterable[MatmulPoint],
    *,
    title: str,
    ceilings: Mapping[str, float] | None = None,
    ceiling_kind: str = "datasheet peak",
    ax: Any = None,
) -> Any:
    """Achieved FLOP/s against n for each precision (markers and line styles, not only colour),
    with optional horizontal ceilings per precision label. Returns the axes."""
    from lecture_utils.plotting import COLORS, subplots

    groups = by_label(points)
    ceilings = dict(ceilings or {})
    if ax is None:
        _, ax = subplots()
    largest = max([p.flops_per_second for g in groups.values() for p in g]
                  + list(ceilings.values()))
    scale, unit = _rate_unit(largest)
    for i, (label, group) in enumerate(groups.items()):
        colour = COLORS[i % len(COLORS)]
        ax.plot([p.size for p in group], [p.flops_per_second / scale for p in group],
                marker=_MARKERS[i % len(_MARKERS)], ls=_LINESTYLES[i % len(_LINESTYLES)],
                color=colour, label=label)
        if label in ceilings:
            ax.axhline(ceilings[label] / scale, color=colour, lw=1, ls=":",
                       label=f"{label} {ceiling_kind}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    sizes = sorted({p.size for g in groups.values() for p in g})
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.set_xlabel("n (matrices n×n @ n×n)")
    ax.set_ylabel(f"achieved {unit}")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return ax


def roofline_plot(
    points: Iterable[MatmulPoint],
    *,
    ceilings: Mapping[str, float],
    bandwidth: float,
    bandwidth_label: str,
    title: str,
    ceiling_kind: str = "datasheet peak",
    ax: Any = None,
) -> Any:
    """Measured points (intensity, achieved FLOP/s) under their roofline.

    ``ceilings`` maps a precision label to its compute ceiling (FLOP/s); ``bandwidth`` (bytes/s)
    draws the memory roof ``I × bandwidth``. Say where each figure comes from in
    ``bandwidth_label`` and ``ceiling_kind`` ("datasheet", "measured"). Returns the axes.
    """
    from lecture_utils.plotting import COLORS, subplots

    groups = by_label(points)
    if ax is None:  # wider than one panel: the legend goes to the right of the axes
        _, ax = subplots(figsize=(10.0, 3.8))
    every = [p for g in groups.values() for p in g]
    largest = max([p.flops_per_second for p in every] + list(ceilings.values()))
    scale, unit = _rate_unit(largest)
    marks = [p.intensity for p in every] + [ridge_point(c, bandwidth) for c in ceilings.values()]
    low, high = min(marks), max(marks)
    xs = [low / 2, high * 2]
    top = max(ceilings.values()) if ceilings else largest
    ax.plot([xs[0], top / bandwidth], [xs[0] * bandwidth / scale, top / scale], color="black",
            lw=1.5, ls="-", marker="",
            label=f"memory roof: {bandwidth_label} ({bandwidth / 1e9:.3g} GB/s)")
    colour_of = {label: COLORS[i % len(COLORS)] for i, label in enumerate(groups)}
    for j, (label, ceiling) in enumerate(ceilings.items()):
        colour = colour_of.get(label, "gray")
        ridge = ridge_point(ceiling, bandwidth)
        ax.plot([ridge, xs[1]], [ceiling / scale] * 2, color=colour, lw=1.5, marker="",
                ls=_LINESTYLES[(j + 1) % len(_LINESTYLES)],
                label=f"{label} {ceiling_kind} ({ceiling / scale:.3g} {unit}); ridge at "
                      f"{ridge:.3g} FLOPs/byte")
    for i, (label, group) in enumerate(groups.items()):
        ax.scatter([p.intensity for p in group], [p.flops_per_second / scale for p in group],
                   marker=_MARKERS[i % len(_MARKERS)], color=colour_of[label], zorder=3,
                   label=f"{label}, measured (n = {group[0].size} … {group[-1].size})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOPs per byte of A, B and C)")
    ax.set_ylabel(f"achieved {unit}")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax

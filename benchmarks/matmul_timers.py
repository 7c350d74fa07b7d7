"""Our timer next to torch.utils.benchmark and triton's do_bench, on the same matmuls.

For each precision (bf16, fp16, tf32, fp32) and size, one square matmul ``a @ b`` is timed by
three timers: ``lecture_utils.timing.benchmark`` (ours), ``torch.utils.benchmark.Timer``
(``blocked_autorange``) and ``triton.testing.do_bench`` (when triton and CUDA are there). Each
row prints the achieved TFLOP/s (2·n³ over our median), MFU against the datasheet peak
(undefined on a CPU or an unknown GPU), and our time as a ratio to each other timer's, the
baseline measured in the same run. Results go to a JSON file and a Markdown table.

    .venv/bin/python benchmarks/matmul_timers.py --out benchmarks/results/DIR
    .venv/bin/python benchmarks/matmul_timers.py --dry-run --out /tmp/x   # CPU, tiny sizes
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from pathlib import Path

import torch
import torch.utils.benchmark as torch_benchmark

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lecture_utils.device import device_name, get_device  # noqa: E402
from lecture_utils.hardware import device_peak_flops, fraction_of_peak  # noqa: E402
from lecture_utils.tables import text_table  # noqa: E402
from lecture_utils.timing import benchmark  # noqa: E402

# (label, dtype, allow tf32): tf32 is fp32 storage with TF32 tensor-core matmuls.
PRECISIONS = (("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
              ("tf32", torch.float32, True), ("fp32", torch.float32, False))
GPU_SIZES = (1024, 4096, 8192)  # 8192³ is the lecture's large matmul
DRY_RUN_SIZES = (64,)


def time_with_torch_timer(a: torch.Tensor, b: torch.Tensor, min_run_time: float) -> float:
    timer = torch_benchmark.Timer(stmt="a @ b", globals={"a": a, "b": b})
    return timer.blocked_autorange(min_run_time=min_run_time).median


def time_with_do_bench(a: torch.Tensor, b: torch.Tensor) -> float | None:
    if a.device.type != "cuda":
        return None
    try:
        from triton.testing import do_bench
    except ImportError:
        return None
    return do_bench(lambda: a @ b, warmup=100, rep=500, return_mode="median") / 1e3


def measure(size: int, label: str, dtype: torch.dtype, tf32: bool, device: torch.device,
            min_run_time: float) -> dict[str, object]:
    torch.backends.cuda.matmul.allow_tf32 = tf32
    generator = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(size, size, device=device, dtype=dtype, generator=generator)
    b = torch.randn(size, size, device=device, dtype=dtype, generator=generator)
    # one CPU thread, as torch.utils.benchmark uses by default, so the two time the same thing
    threads = 1 if device.type == "cpu" else None
    ours = benchmark(lambda: a @ b, device=device, min_run_time=min_run_time,
                     num_threads=threads).median
    torch_timer = time_with_torch_timer(a, b, min_run_time)
    do_bench = time_with_do_bench(a, b)
    flops = 2 * size**3
    peak = device_peak_flops(device, dtype)  # fp32 reads as tf32 while allow_tf32 is on
    return {
        "precision": label, "size": size, "ours_s": ours, "torch_timer_s": torch_timer,
        "do_bench_s": do_bench, "tflops": flops / ours / 1e12,
        "mfu": fraction_of_peak(flops / ours, peak),
        "ours_over_torch_timer": ours / torch_timer,
        "ours_over_do_bench": None if do_bench is None else ours / do_bench,
    }


def markdown(rows: list[dict[str, object]], header: dict[str, str]) -> str:
    def show(value: object, spec: str, unit: str = "") -> str:
        return "n/a" if value is None else format(value, spec) + unit

    lines = [f"# Matmul timers on {header['device']} ({header['date']})", "",
             f"torch {header['torch']}, Python {header['python']}. Times are medians per call; "
             "ratios are our timer's median over the other timer's, measured in the same run.",
             "", "| precision | n | ours | torch.utils.benchmark | do_bench | TFLOP/s | MFU | "
             "ours / torch | ours / do_bench |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['precision']} | {r['size']} | {show(r['ours_s'], '.3e', ' s')} | "
            f"{show(r['torch_timer_s'], '.3e', ' s')} | {show(r['do_bench_s'], '.3e', ' s')} | "
            f"{show(r['tflops'], '.1f')} | {show(r['mfu'], '.2f')} | "
            f"{show(r['ours_over_torch_timer'], '.3f')} | {show(r['ours_over_do_bench'], '.3f')} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the result files")
    parser.add_argument("--sizes", type=int, nargs="+", help="square sizes (default: by device)")
    parser.add_argument("--dry-run", action="store_true",
                        help="CPU, tiny sizes, short runs: checks the script, not the machine")
    parser.add_argument("--min-run-time", type=float, default=1.0, help="seconds per timer")
    args = parser.parse_args()

    device = torch.device("cpu") if args.dry_run else get_device()
    sizes = args.sizes or (DRY_RUN_SIZES if args.dry_run or device.type != "cuda" else GPU_SIZES)
    min_run_time = 0.05 if args.dry_run else args.min_run_time
    precisions = [p for p in PRECISIONS if device.type == "cuda" or p[0] != "tf32"]

    rows = [measure(n, label, dtype, tf32, device, min_run_time)
            for label, dtype, tf32 in precisions for n in sizes]
    header = {"device": device_name(device), "date": datetime.date.today().isoformat(),
              "torch": torch.__version__, "python": platform.python_version()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "matmul_timers.json").write_text(json.dumps({**header, "rows": rows}, indent=1))
    (args.out / "matmul_timers.md").write_text(markdown(rows, header))
    table = [["precision", "n", "TFLOP/s", "MFU", "ours/torch", "ours/do_bench"]]
    table += [[str(r["precision"]), str(r["size"]), f"{r['tflops']:.2f}",
               "undefined" if r["mfu"] is None else f"{r['mfu']:.2f}",
               f"{r['ours_over_torch_timer']:.3f}",
               "n/a" if r["ours_over_do_bench"] is None else f"{r['ours_over_do_bench']:.3f}"]
              for r in rows]
    print(text_table(table, "lrrrrr", rule=True))


if __name__ == "__main__":
    main()

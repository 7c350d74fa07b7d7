"""The GPU replay script (benchmarks/gpu_replay.sh) in its CPU dry run, and its refusal to
pretend: without a GPU and without --dry-run it stops and says why."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "gpu_replay.sh"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600, env={"PATH": "/usr/bin:/bin",
                                                       "PYTHON": sys.executable,
                                                       "HOME": str(Path.home())})


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the refusal on a machine with no GPU")
def test_without_a_gpu_it_refuses_unless_dry_run(tmp_path: Path) -> None:
    done = run_script(str(tmp_path / "out"))
    assert done.returncode == 2
    assert "no CUDA GPU" in done.stderr and "--dry-run" in done.stderr
    assert not (tmp_path / "out").exists()


def test_dry_run_replays_a_notebook_and_times_matmuls_three_ways(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_script("--dry-run", str(out))
    assert done.returncode == 0, done.stdout + done.stderr

    replay = json.loads((out / "replay.json").read_text())
    assert [row["notebook"] for row in replay] == ["00_napkin_math"]
    assert replay[0]["error"] is None
    if not torch.cuda.is_available():
        assert replay[0]["gpu_cells_ran"] == 0 and replay[0]["gpu_cells_skipped"] >= 1
    assert (out / "00_napkin_math.ipynb").is_file()

    timers = json.loads((out / "matmul_timers.json").read_text())
    assert {row["precision"] for row in timers["rows"]} >= {"bf16", "fp16", "fp32"}
    for row in timers["rows"]:
        assert row["ours_s"] > 0 and row["torch_timer_s"] > 0
        # the same matmul timed two ways: a broken timer (calls miscounted, a block's time
        # taken as a call's) is off by orders of magnitude, while a busy 2-core machine can
        # move the ratio of two 20-µs timings several-fold
        assert 0.1 < row["ours_over_torch_timer"] < 10, row
        assert row["mfu"] is None  # a CPU has no datasheet peak
    table = (out / "matmul_timers.md").read_text()
    assert "| fp32 | 64 |" in table and "torch" in table

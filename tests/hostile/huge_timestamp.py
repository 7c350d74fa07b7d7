"""timestamp.txt of 20 MiB (it was read whole, and copied into the feedback)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = 'huge-timestamp'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    path = submit(submitted, STUDENT, solution())
    (path.parent / "timestamp.txt").write_text("2026-01-01 00:00:00 " * 2**20)

"""timestamp.txt that is not a time (nbgrader's parse_utc raised and stopped the batch)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = 'garbage-timestamp'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    path = submit(submitted, STUDENT, solution())
    (path.parent / "timestamp.txt").write_bytes(b"not a time \xff\x00")

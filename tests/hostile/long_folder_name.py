"""A 250-character student folder name (its record's temporary file passed NAME_MAX, and
OSError stopped the batch)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = "L" * 250
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, solution())

"""tensor_bytes returns an integer of 100,000 digits (str() of it raises ValueError)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, submit, with_answer

STUDENT = 'value-long-int'
EXPECT = Expect("graded", FULL - 1)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, with_answer("def tensor_bytes(x):\n    return 10**100_000\n"))

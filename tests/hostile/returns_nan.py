"""tensor_bytes returns NaN, which equals nothing."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, submit, with_answer

STUDENT = 'value-nan'
EXPECT = Expect("graded", FULL - 1)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, with_answer("def tensor_bytes(x):\n    return float('nan')\n"))

"""tensor_bytes returns 1e308 * 10, an infinity."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, submit, with_answer

STUDENT = 'value-inf'
EXPECT = Expect("graded", FULL - 1)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, with_answer("def tensor_bytes(x):\n    return 1e308 * 10\n"))

"""tensor_bytes returns a 50 MB string."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, submit, with_answer

STUDENT = 'value-huge-string'
EXPECT = Expect("graded", FULL - 1)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, with_answer("def tensor_bytes(x):\n    return 'x' * 50_000_000\n"))

"""tensor_bytes returns a list nested 10,000 deep."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, submit, with_answer

STUDENT = 'value-deep-list'
EXPECT = Expect("graded", FULL - 1)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, with_answer(
        "def tensor_bytes(x):\n    v = []\n    for _ in range(10_000):\n"
        "        v = [v]\n    return v\n"))

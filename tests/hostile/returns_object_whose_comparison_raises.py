"""tensor_bytes returns an int subclass whose == raises and which cannot be hashed."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, submit, with_answer

STUDENT = 'value-raising-eq'
EXPECT = Expect("graded", FULL - 1)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, with_answer(
        "class Evil(int):\n    def __eq__(self, other):\n        raise RuntimeError('no')\n"
        "    __hash__ = None\n"
        "def tensor_bytes(x):\n    return Evil(-1)\n"))

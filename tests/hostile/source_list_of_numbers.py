"""A cell whose source is a list holding a number among its lines."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, cell, solution, submit

STUDENT = 'source-list-numbers'
EXPECT = Expect(INVALID, 0, ("source is not text",))


def build(submitted: Path) -> None:
    nb = solution()
    cell(nb, "tensor_bytes")["source"] = ["def f():\n", 7]
    submit(submitted, STUDENT, nb)

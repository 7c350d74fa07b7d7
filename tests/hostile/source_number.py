"""A cell whose source is a number instead of text."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, cell, solution, submit

STUDENT = 'source-number'
EXPECT = Expect(INVALID, 0, ("source is not text",))


def build(submitted: Path) -> None:
    nb = solution()
    cell(nb, "tensor_bytes")["source"] = 42
    submit(submitted, STUDENT, nb)

"""A cell whose metadata is a list."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, cell, solution, submit

STUDENT = 'metadata-list'
EXPECT = Expect(INVALID, 0, ("metadata is not a JSON object",))


def build(submitted: Path) -> None:
    nb = solution()
    cell(nb, "tensor_bytes")["metadata"] = ["nbgrader"]
    submit(submitted, STUDENT, nb)

"""A graded cell whose nbgrader metadata is a string."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, cell, solution, submit

STUDENT = 'nbgrader-string'
EXPECT = Expect(INVALID, 0, ("nbgrader metadata is not a JSON object",))


def build(submitted: Path) -> None:
    nb = solution()
    cell(nb, "tensor_bytes")["metadata"]["nbgrader"] = "graded"
    submit(submitted, STUDENT, nb)

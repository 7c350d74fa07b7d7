"""A cell of a type nbformat does not know."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'cell-type-unknown'
EXPECT = Expect(INVALID, 0, ("cell_type",))


def build(submitted: Path) -> None:
    nb = solution()
    nb["cells"][1]["cell_type"] = "javascript"
    submit(submitted, STUDENT, nb)

"""A cell that is a number, not a JSON object."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'cell-not-object'
EXPECT = Expect(INVALID, 0, ("cell 3 is not a cell",))


def build(submitted: Path) -> None:
    nb = solution()
    nb["cells"][2] = 12345
    submit(submitted, STUDENT, nb)

"""The student gives their own solution cell grade: true and points: 1000 (it broke their
feedback). Points come from the release; the edit is reported."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, cell, solution, submit

STUDENT = 'points-1000'
EXPECT = Expect("graded", FULL, ("metadata was edited",))


def build(submitted: Path) -> None:
    nb = solution()
    cell(nb, "tensor_bytes")["metadata"]["nbgrader"].update(grade=True, points=1000)
    submit(submitted, STUDENT, nb)

"""A cell whose id is a list (unhashable; it stopped the batch)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'cell-id-list'
EXPECT = Expect(INVALID, 0, ("id is not text",))


def build(submitted: Path) -> None:
    nb = solution()
    nb["cells"][0]["id"] = ["a", "b"]
    submit(submitted, STUDENT, nb)

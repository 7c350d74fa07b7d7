"""A JSON list where the notebook object should be."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'top-level-list'
EXPECT = Expect(INVALID, 0, ("not a Jupyter notebook",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, [solution()])

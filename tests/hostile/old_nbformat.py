"""A version 3 notebook (worksheets, no cells)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, submit

STUDENT = 'nbformat-3'
EXPECT = Expect(INVALID, 0, ("version 3",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT,
           {"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}})

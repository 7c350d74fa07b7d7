"""A folder name that a spreadsheet runs as a formula when it opens the CSV."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = '=HYPERLINK(CONCAT("https:",CHAR(47),CHAR(47),"evil.example"),"click")'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, solution())

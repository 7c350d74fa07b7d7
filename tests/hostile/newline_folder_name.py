"""A folder name with a newline and an escape sequence: a record line, a log line or a
terminal could be forged with it."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = 'eve\nalice\x1b[2K'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, solution())

"""A folder name with a right-to-left override, which shows as another name in a listing."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = 'bob\u202eecila'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, solution())

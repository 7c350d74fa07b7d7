"""JSON nested 200,000 deep, past the parser's own recursion limit."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, submit

STUDENT = 'deeper-nesting'
EXPECT = Expect(INVALID, 0, ("nested",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, text="[" * 200_000 + "]" * 200_000)

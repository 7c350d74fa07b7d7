"""Metadata nested 5,000 deep: recursion in any code that walks it (json, nbformat,
sanitiser, deepcopy)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, submit, with_raw_metadata

STUDENT = 'deep-nesting'
EXPECT = Expect(INVALID, 0, ("nested",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, text=with_raw_metadata("[" * 5000 + "]" * 5000))

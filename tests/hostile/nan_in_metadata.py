"""NaN and Infinity: Python's json reads them, but they are not JSON and nbformat's writer
refuses them."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, submit, with_raw_metadata

STUDENT = 'nan-metadata'
EXPECT = Expect(INVALID, 0, ("not valid notebook JSON",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, text=with_raw_metadata("[NaN, -Infinity]"))

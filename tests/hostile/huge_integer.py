"""An integer of 100,000 digits in the metadata (Python refuses to read one past 4,300
digits, with a ValueError from deep inside json)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, submit, with_raw_metadata

STUDENT = 'huge-integer'
EXPECT = Expect(INVALID, 0, ("not valid notebook JSON",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, text=with_raw_metadata("9" * 100_000))

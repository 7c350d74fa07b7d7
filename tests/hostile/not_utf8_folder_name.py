"""A folder name whose bytes are not UTF-8 (no gradebook or CSV can hold it as it is)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'caf\\xe9'
EXPECT = Expect(INVALID, 0, ("not UTF-8",))


def build(submitted: Path) -> None:
    submit(submitted, b"caf\xe9", solution())

"""Text with a lone surrogate escape (backslash-udc80): valid JSON, but no file or database
can hold it (UnicodeEncodeError when the autograded notebook or gradebook is written)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, submit, with_raw_metadata

STUDENT = 'lone-surrogate'
EXPECT = Expect(INVALID, 0, ("not Unicode",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, text=with_raw_metadata('"\\udc80"'))

"""submitted/<student>/<assignment> is a file, not a folder."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, A, Expect

STUDENT = 'assignment-file'
EXPECT = Expect(INVALID, 0, ("is not a folder",))


def build(submitted: Path) -> None:
    (submitted / STUDENT).mkdir()
    (submitted / STUDENT / A).write_text("{}")

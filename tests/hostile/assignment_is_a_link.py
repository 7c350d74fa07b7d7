"""submitted/<student>/<assignment> is a symbolic link to another folder (here the course's
source, where the answer key lives)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, A, Expect

STUDENT = 'assignment-link'
EXPECT = Expect(INVALID, 0, ("symbolic link",))


def build(submitted: Path) -> None:
    (submitted / STUDENT).mkdir()
    (submitted / STUDENT / A).symlink_to(submitted.parent / "source" / A)

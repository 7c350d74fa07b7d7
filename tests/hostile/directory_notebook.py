"""The notebook is a directory named like one."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, A, Expect, folder

STUDENT = 'dir-notebook'
EXPECT = Expect(INVALID, 0, ("not a regular file",))


def build(submitted: Path) -> None:
    (folder(submitted, STUDENT) / f"{A}.ipynb").mkdir()

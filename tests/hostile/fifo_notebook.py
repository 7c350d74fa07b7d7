"""The notebook is a FIFO: reading it (or hashing it) waits forever for a writer."""

from __future__ import annotations

import os
from pathlib import Path

from hostile._kit import INVALID, A, Expect, folder

STUDENT = 'fifo-notebook'
EXPECT = Expect(INVALID, 0, ("not a regular file",))


def build(submitted: Path) -> None:
    os.mkfifo(folder(submitted, STUDENT) / f"{A}.ipynb")

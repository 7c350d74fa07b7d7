"""timestamp.txt is a FIFO (reading it blocked the batch). The notebook itself is right."""

from __future__ import annotations

import os
from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = 'fifo-timestamp'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    path = submit(submitted, STUDENT, solution())
    os.mkfifo(path.parent / "timestamp.txt")

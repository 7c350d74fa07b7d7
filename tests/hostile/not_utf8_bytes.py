"""Bytes that are not UTF-8 (a Latin-1 file)."""

from __future__ import annotations

import json
from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'latin-1-file'
EXPECT = Expect(INVALID, 0, ("not a text file",))


def build(submitted: Path) -> None:
    raw = json.dumps(solution()).encode().replace(b"Tensors", b"Tens\xf6rs", 1)
    submit(submitted, STUDENT, raw=raw)

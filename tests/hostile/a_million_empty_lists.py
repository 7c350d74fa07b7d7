"""1.2 million empty lists in 3.6 MiB: small on disk, ~100 MB once parsed."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, submit, with_raw_metadata

STUDENT = 'empty-lists'
EXPECT = Expect(INVALID, 0, ("JSON values",))


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, text=with_raw_metadata("[" + "[]," * 1_200_000 + "[]]"))

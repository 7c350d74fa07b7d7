"""40 MiB of padding in the notebook metadata (a 63 MiB one took the coordinator to 11 GB)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'padded-metadata'
EXPECT = Expect(INVALID, 0, ("over the 32 MiB",))


def build(submitted: Path) -> None:
    nb = solution()
    nb["metadata"]["pad"] = "x" * (40 * 2**20)
    submit(submitted, STUDENT, nb)

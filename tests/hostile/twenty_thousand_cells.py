"""20,000 empty markdown cells (held the coordinator for 30 s, per submission)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, solution, submit

STUDENT = 'many-cells'
EXPECT = Expect(INVALID, 0, ("cells, over",))


def build(submitted: Path) -> None:
    nb = solution()
    nb["cells"] += [{"cell_type": "markdown", "metadata": {}, "source": ""}] * 20_000
    submit(submitted, STUDENT, nb)

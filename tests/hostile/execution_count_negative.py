"""A code cell whose execution_count is -1 (the schema allows null or >= 0). Once stopped
the whole batch (nbformat refused to write the autograded notebook). Harmless: graded."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, cell, solution, submit

STUDENT = 'exec-count-minus-one'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    nb = solution()
    cell(nb, "tensor_bytes")["execution_count"] = -1
    submit(submitted, STUDENT, nb)

"""A graded cell whose nbgrader grade_id is a list: a field the grader reads, of the wrong
type (it was used as a dictionary key, and the batch stopped)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import INVALID, Expect, cell, solution, submit

STUDENT = 'grade-id-list'
EXPECT = Expect(INVALID, 0, ("grade_id is not text",))


def build(submitted: Path) -> None:
    nb = solution()
    cell(nb, "tensor_bytes")["metadata"]["nbgrader"]["grade_id"] = ["tensor_bytes"]
    submit(submitted, STUDENT, nb)

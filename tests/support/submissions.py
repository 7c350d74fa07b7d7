"""Made-up submissions for tests and benchmarks: the perfect one, and one with an answer
changed. Test support, not product; reads the repository's notebooks."""

from __future__ import annotations

import copy

import nbformat

from autograder.course import RELEASE, instructor_notebook
from autograder.notebook import grade_id, nbgrader_meta, read_notebook


def perfect_submission(assignment: str) -> nbformat.NotebookNode:
    """The released notebook with every solution cell filled in from the instructor version:
    what a student who got everything right hands in (its test cells are the released ones)."""
    solutions = {
        grade_id(cell): cell.source
        for cell in read_notebook(instructor_notebook(assignment)).cells
        if nbgrader_meta(cell).get("solution")
    }
    notebook = read_notebook(RELEASE / assignment / f"{assignment}.ipynb")
    for cell in notebook.cells:
        if nbgrader_meta(cell).get("solution"):
            cell.source = solutions[grade_id(cell)]
    return notebook


def with_answer(notebook: nbformat.NotebookNode, grade_id_: str,
                source: str) -> nbformat.NotebookNode:
    """A copy of ``notebook`` whose cell ``grade_id_`` holds ``source``: a submission with one
    answer (or one test cell) changed, for tests and benchmarks."""
    changed = copy.deepcopy(notebook)
    for cell in changed.cells:
        if grade_id(cell) == grade_id_:
            cell.source = source
            return changed
    raise KeyError(f"no cell with grade_id {grade_id_!r}")

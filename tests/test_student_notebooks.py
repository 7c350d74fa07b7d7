"""The released student notebooks' test cells must be readable in the cell.

That an untouched notebook runs to the end, failing only in its test cells, is checked where
it already runs: in nbgrader's grading (test_nbgrader_grading.py) and with JupyterLab's Run All
in Chromium (tests/browser/test_notebooks_in_lab.py).
"""

from __future__ import annotations

import nbformat
import pytest

from autograder.course import assignments, instructor_notebook
from autograder.preprocessors.tag_test_cells import is_test_cell
from autograder.spec import TEST_CELL_WIDTH as MAX_TEST_CELL_LINE


@pytest.mark.parametrize("assignment", assignments())
def test_test_cells_fit_the_cell_width(assignment):
    notebook = nbformat.read(instructor_notebook(assignment), as_version=4)
    long_lines = [(cell.metadata["nbgrader"]["grade_id"], line)
                  for cell in notebook.cells if is_test_cell(cell)
                  for line in cell.source.splitlines() if len(line) > MAX_TEST_CELL_LINE]
    assert not long_lines, f"wrap these test-cell lines at {MAX_TEST_CELL_LINE}: {long_lines}"

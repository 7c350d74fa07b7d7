"""The released student notebooks, as a student first meets them.

An untouched notebook must run from top to bottom as JupyterLab's "Run All" runs it: only the
test cells fail (they are tagged so that the run goes on), and every demo built on an exercise
says which exercise to finish instead of failing. Test cells must be readable in the cell.
"""

from __future__ import annotations

import nbclient
import nbformat
import pytest

from autograder.course import RELEASE, assignments, instructor_notebook

MAX_TEST_CELL_LINE = 88  # wider lines run past the right edge of a JupyterLab cell


def _is_test_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


@pytest.mark.slow
@pytest.mark.parametrize("assignment", assignments())
def test_untouched_student_notebook_runs_to_the_end(assignment, tmp_path):
    notebook = nbformat.read(RELEASE / assignment / f"{assignment}.ipynb", as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError at the first untagged failing cell

    failed = [c for c in notebook.cells if c.cell_type == "code"
              and any(o.output_type == "error" for o in c.outputs)]
    assert failed and all(_is_test_cell(c) for c in failed), [c.source[:80] for c in failed]
    assert all("raises-exception" in c.metadata.get("tags", []) for c in failed)
    text = "\n".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code"
                     for o in c.outputs)
    assert "Finish exercise" in text
    last_code = [c for c in notebook.cells if c.cell_type == "code"][-1]
    assert last_code.outputs, "the last cell did not run"


@pytest.mark.parametrize("assignment", assignments())
def test_test_cells_fit_the_cell_width(assignment):
    notebook = nbformat.read(instructor_notebook(assignment), as_version=4)
    long_lines = [(cell.metadata["nbgrader"]["grade_id"], line)
                  for cell in notebook.cells if _is_test_cell(cell)
                  for line in cell.source.splitlines() if len(line) > MAX_TEST_CELL_LINE]
    assert not long_lines, f"wrap these test-cell lines at {MAX_TEST_CELL_LINE}: {long_lines}"

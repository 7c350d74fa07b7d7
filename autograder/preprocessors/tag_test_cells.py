"""Tag the graded test cells of a student notebook ``raises-exception``.

A fresh student notebook fails every test cell (the solutions are stubs), and JupyterLab's
"Run All Cells" stops at the first cell that raises, so nothing after exercise 1 would run.
JupyterLab and nbclient carry on past a cell tagged ``raises-exception`` (the error is still
shown in, and saved with, the cell's output). The tag changes nothing for grading: nbgrader
scores a test cell from the error in its output and its checksums ignore tags, and the
course's grader compares test cells by source only.

Only the release is tagged. nbval, which replays the instructor notebooks, treats the tag as
"an error here is expected" and would then no longer fail on a broken instructor test.
"""

from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor

# The tag JupyterLab, nbclient (hence nbconvert --execute) and nbval all recognise.
RAISES_EXCEPTION = "raises-exception"


def is_test_cell(cell: NotebookNode) -> bool:
    """An autograded test cell: a code cell nbgrader grades that is not a solution."""
    return cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell)


class TagTestCells(NbGraderPreprocessor):
    """Add the ``raises-exception`` tag to every graded test cell, keeping its other tags.
    It has no options besides nbgrader's ``enabled``."""

    def preprocess_cell(
        self, cell: NotebookNode, resources: ResourcesDict, index: int
    ) -> tuple[NotebookNode, ResourcesDict]:
        if is_test_cell(cell):
            tags = list(cell.metadata.get("tags", []))
            if RAISES_EXCEPTION not in tags:
                tags.append(RAISES_EXCEPTION)
            cell.metadata["tags"] = tags
        return cell, resources

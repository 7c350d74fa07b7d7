"""Grade one filled-in notebook against the instructor version with stock nbgrader.

The notebook is submitted to a throw-away course directory (``nbgrader_course.Course``);
``nbgrader autograde`` runs it with the instructor's test cells, hidden tests included, put
back in place. Scores come from the gradebook, messages from the autograded notebook's errors.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat

from autograder.course import identify, read_notebook
from autograder.nbgrader_course import Course
from autograder.results import FAILED, MISSING, PASSED, NotebookResult, TestResult

STUDENT = "self-check"


def failure_message(cell: nbformat.NotebookNode) -> str:
    """What a failed test cell reported: its error, else its stderr, else nothing."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return f"{output.ename}: {output.evalue}".strip()
    for output in cell.get("outputs", []):
        if output.output_type == "stream" and output.name == "stderr":
            return "wrote to stderr: " + output.text.strip()
    return ""


def collect(course: Course, student: str, assignment: str, notebook: str) -> NotebookResult:
    """Read one submission's scores from the gradebook and messages from its outputs."""
    from nbgrader.api import Gradebook

    cells: dict[str, nbformat.NotebookNode] = {}
    autograded = course.autograded(student, assignment)
    if autograded.exists():
        for cell in nbformat.read(autograded, as_version=4).cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id:
                cells[grade_id] = cell
    result = NotebookResult(notebook=notebook, assignment=assignment)
    with Gradebook(course.db_url) as gradebook:
        submission = gradebook.find_submission_notebook(assignment, assignment, student)
        for grade in submission.grades:
            if grade.cell.cell_type != "code":
                continue
            cell = cells.get(grade.name)
            if grade.score is None or cell is None:
                test = TestResult(grade.name, 0.0, grade.max_score, MISSING,
                                  "this test cell is missing from the notebook; copy it back "
                                  "from the student version in notebooks/")
            elif grade.score >= grade.max_score:
                test = TestResult(grade.name, grade.score, grade.max_score, PASSED,
                                  "all checks passed")
            else:
                test = TestResult(grade.name, grade.score, grade.max_score, FAILED,
                                  failure_message(cell) or "failed")
            result.tests.append(test)
    order = {grade_id: i for i, grade_id in enumerate(cells)}
    result.tests.sort(key=lambda t: (order.get(t.grade_id, len(order)), t.grade_id))
    return result


def check_notebook(path: Path) -> NotebookResult:
    """Grade ``path`` (a student's copy) with hidden tests; raises NotebookError on bad input."""
    notebook = read_notebook(path)
    assignment = identify(path, notebook)
    with tempfile.TemporaryDirectory(prefix="autograder-check-") as tmp:
        course = Course(Path(tmp))
        course.add_assignment(assignment)
        course.submit(STUDENT, assignment, path)
        course.autograde(assignment)
        return collect(course, STUDENT, assignment, str(path))

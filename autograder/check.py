"""Grade one filled-in notebook against the instructor version with stock nbgrader.

A throw-away course directory is laid out the way nbgrader expects it::

    source/<assignment>/<assignment>.ipynb              the instructor notebook (hidden tests)
    submitted/<student>/<assignment>/<assignment>.ipynb  the notebook being checked
    gradebook.db

then ``nbgrader generate_assignment`` records the graded cells in the gradebook and
``nbgrader autograde`` runs the submission with the instructor's test cells put back in place.
Scores come from the gradebook, messages from the autograded notebook's error outputs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.course import NBGRADER_CONFIG, identify, instructor_notebook, read_notebook
from autograder.results import FAILED, MISSING, PASSED, NotebookResult, TestResult

STUDENT = "self-check"


class GradingFailed(RuntimeError):
    """nbgrader itself could not grade the notebook (not the student's fault)."""


def _nbgrader(args: list[str], course: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # nbgrader shells out to alembic, which lives beside this interpreter.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
        capture_output=True, text=True,
    )


def _write_course_config(course: Path) -> None:
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"load_subconfig({str(NBGRADER_CONFIG)!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.source_directory = 'source'\n"
        "c.CourseDirectory.release_directory = 'release'\n",
        encoding="utf-8",
    )


def _message(cell: nbformat.NotebookNode) -> str:
    """What a failed test cell reported: its error, else its stderr, else nothing."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return f"{output.ename}: {output.evalue}".strip()
    for output in cell.get("outputs", []):
        if output.output_type == "stream" and output.name == "stderr":
            return "wrote to stderr: " + output.text.strip()
    return ""


def _collect(course: Path, assignment: str, path: Path) -> NotebookResult:
    from nbgrader.api import Gradebook

    autograded = course / "autograded" / STUDENT / assignment / f"{assignment}.ipynb"
    cells = {}
    if autograded.exists():
        graded_nb = nbformat.read(autograded, as_version=4)
        cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in graded_nb.cells}
    result = NotebookResult(notebook=str(path), assignment=assignment)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission_notebook(assignment, assignment, STUDENT)
        for grade in sorted(submission.grades, key=lambda g: g.cell.id):
            if grade.cell.cell_type != "code":
                continue
            cell = cells.get(grade.name)
            if grade.score is None or cell is None:
                result.tests.append(TestResult(
                    grade.name, 0.0, grade.max_score, MISSING,
                    "this test cell is missing from the notebook; copy it back from the "
                    "student version in notebooks/",
                ))
            elif grade.score >= grade.max_score:
                result.tests.append(TestResult(grade.name, grade.score, grade.max_score, PASSED,
                                               "all checks passed"))
            else:
                result.tests.append(TestResult(grade.name, grade.score, grade.max_score, FAILED,
                                               _message(cell) or "failed"))
    order = {gid: i for i, gid in enumerate(cells)}
    result.tests.sort(key=lambda t: order.get(t.grade_id, len(order)))
    return result


def check_notebook(path: Path) -> NotebookResult:
    """Grade ``path`` (a student's copy) with hidden tests; raises NotebookError on bad input."""
    notebook = read_notebook(path)
    assignment = identify(path, notebook)
    with tempfile.TemporaryDirectory(prefix="autograder-check-") as tmp:
        course = Path(tmp)
        _write_course_config(course)
        source = course / "source" / assignment
        source.mkdir(parents=True)
        shutil.copy(instructor_notebook(assignment), source / f"{assignment}.ipynb")
        submitted = course / "submitted" / STUDENT / assignment
        submitted.mkdir(parents=True)
        shutil.copy(path, submitted / f"{assignment}.ipynb")

        for args in (["generate_assignment", assignment, "--force"],
                     ["autograde", assignment, "--create", "--force"]):
            run = _nbgrader(args, course)
            if run.returncode != 0:
                raise GradingFailed(
                    f"nbgrader {args[0]} failed (exit {run.returncode}):\n{run.stderr[-3000:]}"
                )
        return _collect(course, assignment, path)

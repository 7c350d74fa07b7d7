"""A throw-away nbgrader course directory driven by stock nbgrader commands (for tests,
benchmarks and comparisons with stock ``nbgrader autograde``). Test support, not product.

Laid out the way nbgrader expects::

    nbgrader_config.py                                   the repo's config, pointed here
    source/<assignment>/<assignment>.ipynb               instructor notebooks (hidden tests)
    submitted/<student>/<assignment>/<assignment>.ipynb  submissions
    gradebook.db

and driven with stock ``nbgrader`` commands.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from autograder.course import NBGRADER_CONFIG, instructor_notebook
from autograder.course_dirs import nbgrader_env
from autograder.notebook import grade_id as grade_id_of
from autograder.protocol import Status
from autograder.results import NotebookResult, TestResult

__all__ = ["Course", "NbgraderFailed", "failure_message", "nbgrader_env", "stock_results"]


class NbgraderFailed(RuntimeError):
    """nbgrader itself failed (not a student's fault)."""


class Course:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        (root / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            f"load_subconfig({str(NBGRADER_CONFIG)!r})\n"
            f"c.CourseDirectory.root = {str(root)!r}\n"
            "c.CourseDirectory.source_directory = 'source'\n"
            "c.CourseDirectory.release_directory = 'release'\n",
            encoding="utf-8",
        )

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.root / 'gradebook.db'}"

    def add_assignment(self, assignment: str) -> None:
        """Copy the instructor notebook in and record its graded cells in the gradebook."""
        source = self.root / "source" / assignment
        source.mkdir(parents=True, exist_ok=True)
        shutil.copy(instructor_notebook(assignment), source / f"{assignment}.ipynb")
        self.nbgrader("generate_assignment", assignment, "--force")

    def submit(self, student: str, assignment: str, notebook: Path | nbformat.NotebookNode) -> Path:
        """Place a submission (a file, or an in-memory notebook) where autograde looks."""
        target = self.root / "submitted" / student / assignment / f"{assignment}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(notebook, Path):
            shutil.copy(notebook, target)
        else:  # as given, byte for byte: nbformat.write would repair what a student broke
            target.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
        return target

    def autograde(self, assignment: str, student: str | None = None) -> None:
        args = ["autograde", assignment, "--create", "--force"]
        if student:
            args.append(f"--student={student}")
        self.nbgrader(*args)

    def autograded(self, student: str, assignment: str) -> Path:
        return self.root / "autograded" / student / assignment / f"{assignment}.ipynb"

    def nbgrader(self, *args: str) -> subprocess.CompletedProcess:
        run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=self.root,
                             env=nbgrader_env(), capture_output=True, text=True)
        if run.returncode != 0:
            raise NbgraderFailed(
                f"nbgrader {args[0]} failed (exit {run.returncode}):\n{run.stderr[-3000:]}"
            )
        return run


def failure_message(cell: nbformat.NotebookNode) -> str:
    """What a failed test cell reported: its error, else its stderr, else nothing."""
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return f"{output.ename}: {output.evalue}".strip()
    for output in cell.get("outputs", []):
        if output.output_type == "stream" and output.name == "stderr":
            return "wrote to stderr: " + output.text.strip()
    return ""


def stock_results(course: Course, student: str, assignment: str, notebook: str) -> NotebookResult:
    """What a stock ``nbgrader autograde`` gave one submission: scores from the gradebook,
    messages from the autograded notebook's error outputs."""
    from nbgrader.api import Gradebook

    cells: dict[str, nbformat.NotebookNode] = {}
    autograded = course.autograded(student, assignment)
    if autograded.exists():
        for cell in nbformat.read(autograded, as_version=4).cells:
            grade_id = grade_id_of(cell)
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
                test = TestResult(grade.name, 0.0, grade.max_score, Status.MISSING,
                                  "this test cell is missing from the notebook; copy it back "
                                  "from the student version in notebooks/")
            elif grade.score >= grade.max_score:
                test = TestResult(grade.name, grade.score, grade.max_score, Status.PASSED,
                                  "all checks passed")
            else:
                test = TestResult(grade.name, grade.score, grade.max_score, Status.FAILED,
                                  failure_message(cell) or "failed")
            result.tests.append(test)
    order = {grade_id: i for i, grade_id in enumerate(cells)}
    result.tests.sort(key=lambda t: (order.get(t.grade_id, len(order)), t.grade_id))
    return result

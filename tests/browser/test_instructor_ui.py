"""The instructor's path through nbgrader's JupyterLab tools, on a throw-away course:

- "Create Assignment" (the right sidebar) shows an instructor notebook's cell types and points;
- "Validate" (the notebook toolbar) passes a solved notebook and lists the failures of the
  untouched release;
- formgrader lists the assignment and, after `python -m autograder grade`, each student's
  score; the feedback page `nbgrader generate_feedback` writes shows the score and none of the
  hidden tests.

JupyterLab runs as an instructor starts it, `jupyter lab` in the course folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import nbformat
import pytest
from support.lab import (
    SHOWN,
    TOKEN,
    free_port,
    open_notebook,
    running_server,
    server_options,
)
from support.nbgrader_course import Course, nbgrader_env
from support.submissions import perfect_submission, with_answer
from wrong_answers import WRONG_ANSWERS

from autograder.course import RELEASE, instructor_notebook
from autograder.notebook import grade_id, nbgrader_meta, read_notebook
from autograder.sandbox import sandbox_available

A = "02_strides_and_views"  # among the quickest notebooks to run
WRONG_ONE = next(iter(WRONG_ANSWERS[A]))
AVAILABLE, WHY = sandbox_available()


def _graded_cells() -> list[nbformat.NotebookNode]:
    return [c for c in read_notebook(instructor_notebook(A)).cells if nbgrader_meta(c)]


def _points() -> dict[str, float]:
    return {grade_id(c): nbgrader_meta(c)["points"] for c in _graded_cells()
            if nbgrader_meta(c).get("grade")}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Course:
    course = Course(tmp_path_factory.mktemp("course"))
    course.add_assignment(A)
    course.submit("perfect", A, perfect_submission(A))
    course.submit("one-wrong", A, with_answer(perfect_submission(A), WRONG_ONE,
                                              WRONG_ANSWERS[A][WRONG_ONE][0]))
    for name, notebook in {"solved": perfect_submission(A),
                           "untouched": read_notebook(RELEASE / A / f"{A}.ipynb")}.items():
        (course.root / "validate" / name).mkdir(parents=True)
        nbformat.write(notebook, course.root / "validate" / name / f"{A}.ipynb")
    return course


@pytest.fixture(scope="module")
def graded(course) -> Course:
    if not AVAILABLE:
        pytest.skip(f"no grading sandbox here: {WHY}")
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", A, f"--course={course.root}",
         "--jobs=2", "--no-progress"], capture_output=True, text=True, timeout=600,
        env=nbgrader_env())
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    course.nbgrader("generate_feedback", A)
    return course


@pytest.fixture(scope="module")
def lab_url(course, tmp_path_factory):
    port = free_port()
    command = [sys.executable, "-m", "jupyter", "lab", *server_options(port),
               *(["--allow-root"] if os.geteuid() == 0 else [])]
    with running_server(command, course.root, nbgrader_env(),
                        tmp_path_factory.mktemp("instructor-lab"), port) as url:
        yield url


CELL_TYPES = {"solution": "Autograded answer", "tests": "Autograded tests"}


def test_create_assignment_shows_cell_types_and_points(page, lab_url):
    open_notebook(page, lab_url, f"source/{A}/{A}.ipynb")
    page.locator(".jp-SideBar .lm-TabBar-tab[data-id='nbgrader-create_assignemnt']").click()
    widgets = page.locator(".nbgrader-CellWidget")
    widgets.first.wait_for(timeout=30_000)
    shown = []
    for i in range(widgets.count()):
        widget = widgets.nth(i)
        kind = widget.locator(".nbgrader-CellType select").evaluate(
            "s => s.options[s.selectedIndex].text")
        is_test = kind == CELL_TYPES["tests"]  # only test cells carry points
        shown.append((kind, float(widget.locator(".nbgrader-CellPoints input").input_value())
                      if is_test else None))
    expected = []
    for cell in read_notebook(instructor_notebook(A)).cells:
        meta = nbgrader_meta(cell)
        kind = "tests" if meta.get("grade") and not meta.get("solution") else \
            "solution" if meta.get("solution") else None
        expected.append((CELL_TYPES[kind], float(meta["points"])) if kind == "tests" else
                        (CELL_TYPES[kind], None) if kind else ("-", None))
    assert [s for s in shown if s[0] != "-"] == [e for e in expected if e[0] != "-"]
    total = page.locator(".nbgrader-TotalPointsInput").first.input_value()
    assert float(total) == sum(_points().values())


def _validate(page, lab_url: str, which: str) -> str:
    open_notebook(page, lab_url, f"validate/{which}/{A}.ipynb")
    page.locator(f"{SHOWN} .validate-button").first.click()
    dialog = page.locator(".jp-Dialog #validation-message")
    dialog.wait_for(timeout=300_000)  # nbgrader validate runs every cell
    return dialog.inner_text()


def test_validate_passes_the_solved_notebook(page, lab_url):
    text = _validate(page, lab_url, "solved")
    assert "Success! Your notebook passes all the tests." in text, text


def test_validate_lists_the_failures_of_the_untouched_notebook(page, lab_url):
    text = _validate(page, lab_url, "untouched")
    assert "Success" not in text and "NotImplementedError" in text, text[:2000]


def test_formgrader_lists_the_assignment_and_the_scores(page, lab_url, graded):
    page.goto(f"{lab_url}/formgrader/manage_assignments?token={TOKEN}")
    page.locator("td.name a", has_text=re.compile(f"^{A}$")).wait_for(timeout=60_000)
    page.goto(f"{lab_url}/formgrader/gradebook/{A}/{A}?token={TOKEN}")
    total = sum(_points().values())
    lost = _points()[f"test_{WRONG_ONE}"]
    for student, score in {"perfect": total, "one-wrong": total - lost}.items():
        row = page.locator("tr").filter(has=page.locator("a.name-shown", has_text=student))
        row.first.wait_for(state="attached", timeout=60_000)
        shown = row.first.locator("td.score").text_content().strip()
        assert shown == f"{score:g} / {total:g}", f"{student}: formgrader shows {shown}"


def test_feedback_page_shows_the_score_and_no_hidden_test(page, graded):
    feedback = graded.root / "feedback" / "one-wrong" / A / f"{A}.html"
    assert feedback.exists()
    page.goto(feedback.as_uri())
    text = page.locator("body").inner_text()
    total = sum(_points().values())
    lost = _points()[f"test_{WRONG_ONE}"]
    assert re.search(rf"Score:\s*{total - lost:g}(\.0)?\s*/\s*{total:g}", text), text[:500]
    hidden = _hidden_calls()
    assert hidden, "the notebook has no hidden tests to look for"
    assert "BEGIN HIDDEN TESTS" not in text
    leaked = [call for call in hidden if call in text]
    assert not leaked, f"the feedback page shows hidden tests: {leaked[:3]}"


def _hidden_calls() -> list[str]:
    """The call of every hidden case, as written in the instructor's test cells."""
    calls = []
    for cell in _graded_cells():
        source = cell.source
        if "### BEGIN HIDDEN TESTS" in source:
            block = source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            calls += re.findall(r"Case\(\s*(['\"])(.+?)\1", block, re.S)
    return [call for _, call in calls if len(call) > 12]

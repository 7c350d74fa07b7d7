"""The hostile collection (tests/hostile/) graded in one batch with honest submissions, on
both engines, by the real ``python -m autograder grade``.

The invariant, for every attack: the batch finishes in bounded time; the honest students
score full marks as if alone; the attacker's record holds the status and score its module
expects, with a reason; the gradebook and the CSV hold every student (the CSV with no cell a
spreadsheet would run); each autograded notebook is a valid notebook; and the exit status
(3) and stderr name those left without a final grade.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from hostile import ATTACKS
from hostile._kit import FULL, INVALID, A, solution, submit
from support.nbgrader_course import Course

from autograder.cli import NOT_ALL_GRADED
from autograder.grade import student_id
from autograder.identities import printable
from autograder.record import record_path
from autograder.sandbox import sandbox_available
from autograder.spreadsheet import QUOTE, needs_guard, original_cell

AVAILABLE, WHY = sandbox_available()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox here: {WHY}")]
HONEST = ("honest-a", "honest-b")
BATCH_SECONDS = 600  # ~45 submissions, half of them run; ~1-2 minutes on two cores


def _student(attack) -> str:
    """The id the grader gives the attack's folder (non-UTF-8 bytes as \\xNN)."""
    return student_id(attack.STUDENT)[0]


@pytest.fixture(scope="module", params=["threads", "dask"])
def graded(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"hostile-{request.param}")
    course = Course(root)
    course.add_assignment(A)
    submitted = root / "submitted"
    for student in HONEST:
        submit(submitted, student, solution())
    for attack in ATTACKS:
        attack.build(submitted)
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", A, f"--course={root}", "--jobs=2",
         "--cell-timeout=20", "--timeout=90", "--memory-gb=2", "--no-progress",
         f"--engine={request.param}"],
        capture_output=True, text=True, timeout=BATCH_SECONDS,
        env=dict(os.environ, NBGRADER_EXECUTION="autograde"))
    return root, run


def _record(root: Path, student: str) -> dict:
    path = record_path(root, A, student)
    assert path.is_file(), f"no record for {printable(student)}"
    return json.loads(path.read_text(encoding="utf-8"))


def test_honest_students_are_unaffected(graded):
    root, run = graded
    for student in HONEST:
        record = _record(root, student)
        assert (record["status"], record["score"]) == ("graded", FULL), run.stderr[-3000:]


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.__name__.split(".")[-1])
def test_each_attack_costs_only_its_own_submission(graded, attack):
    root, run = graded
    record = _record(root, _student(attack))
    expect = attack.EXPECT
    detail = f"{record['status']}: {record['message'][:600]}\n{run.stderr[-2000:]}"
    assert record["status"] == expect.status, detail
    assert record["score"] == expect.score, detail
    assert record["max_score"] == FULL  # points come from the release, whatever was edited
    for words in expect.says:
        assert words in record["message"], detail
    if expect.status == INVALID:  # a reason the instructor can pass on
        assert record["message"] and len(record["message"]) < 1000


def test_exit_status_and_stderr_name_who_has_no_grade(graded):
    _, run = graded
    assert run.returncode == NOT_ALL_GRADED, run.stderr[-3000:]
    invalid = [a for a in ATTACKS if a.EXPECT.status == INVALID]
    assert f"{len(invalid)} submission(s) have no final grade" in run.stderr
    for attack in invalid:
        assert f"{printable(_student(attack))}: {INVALID}" in run.stderr
    # ids that hide characters are printed escaped, and warned about
    assert "\x1b" not in run.stderr and "\u202e" not in run.stderr
    assert "holds characters a listing does not show" in run.stderr


def test_gradebook_and_csv_hold_every_student(graded):
    root, _ = graded
    students = {*HONEST, *(_student(a) for a in ATTACKS)}
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        assert {s.student_id for s in gradebook.assignment_submissions(A)} == students
    with (root / "grades" / f"{A}.csv").open(newline="", encoding="utf-8") as file:
        rows = list(csv.reader(file))
    assert all(cell.startswith(QUOTE) or not needs_guard(cell) for row in rows for cell in row)
    assert sorted(original_cell(row[0]) for row in rows[1:]) == sorted(students)


def test_autograded_notebooks_are_valid_and_flag_what_changed(graded):
    root, _ = graded
    for attack in ATTACKS:
        student = _student(attack)
        path = root / "autograded" / student / A / f"{A}.ipynb"
        if not path.exists():  # a folder with no notebook file in it: nothing to show
            assert attack.EXPECT.status == INVALID, student
            continue
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        if attack.__name__.endswith("duplicated_solution_cell"):
            graded_cells = [c for c in notebook.cells
                            if c.metadata.get("nbgrader", {}).get("grade_id") == "tensor_bytes"]
            assert len(graded_cells) == 1 and "return 0" not in graded_cells[0].source
            assert "claims to be the graded cell" in notebook.cells[0].source
        if attack.__name__.endswith("points_1000"):
            points = [c.metadata["nbgrader"].get("points") for c in notebook.cells
                      if c.metadata.get("nbgrader", {}).get("grade_id") == "tensor_bytes"]
            assert points == [None] or 1000 not in points

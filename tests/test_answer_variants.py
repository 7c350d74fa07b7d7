"""Every way of being right scores full marks; every plausible way of being wrong loses
exactly its exercise, when graded by `python -m autograder grade` (the instructor's command).

Here the solution and the first wrong answer of each exercise go through this project's
grader, one batch per assignment. Every known answer, right or wrong, is graded by
`python -m autograder audit` (`test_audit_course.py`) with the same judge, but not through
`grade`'s whole batch, which is what this file adds: the plans, the gradebook and "exactly its
exercise", the other exercises keeping their points, with a message that names the function.
One wrong answer per exercise is enough for that; more would only cost CI time. One grading
job: each job starts a sandbox (seconds of imports), and the pool of several is tested in
``test_grade.py``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from right_answers import RIGHT_ANSWERS
from support.nbgrader_course import Course
from support.submissions import perfect_submission, with_answer
from wrong_answers import WRONG_ANSWERS

from autograder.course import assignments
from autograder.sandbox import sandbox_available

pytestmark = pytest.mark.slow


# Built once per notebook in each test process and kept, whatever order the notebook's tests
# come in (a module fixture with params is built again each time its param changes).
_GRADED: dict[str, tuple] = {}


@pytest.fixture(params=assignments())
def graded(request, tmp_path_factory):
    if request.param not in _GRADED:
        _GRADED[request.param] = _grade(request.param, tmp_path_factory)
    return _GRADED[request.param]


def _grade(assignment: str, tmp_path_factory) -> tuple:
    course = Course(tmp_path_factory.mktemp(f"variants-{assignment}"))
    course.add_assignment(assignment)
    perfect = perfect_submission(assignment)
    course.submit("perfect", assignment, perfect)
    answers = {}  # student → (grade_id, right?): every one wrong here
    for grade_id, sources in WRONG_ANSWERS.get(assignment, {}).items():
        student = f"wrong-{grade_id}-0"
        course.submit(student, assignment, with_answer(perfect, grade_id, sources[0]))
        answers[student] = (grade_id, False)
    sandboxed, _ = sandbox_available()
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", assignment, f"--course={course.root}",
         "--jobs=1", "--no-progress", *([] if sandboxed else ["--unsandboxed"])],
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    records = {p.stem: json.loads(p.read_text())
               for p in (course.root / "grades" / assignment).glob("*.json")}
    solution_ids = {c.metadata["nbgrader"]["grade_id"] for c in perfect.cells
                    if c.metadata.get("nbgrader", {}).get("solution")}
    return records, answers, solution_ids


def _points(record) -> dict[str, float]:
    return {t["grade_id"]: t["points"] for t in record["tests"]}


def _summary(student, record) -> str:
    return f"{student}: {record['status']}\n" + "\n".join(
        f"  {t['grade_id']} {t['points']}/{t['max_points']}: {t['message'][:400]}"
        for t in record["tests"])


def test_every_exercise_has_a_wrong_answer_graded(graded):
    _, answers, solution_ids = graded
    assert {g for g, _ in answers.values()} == solution_ids


@pytest.mark.parametrize("assignment", assignments())
def test_every_exercise_has_a_right_answer_written_differently(assignment):
    # graded, with every other known answer, by the audit in test_audit_course.py
    solution_ids = {c.metadata["nbgrader"]["grade_id"]
                    for c in perfect_submission(assignment).cells
                    if c.metadata.get("nbgrader", {}).get("solution")}
    assert solution_ids <= {g for g, sources in RIGHT_ANSWERS.get(assignment, {}).items()
                            if sources}


def test_the_solution_scores_full_marks(graded):
    records = graded[0]
    full = records["perfect"]
    assert full["status"] == "graded", _summary("perfect", full)
    assert full["score"] == full["max_score"] > 0, _summary("perfect", full)


def test_wrong_answers_lose_exactly_their_exercise(graded):
    records, answers, _ = graded
    full = {t["grade_id"]: t["max_points"] for t in records["perfect"]["tests"]}
    for student, (grade_id, right) in answers.items():
        if not right:
            record = records[student]
            expected = dict(full, **{f"test_{grade_id}": 0})
            assert _points(record) == expected, _summary(student, record)
            # the message names the graded function (called, indexed or passed, as in
            # weight_stats(Linear, ...)), unless only hidden checks failed, whose calls stay
            # hidden
            failed = next(t for t in record["tests"] if t["grade_id"] == f"test_{grade_id}")
            named = re.search(rf"\b{re.escape(grade_id)}\b", failed["message"])
            assert named or "hidden check" in failed["message"], _summary(student, record)

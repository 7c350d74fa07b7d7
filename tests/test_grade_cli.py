"""`python -m autograder grade`: refusing without a sandbox, and the explicit way around it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.nbgrader_course import Course
from support.submissions import perfect_submission

A = "00_napkin_math"


def _grade(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "grade", *args],
                          capture_output=True, text=True, timeout=300, env=env)


def test_refuses_clearly_where_bubblewrap_is_missing(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # a PATH without bwrap
    run = _grade(A, f"--course={tmp_path}", env=env)
    assert run.returncode == 2
    assert "cannot sandbox student code here" in run.stderr
    assert "apt install bubblewrap" in run.stderr and "--unsandboxed" in run.stderr


def test_bad_course_or_assignment_gets_one_line_saying_what_to_do(tmp_path):
    run = _grade(A, f"--course={tmp_path / 'nope'}", "--unsandboxed")
    assert run.returncode == 2 and "no such course directory" in run.stderr
    run = _grade(A, f"--course={tmp_path}", "--unsandboxed")
    assert run.returncode == 2 and "not an nbgrader course directory" in run.stderr
    (tmp_path / "source" / A).mkdir(parents=True)
    (tmp_path / "source" / "01_other").mkdir()
    run = _grade("no_such_assignment", f"--course={tmp_path}", "--unsandboxed")
    assert run.returncode == 2
    assert f"the assignments in {tmp_path / 'source'}/ are: {A}, 01_other" in run.stderr
    (tmp_path / "source" / A / f"{A}.ipynb").write_text(
        json.dumps(perfect_submission(A)))  # any notebook with our cells will do here
    run = _grade(A, f"--course={tmp_path}", "--unsandboxed")
    assert run.returncode == 2 and "nbgrader generate_assignment" in run.stderr
    assert all(len(line) < 400 for line in run.stderr.splitlines())
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(("option", "value"), [
    ("--jobs", "0"), ("--jobs", "-3"), ("--timeout", "-1"), ("--cell-timeout", "0"),
    ("--memory-gb", "0"), ("--memory-gb", "lots")])
def test_limits_must_be_positive_numbers(tmp_path, option, value):
    run = _grade(A, f"--course={tmp_path}", "--unsandboxed", f"{option}={value}")
    assert run.returncode == 2  # argparse's usage error: nothing was graded
    assert option in run.stderr and ("greater than 0" in run.stderr
                                     or "is not a number" in run.stderr)


@pytest.mark.slow
def test_unsandboxed_grading_when_asked_explicitly(tmp_path):
    course = Course(tmp_path / "course")
    course.add_assignment(A)
    course.submit("ada", A, perfect_submission(A))
    run = _grade(A, f"--course={course.root}", "--unsandboxed", "--no-progress")
    assert run.returncode == 0, run.stderr
    record = json.loads((course.root / "grades" / A / "ada.json").read_text())
    assert record["score"] == record["max_score"] > 0


@pytest.mark.slow
def test_no_submissions_is_said_and_outdated_feedback_is_removed(tmp_path):
    course = Course(tmp_path / "course")
    course.add_assignment(A)
    run = _grade(A, f"--course={course.root}", "--unsandboxed", "--no-progress")
    assert run.returncode == 0 and "no submissions found" in run.stderr
    assert f"nbgrader collect {A}" in run.stderr

    course.submit("ada", A, perfect_submission(A))
    old = course.root / "feedback" / "ada" / A
    old.mkdir(parents=True)
    (old / f"{A}.html").write_text("Score: 0 / 5, and the hidden tests' source")
    run = _grade(A, f"--course={course.root}", "--unsandboxed", "--no-progress")
    assert run.returncode == 0, run.stderr
    assert not old.exists()
    assert "removed the outdated feedback of 1 regraded submission(s)" in run.stdout
    assert "no submissions found" not in run.stderr

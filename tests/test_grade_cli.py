"""`python -m autograder grade`: refusing without a sandbox, and the explicit way around it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autograder.course import perfect_submission
from autograder.nbgrader_course import Course

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


def test_unknown_assignment_and_missing_gradebook_entry(tmp_path):
    run = _grade("no_such_assignment", f"--course={tmp_path}", "--unsandboxed")
    assert run.returncode == 2 and "expected exactly one instructor notebook" in run.stderr
    (tmp_path / "source" / A).mkdir(parents=True)
    (tmp_path / "source" / A / f"{A}.ipynb").write_text(
        json.dumps(perfect_submission(A)))  # any notebook with our cells will do here
    run = _grade(A, f"--course={tmp_path}", "--unsandboxed")
    assert run.returncode == 2 and "nbgrader generate_assignment" in run.stderr


@pytest.mark.slow
def test_unsandboxed_grading_when_asked_explicitly(tmp_path):
    course = Course(tmp_path / "course")
    course.add_assignment(A)
    course.submit("ada", A, perfect_submission(A))
    run = _grade(A, f"--course={course.root}", "--unsandboxed", "--no-progress")
    assert run.returncode == 0, run.stderr
    record = json.loads((course.root / "grades" / A / "ada.json").read_text())
    assert record["score"] == record["max_score"] > 0

"""docs/instructors.md's nbgrader workflow, run with stock nbgrader commands on a copy of the repo.

release → (a student fetches, fills in, submits) → collect → autograde → feedback →
export, with a real exchange directory and gradebook. nbgrader's exchange names a student
by their OS login, so the student who goes through it is this process's user and submits the
solution; a second student ("bob") hands in the untouched notebook another way, placed in
submitted/ by hand as docs/instructors.md describes.
"""

from __future__ import annotations

import csv
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.nbgrader_course import nbgrader_env

from autograder.course import REPO

pytestmark = pytest.mark.slow
A = "00_napkin_math"
COURSE = "cs336-lecture2"


STUDENT = pwd.getpwuid(os.getuid()).pw_name


def _run(args: list[str], cwd: Path) -> str:
    run = subprocess.run(args, cwd=cwd, env=nbgrader_env(), capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, f"{' '.join(args)} failed:\n{run.stdout}\n{run.stderr}"
    return run.stdout + run.stderr


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("workflow")
    course = root / "course"
    # the working tree as git sees it: new files included, deleted ones left out
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        if not (REPO / name).is_file():
            continue
        if name.startswith(("solutions/", "notebooks/", "autograder/", "lecture_utils/")) or \
                name in ("nbgrader_config.py", "course.toml"):
            (course / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / name, course / name)
    exchange = root / "exchange"
    exchange.mkdir()
    ex = f"--Exchange.root={exchange}"
    nbgrader = [sys.executable, "-m", "nbgrader"]

    _run([sys.executable, "-m", "autograder", "release", A], course)
    _run([*nbgrader, "release_assignment", A, ex], course)
    home = root / "home"
    home.mkdir()
    _run([*nbgrader, "fetch_assignment", A, f"--course={COURSE}", ex], home)
    shutil.copy(course / "solutions" / A / f"{A}.ipynb", home / A / f"{A}.ipynb")
    _run([*nbgrader, "submit", A, f"--course={COURSE}", ex], home)
    _run([*nbgrader, "collect", A, ex], course)
    bob = course / "submitted" / "bob" / A
    bob.mkdir(parents=True)
    shutil.copy(course / "notebooks" / A / f"{A}.ipynb", bob / f"{A}.ipynb")
    _run([*nbgrader, "autograde", A], course)
    _run([*nbgrader, "generate_feedback", A], course)
    _run([*nbgrader, "export"], course)
    return course


def test_collect_puts_each_submission_in_place(course):
    for student in (STUDENT, "bob"):
        assert (course / "submitted" / student / A / f"{A}.ipynb").exists()


def test_export_has_the_scores(course):
    with (course / "grades.csv").open() as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert float(rows[STUDENT]["score"]) == float(rows[STUDENT]["max_score"]) > 0
    assert float(rows["bob"]["score"]) == 0


def test_feedback_is_written_for_each_student(course):
    for student in (STUDENT, "bob"):
        feedback = course / "feedback" / student / A / f"{A}.html"
        assert feedback.exists() and "training_flops" in feedback.read_text()

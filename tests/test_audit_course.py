"""The whole course through ``python -m autograder audit``: every exercise's checks kill
every mutant of its solution that is not marked equivalent (with a reason), and grade its
known answers (``tests/answers``) right: each wrong one loses its points, each right one
keeps them. The fixture-notebook tests of the command itself are in ``test_audit.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from autograder.course import assignments, instructor_notebook
from autograder.spec import load_spec

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def audit(tmp_path_factory) -> tuple[subprocess.CompletedProcess, list[dict]]:
    report = tmp_path_factory.mktemp("audit") / "audit.json"
    run = subprocess.run([sys.executable, "-m", "autograder", "audit", "--json", str(report)],
                         capture_output=True, text=True, timeout=1200)
    assert report.exists(), run.stderr[-3000:]
    return run, json.loads(report.read_text())["exercises"]


def test_no_mutant_survives_unmarked_and_no_known_answer_is_misgraded(audit):
    run, exercises = audit
    failing = [e["exercise"] for e in exercises if not e["passed"]]
    assert not failing, run.stdout[-8000:]
    assert run.returncode == 0, run.stderr[-3000:]


def test_every_solution_cell_of_every_notebook_is_audited(audit):
    _, exercises = audit
    audited = {(e["notebook"], e["exercise"]) for e in exercises}
    expected = {(name, grade_id) for name in assignments()
                for grade_id in load_spec(instructor_notebook(name)).solution_ids}
    assert audited == expected
    assert all(len(e["mutants"]) >= 2 for e in exercises), \
        [e["exercise"] for e in exercises if len(e["mutants"]) < 2]


def test_every_exercise_has_known_wrong_and_right_answers(audit):
    _, exercises = audit
    for exercise in exercises:
        kinds = [a["kind"] for a in exercise["answers"]]
        assert "wrong" in kinds and "right" in kinds, exercise["exercise"]

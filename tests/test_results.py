"""A graded notebook as plain data (autograder.results): the scores, the JSON record and the
text a student or instructor reads. Each test says which broken ``results.py`` it catches."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.protocol import Status
from autograder.results import CaseResult, NotebookResult, TestResult, summarize

FAILED = "2 of 3 checks failed:\n- f(1) returned 3; expected 2\n- hidden check 1 failed"


def _result(**kwargs: object) -> NotebookResult:
    tests = [TestResult("q1", 1.0, 1.0, Status.PASSED, "All 2 checks passed."),
             TestResult("q2", 0.0, 2.5, Status.FAILED, FAILED,
                        [CaseResult(0, False, False, Status.FAILED, "3"),
                         CaseResult(1, True, True, Status.PASSED)]),
             TestResult("q3", 0.5, 1.0, Status.TIMEOUT, "not graded: cell 3 ran past 30 s "
                        + "x" * 80)]
    return NotebookResult("n.ipynb", "01_a", tests, student="ada", **kwargs)


def test_score_and_record_add_up_the_exercises(tmp_path: Path) -> None:
    """Kills: a score or maximum that is not the sum over exercises, and a JSON record with a
    field missing or holding another field's value."""
    result = _result(status=Status.TAMPERED, message="q2: its test cell was edited")
    assert (result.score, result.max_score) == (1.5, 4.5)
    path = tmp_path / "r.json"
    result.write_json(path)
    assert path.read_text(encoding="utf-8") == json.dumps(result.to_json(), indent=2) + "\n"
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "notebook": "n.ipynb", "assignment": "01_a", "student": "ada", "status": "tampered",
        "message": "q2: its test cell was edited", "score": 1.5, "max_score": 4.5,
        "tests": [{"grade_id": "q1", "points": 1.0, "max_points": 1.0, "status": "passed",
                   "message": "All 2 checks passed.", "cases": []},
                  {"grade_id": "q2", "points": 0.0, "max_points": 2.5, "status": "failed",
                   "message": FAILED, "cases": [
                       {"index": 0, "hidden": False, "passed": False, "status": "failed",
                        "value": "3"},
                       {"index": 1, "hidden": True, "passed": True, "status": "passed",
                        "value": None}]},
                  {"grade_id": "q3", "points": 0.5, "max_points": 1.0, "status": "timeout",
                   "message": "not graded: cell 3 ran past 30 s " + "x" * 80, "cases": []}]}


def test_table_shows_points_status_and_the_first_failure_of_each_exercise() -> None:
    """Kills: the table's columns, points or one-line summaries wrong, a long message not cut
    to the width (with an ellipsis), a plain graded run announcing a status, or the total
    left out."""
    lines = _result().table().splitlines()
    assert lines[0].split() == ["exercise", "points", "status", "message"]
    assert lines[2].split() == ["q1", "1/1", "passed", "All", "2", "checks", "passed."]
    assert lines[3].split("  ")[0] == "q2"
    assert "0/2.5" in lines[3] and lines[3].endswith("f(1) returned 3; expected 2 (+1 more)")
    assert lines[4].endswith("not graded: cell 3 ran past 30 s " + "x" * 38 + "…")
    assert len(lines[4].split("  ")[-1].strip()) == 72
    assert lines[5:] == ["score: 1.5/4.5"]
    assert all(line == line.rstrip() for line in lines)
    narrow = _result().table(width=20).splitlines()
    assert narrow[2].endswith("All 2 checks passed.")  # exactly 20: not cut
    assert narrow[4].endswith("not graded: cell 3 …")


def test_table_names_a_status_other_than_graded_and_its_reason() -> None:
    """Kills: the submission's status or message left out of the table when it matters."""
    lines = _result(status=Status.TIMEOUT, message="cell 3 ran past 30 s").table().splitlines()
    assert lines[-2:] == ["status: timeout (cell 3 ran past 30 s)", "score: 1.5/4.5"]
    lines = _result(status=Status.CRASHED).table().splitlines()
    assert lines[-2:] == ["status: crashed", "score: 1.5/4.5"]
    lines = _result(message="content was removed").table().splitlines()
    assert lines[-2:] == ["status: graded (content was removed)", "score: 1.5/4.5"]


def test_details_give_every_unpassed_exercise_its_whole_message() -> None:
    """Kills: details showing passed exercises, cutting messages, or dropping the status."""
    assert _result().details() == (
        "q2 (failed):\n  2 of 3 checks failed:\n  - f(1) returned 3; expected 2\n"
        "  - hidden check 1 failed\n\n"
        "q3 (timeout):\n  not graded: cell 3 ran past 30 s " + "x" * 80)
    quiet = NotebookResult("n", "a", [TestResult("q", 0.0, 1.0, Status.FAILED, "  \n")])
    assert quiet.details() == ""


def test_summary_is_the_first_failed_check_else_the_first_line() -> None:
    """Kills: a summary that is not the first failure, miscounts the others, or is blank."""
    assert summarize(FAILED) == "f(1) returned 3; expected 2 (+1 more)"
    assert summarize("x:\n- only one") == "only one"
    assert summarize("x:\n- a\n- b\n- c") == "a (+2 more)"
    assert summarize("\n\n  first  \nsecond") == "first"
    assert summarize("") == summarize(" \n ") == ""

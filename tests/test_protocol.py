"""What the grader and the sandbox say to each other (autograder.protocol).

The sandbox side holds student code, so whatever it sends may have any shape: each
``from_wire`` must give back exactly what was sent when the shape is right, and refuse
(None or ValueError) anything else, never pass a wrong-typed field on to the judge. Each
test says which broken parser it catches.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from autograder.protocol import (
    CaseOutcome,
    CellOutcome,
    EvaluateCases,
    Report,
    RunCell,
    Status,
    case_from_child,
    case_message,
    check_steps,
    step_from_wire,
)


def _wire(obj: Any) -> Any:
    """Through JSON and back, as on the real pipe."""
    return json.loads(json.dumps(obj.to_wire()))


# --- steps (grader -> zygote) -------------------------------------------------------------------

def test_steps_survive_the_wire() -> None:
    """Kills: a step read back as another kind or with its calls or source changed."""
    for step in [RunCell("x = 1\n%timeit x"), RunCell(""), EvaluateCases("q1", ("f(1)", "g()")),
                 EvaluateCases("q2", ())]:
        assert step_from_wire(_wire(step)) == step


@pytest.mark.parametrize("data", [
    None, [], "x = 1", {"cell": 1}, {"cell": None}, {"cell": "x", "extra": 1}, {},
    {"cases": "q1"}, {"calls": []}, {"cases": 1, "calls": []}, {"cases": "q1", "calls": "f()"},
    {"cases": "q1", "calls": ["f()", 2]}, {"cases": "q1", "calls": [], "cell": "x"},
])
def test_a_malformed_step_is_refused(data: Any) -> None:
    """Kills: a step parser that accepts a wrong type, a missing or an extra key."""
    with pytest.raises(ValueError, match="not a step"):
        step_from_wire(data)


def test_check_steps_refuses_anything_but_a_list_of_well_formed_steps() -> None:
    """Kills: a grader bug (a bad step) reaching the sandbox unnoticed."""
    check_steps([RunCell("x"), EvaluateCases("q", ("f()",))])
    check_steps([])
    with pytest.raises(TypeError, match="^steps must be a list of RunCell / EvaluateCases$"):
        check_steps((RunCell("x"),))
    with pytest.raises(ValueError, match="^step 1 is neither"):  # checked after a good one
        check_steps([EvaluateCases("q", ("f()",)), RunCell(b"x")])
    for number, bad in [(0, RunCell(b"x")), (1, EvaluateCases(1, ("f()",))),
                        (1, EvaluateCases("q", ["f()"])), (1, EvaluateCases("q", ("f()", 2))),
                        (1, {"cell": "x"})]:
        steps = [RunCell("x"), bad] if number else [bad]
        with pytest.raises(ValueError, match=f"^step {number} is neither"):
            check_steps(steps)


# --- outcomes (child -> zygote -> grader) -------------------------------------------------------

GOOD_CELL = {"cell": 3, "error": None, "seconds": 0.5, "timeout": False, "oom": False}


def test_cell_outcomes_survive_the_wire() -> None:
    """Kills: a cell's index, error, time or flags read back wrong."""
    for outcome in [CellOutcome(0, None, 0.25), CellOutcome(7, "raised KeyError: 'x'", 3,
                                                            timeout=True),
                    CellOutcome(2, "raised MemoryError", 1.5, oom=True)]:
        assert CellOutcome.from_wire(_wire(outcome)) == outcome


@pytest.mark.parametrize("change", [
    {"cell": True}, {"cell": 1.0}, {"cell": "3"}, {"error": 1}, {"error": ["x"]},
    {"seconds": "1"}, {"seconds": None}, {"seconds": True}, {"timeout": 0}, {"timeout": None},
    {"oom": 1}, {"oom": "false"}, {"extra": 1},
])
def test_a_malformed_cell_outcome_is_refused(change: dict[str, Any]) -> None:
    """Kills: a cell outcome with a wrong-typed field (a bool for an index, a string for a
    time or a flag) or an extra key accepted."""
    assert CellOutcome.from_wire({**GOOD_CELL, **change}) is None


def test_a_cell_outcome_missing_a_key_is_refused() -> None:
    assert CellOutcome.from_wire(GOOD_CELL) == CellOutcome(3, None, 0.5)
    for key in GOOD_CELL:
        assert CellOutcome.from_wire({k: v for k, v in GOOD_CELL.items() if k != key}) is None
    assert CellOutcome.from_wire([GOOD_CELL]) is None


def test_case_outcomes_survive_the_wire() -> None:
    """Kills: a value or error read back wrong, or the flags dropped or swapped."""
    for outcome in [CaseOutcome(value=[1, 2.5, "x"]), CaseOutcome(value=None),
                    CaseOutcome(value=0, timeout=True), CaseOutcome(value=0, oom=True),
                    CaseOutcome(error="raised X", oom=True),
                    CaseOutcome(error="timed out", timeout=True, oom=False)]:
        assert CaseOutcome.from_wire(_wire(outcome)) == outcome


@pytest.mark.parametrize("data", [
    None, [], {"value": 1}, {"value": 1, "timeout": False}, {"value": 1, "oom": False},
    {"value": 1, "timeout": 0, "oom": False}, {"value": 1, "timeout": False, "oom": None},
    {"error": 3, "timeout": False, "oom": False}, {"error": None, "timeout": False, "oom": False},
    {"value": 1, "error": "x", "timeout": False, "oom": False},
    {"timeout": False, "oom": False}, {"other": 1, "timeout": False, "oom": False},
])
def test_a_malformed_case_outcome_is_refused(data: Any) -> None:
    """Kills: an outcome with both a value and an error, neither, a non-string error or
    non-boolean flags accepted (the judge would score or mislabel it)."""
    assert CaseOutcome.from_wire(data) is None


def test_a_childs_case_line_is_taken_only_when_it_is_the_one_expected_next() -> None:
    """Kills: a case line for another exercise or another call number accepted (a student's
    code printing a forged line for a later case), or a line with bad flags or keys."""
    outcome = CaseOutcome(value=42, timeout=True)
    line = json.loads(json.dumps(case_message("q1", 2, outcome)))
    assert case_from_child(line, "q1", 2) == outcome
    assert case_from_child(line, "q2", 2) is None
    assert case_from_child(line, "q1", 1) is None
    assert case_from_child(line, "q1", 3) is None
    for change in [{"timeout": "yes"}, {"oom": 0}, {"extra": 1}, {"outcome": {"value": 1,
                                                                           "error": "x"}}]:
        assert case_from_child({**line, **change}, "q1", 2) is None
    assert case_from_child({k: v for k, v in line.items() if k != "oom"}, "q1", 2) is None
    assert case_from_child([line], "q1", 2) is None
    error = case_message("q1", 0, CaseOutcome(error="raised ValueError: no", oom=True))
    assert case_from_child(error, "q1", 0) == CaseOutcome(error="raised ValueError: no",
                                                          oom=True)


# --- the report (zygote -> grader) --------------------------------------------------------------

REPORT = Report(Status.TIMEOUT, "cell 2 ran past 30 s",
                [CellOutcome(0, None, 0.1), CellOutcome(1, "timed out", 30.0, timeout=True)],
                {"q1": [CaseOutcome(value=1), CaseOutcome(error="raised X")], "q2": []})


def test_a_report_survives_the_wire() -> None:
    """Kills: a report read back with another status, message, cells or cases."""
    assert Report.from_wire(_wire(REPORT)) == REPORT
    assert Report.from_wire(_wire(Report())) == Report()
    for status in (Status.OK, Status.OUT_OF_MEMORY, Status.CRASHED):
        assert Report.from_wire(_wire(Report(status))).status == status


def _broken(edit: str) -> dict[str, Any]:
    data = copy.deepcopy(_wire(REPORT))
    if edit == "graded":  # only the statuses of a run may come from the sandbox
        data["status"] = "graded"
    elif edit == "passed":
        data["status"] = "passed"
    elif edit == "message":
        data["message"] = None
    elif edit == "cells-dict":
        data["cells"] = {}
    elif edit == "cases-list":
        data["cases"] = []
    elif edit == "outcomes-dict":
        data["cases"]["q1"] = {"0": data["cases"]["q1"][0]}
    elif edit == "bad-cell":
        data["cells"][1]["seconds"] = "30"
    elif edit == "bad-case":
        data["cases"]["q1"][1]["error"] = 7
    elif edit == "bad-last-case":
        data["cases"]["q2"] = [{"value": 1}]
    elif edit == "extra-key":
        data["seconds"] = 1.0
    elif edit == "missing-key":
        del data["cases"]
    return data


@pytest.mark.parametrize("edit", ["graded", "passed", "message", "cells-dict", "cases-list",
                                  "outcomes-dict", "bad-cell", "bad-case", "bad-last-case",
                                  "extra-key", "missing-key"])
def test_a_malformed_report_is_refused_whole(edit: str) -> None:
    """Kills: a report parser that lets through a status no run has (a forged "passed"), a
    wrong-typed field, or a report with one bad cell or case (keeping the rest)."""
    assert Report.from_wire(_broken(edit)) is None
    assert Report.from_wire([]) is None

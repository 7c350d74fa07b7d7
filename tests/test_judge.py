"""Judging plain results outside the sandbox."""

import pytest

from autograder.course import instructor_notebook
from autograder.judge import judge_exercise, judge_submission
from autograder.plan import Plan
from autograder.spec import load_spec

A = "00_napkin_math"
G = "test_training_flops"


@pytest.fixture(scope="module")
def spec():
    return load_spec(instructor_notebook(A))


def _outcomes(spec, values):
    return [{"value": v} for v in values]


def test_all_right_scores_full_points(spec):
    check = spec.checks[G]
    expected = [c.expect for c in check.cases]
    result = judge_exercise(spec, G, _outcomes(spec, expected), {"status": "ok"})
    assert (result.points, result.status) == (check.points, "passed")


def test_visible_failure_says_what_went_wrong_hidden_failure_does_not_leak(spec):
    check = spec.checks[G]
    wrong = [c.expect / 3 for c in check.cases]  # forward-only FLOPs: 2ND
    result = judge_exercise(spec, G, _outcomes(spec, wrong), {"status": "ok"})
    assert result.points == 0 and result.status == "failed"
    assert "3× too small" in result.message
    for case, hidden in zip(check.cases, check.hidden):
        if hidden:
            assert case.call not in result.message
    assert "hidden check 1 failed" in result.message


def test_errors_timeouts_and_missing_results(spec):
    check = spec.checks[G]
    timeouts = [{"error": "timed out after 3 s"}] * len(check.cases)
    assert judge_exercise(spec, G, timeouts, {"status": "timeout"}).status == "timeout"
    oom = [{"error": "raised MemoryError: "}] * len(check.cases)
    assert judge_exercise(spec, G, oom, {"status": "out of memory"}).status == "out of memory"
    crashed = judge_exercise(spec, G, None, {"status": "crashed", "message": "killed by SIGSEGV"})
    assert crashed.status == "crashed" and "SIGSEGV" in crashed.message


def test_submission_status_prefers_runtime_problems_then_tampering(spec):
    plan = Plan(tampered={G: "its test cell was edited"})
    tests, status, message = judge_submission(spec, plan, {"status": "ok", "cases": {}})
    assert status == "tampered" and "edited" in message
    assert {t.grade_id: t.status for t in tests}[G] == "tampered"
    _, status, _ = judge_submission(spec, plan, {"status": "timeout", "message": "x"})
    assert status == "timeout"

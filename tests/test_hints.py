"""Hints: a case's known wrong values, each with the message a student who returns it reads.

The student's ``check`` (visible cases), the grader's message (``judge_exercise``: the test
cell's output, the record and the feedback) and the release all carry them; a hidden case's
hint never shows its call or expected value.
"""

from __future__ import annotations

import pytest

from lecture_utils.checks import Case, CheckFailed, check

FLOPS = Case("flops(1, 1)", 6.0, "2 forward + 4 backward",
             hints=((2.0, "forward pass only"), (4.0, "no weight gradients")))


def _failures(cases: list[Case], **functions) -> list[str]:
    with pytest.raises(CheckFailed) as raised:
        check(cases, dict(functions))
    return raised.value.failures


# --- the student's check ------------------------------------------------------------------------

def test_check_tells_the_hint_of_a_known_wrong_value_instead_of_the_comparison():
    """Kills: the hint ignored (the generic "expected 6" shown), the first hint told for the
    second's value, or the case's reason dropped."""
    assert _failures([FLOPS], flops=lambda n, d: 2 * n * d) == [
        "flops(1, 1) returned 2: forward pass only  [2 forward + 4 backward]"]
    assert _failures([FLOPS], flops=lambda n, d: 4 * n * d) == [
        "flops(1, 1) returned 4: no weight gradients  [2 forward + 4 backward]"]


def test_check_tells_the_comparison_for_a_value_no_hint_names():
    """Kills: a hint told for any wrong value, or for a value only near a known wrong one
    (outside the case's tolerance), or for an error."""
    assert _failures([FLOPS], flops=lambda n, d: 12 * n * d) == [
        "flops(1, 1) returned 12; expected 6 (2× too large)  [2 forward + 4 backward]"]
    assert _failures([FLOPS], flops=lambda n, d: 2.001 * n * d) == [
        "flops(1, 1) returned 2.001; expected 6  [2 forward + 4 backward]"]

    def broken(n, d):
        raise ValueError("2.0")

    assert _failures([FLOPS], flops=broken) == [
        "flops(1, 1) raised ValueError: 2.0  [2 forward + 4 backward]"]


def test_a_hint_matches_within_the_case_tolerance_and_passing_still_passes(capsys):
    loose = Case("f()", 1.0, rel=1e-3, hints=((0.5, "halved"),))
    assert _failures([loose], f=lambda: 0.5004) == ["f() returned 0.5004: halved"]
    check([loose], {"f": lambda: 1.0004})
    assert capsys.readouterr().out == "All 1 checks passed.\n"

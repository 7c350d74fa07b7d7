"""Hints: a case's known wrong values, each with the message a student who returns it reads.

The student's ``check`` (visible cases), the grader's message (``judge_exercise``: the test
cell's output, the record and the feedback) and the release all carry them; a hidden case's
hint never shows its call or expected value.
"""

from __future__ import annotations

import re

import pytest

from autograder.judge import judge_exercise
from autograder.protocol import CaseOutcome, Report, Status
from autograder.spec import AssignmentSpec, GradedCheck, SpecError, parse_cases, strip_hidden
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


# --- reading hints from a test cell -------------------------------------------------------------

CELL = '''check([
    Case("flops(1, 1)", 6.0, "2 forward + 4 backward",
         hints=((2.0, "forward pass only; 6.0 is 2 + 4"),)),
    ### BEGIN HIDDEN TESTS
    Case("flops(3, 7)", 126.0, "integer inputs",
         hints=((42.0, "forward pass only"), (84, "no weight gradients"))),
    Case("shape()", [512, 3], hints=(([3, 512], "rows and columns swapped: 3 before 2"),)),
    ### END HIDDEN TESTS
])'''


def test_hints_are_read_as_data_and_survive_the_release():
    """Kills: hints dropped by the parser, or lost from a visible case when the hidden ones
    are stripped (what ``python -m autograder release`` gives students)."""
    cases, hidden = parse_cases(CELL, "nb")
    assert hidden == (False, True, True)
    assert cases[0].hints == ((2.0, "forward pass only; 6.0 is 2 + 4"),)
    assert cases[1].hints == ((42.0, "forward pass only"), (84, "no weight gradients"))
    released, released_hidden = parse_cases(strip_hidden(CELL), "release")
    assert released == cases[:1] and released_hidden == (False,)
    assert "42.0" not in strip_hidden(CELL) and "swapped" not in strip_hidden(CELL)


@pytest.mark.parametrize(("hint", "problem"), [
    ('(126.0, "right after all")', "passes the case"),
    ('(126.00000000001, "within the tolerance")', "passes the case"),
    ('(42.0, "the answer is 126")', "shows '126'"),
    ('(42.0, "flops(3, 7) should be 6 times 21")', "shows 'flops"),
    ('(42.0, "126.0 expected")', "shows '126"),
    ('(42.0, "")', "pair"),
    ('(42.0,)', "pair"),
    ('(42.0, 7)', "pair"),
])
def test_a_hint_that_never_shows_or_gives_a_hidden_value_away_is_rejected(hint, problem):
    """Kills: a hint whose value passes (its message could never be read), and a hidden
    case's hint quoting its expected value or its call, reaching students."""
    source = ('check([Case("f()", 1, "x"),\n### BEGIN HIDDEN TESTS\n'
              f'Case("flops(3, 7)", 126.0, hints=({hint},)),\n### END HIDDEN TESTS\n])')
    with pytest.raises(SpecError, match=re.escape(problem)):
        parse_cases(source, "nb")


def test_what_a_hidden_hint_may_say():
    """A hidden hint may use numbers that are not its expected value (12.6, 1260, 2126, the
    short items of an expected list), and a visible hint may quote its own expected value."""
    fine = ('check([Case("g()", 6, hints=((2, "6, not 2"),)),\n### BEGIN HIDDEN TESTS\n'
            'Case("flops(3, 7)", 126.0, hints=((42.0, "not 12.6, 1260 or 2126"),)),\n'
            'Case("shape()", [512, 3], hints=(([3, 512], "3 before 2"),)),\n'
            '### END HIDDEN TESTS\n])')
    assert len(parse_cases(fine, "nb")[0]) == 3
    with pytest.raises(SpecError, match="shows '512'"):
        parse_cases(fine.replace("3 before 2", "512 first"), "nb")


# --- the grader's message -----------------------------------------------------------------------

def _spec(source: str = CELL) -> AssignmentSpec:
    cases, hidden = parse_cases(source, "nb")
    return AssignmentSpec("nb", checks={"t": GradedCheck("t", 1.0, cases, hidden,
                                                         strip_hidden(source), {})})


def _message(values: list) -> str:
    outcomes = [CaseOutcome(value=v) for v in values]
    return judge_exercise(_spec(), "t", outcomes, Report(Status.OK)).message


def test_the_grader_tells_hints_for_visible_and_hidden_cases():
    """Kills: the grader's message without the hint (visible or hidden), a hidden case's hint
    told with its number missing or wrong, or the hint of a case that passed."""
    assert _message([2.0, 42.0, [3, 512]]) == (
        "3 of 3 checks failed:\n"
        "- flops(1, 1) returned 2: forward pass only; 6.0 is 2 + 4  [2 forward + 4 backward]\n"
        "- hidden check 1 failed: forward pass only  [integer inputs]\n"
        "- hidden check 2 failed: rows and columns swapped: 3 before 2")
    assert _message([6.0, 84, [512, 3]]) == (
        "1 of 3 checks failed:\n- hidden check 1 failed: no weight gradients  [integer inputs]")


def test_a_hidden_case_without_a_matching_hint_says_only_that_it_failed():
    """Kills: an error or an unhinted value on a hidden case told anything beyond its
    number and reason (the comparison would quote the expected value)."""
    outcomes = [CaseOutcome(value=6.0), CaseOutcome(error="raised ValueError: 42.0"),
                CaseOutcome(value=[1, 2])]
    message = judge_exercise(_spec(), "t", outcomes, Report(Status.OK)).message
    assert message == ("2 of 3 checks failed:\n- hidden check 1 failed  [integer inputs]\n"
                       "- hidden check 2 failed")

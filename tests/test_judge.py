"""Judging plain results outside the sandbox."""

import pytest
from giveaways import WRONG_NUMBER, hidden_giveaways

import autograder.judge
from autograder.course import assignments, instructor_notebook
from autograder.judge import judge_exercise, judge_submission
from autograder.plan import Plan
from autograder.protocol import CaseOutcome, Report, Status
from autograder.results import CaseResult, TestResult
from autograder.spec import AssignmentSpec, GradedCheck, load_spec, parse_cases, strip_hidden

A = "00_napkin_math"
G = "test_training_flops"


@pytest.fixture(scope="module")
def spec():
    return load_spec(instructor_notebook(A))


def _outcomes(spec, values):
    return [CaseOutcome(value=v) for v in values]


OK = Report(Status.OK)


def test_all_right_scores_full_points(spec):
    check = spec.checks[G]
    expected = [c.expect for c in check.cases]
    result = judge_exercise(spec, G, _outcomes(spec, expected), OK)
    assert (result.points, result.status) == (check.points, "passed")


def test_visible_failure_says_what_went_wrong_hidden_failure_does_not_leak(spec):
    check = spec.checks[G]
    wrong = [c.expect * 1000 for c in check.cases]  # a slip no hint names: kFLOPs
    result = judge_exercise(spec, G, _outcomes(spec, wrong), OK)
    assert result.points == 0 and result.status == "failed"
    assert "1000× too large" in result.message
    for case, hidden in zip(check.cases, check.hidden):
        if hidden:
            assert case.call not in result.message
    assert "hidden check 1 failed" in result.message


def test_errors_timeouts_and_missing_results(spec):
    check = spec.checks[G]
    # the status comes from the runner's flags (its alarm fired, an allocation failed)
    timeouts = [CaseOutcome(error="timed out after 3 s", timeout=True)] * len(check.cases)
    assert judge_exercise(spec, G, timeouts, Report(Status.TIMEOUT)).status == "timeout"
    oom = [CaseOutcome(error="raised MemoryError: ", oom=True)] * len(check.cases)
    assert judge_exercise(spec, G, oom, Report(Status.OUT_OF_MEMORY)).status == "out of memory"
    own = [CaseOutcome(error="raised TimeoutError: MemoryError")] * len(check.cases)
    assert judge_exercise(spec, G, own, OK).status == "failed"  # error text decides nothing
    crashed = judge_exercise(spec, G, None, Report(Status.CRASHED, "killed by SIGSEGV"))
    assert crashed.status == "crashed" and "SIGSEGV" in crashed.message


def test_submission_status_prefers_runtime_problems_then_tampering(spec):
    plan = Plan(tampered={G: "its test cell was edited"})
    tests, status, message = judge_submission(spec, plan, OK)
    assert status == "tampered" and "edited" in message
    assert {t.grade_id: t.status for t in tests}[G] == "tampered"
    _, status, _ = judge_submission(spec, plan, Report(Status.TIMEOUT, "x"))
    assert status == "timeout"


# --- hidden checks never show their expected value ----------------------------------------------

SECRET = '''check([
    Case("f(1)", 2, "doubles"),
    ### BEGIN HIDDEN TESTS
    Case("f(0.5)", 424242.5, "halves"),
    Case("g('x')", "hidden-answer-string"),
    Case("h()", [31337, 27182]),
    Case("k()", True, "a bool"),
    ### END HIDDEN TESTS
])'''


def test_failed_hidden_checks_show_neither_their_call_nor_their_expected_value():
    """Kills: a hidden failure's message carrying ``case.expect`` (``... failed (expected
    {case.expect})``) or the whole visible-style message (call, result and expected value).
    The earlier test above checks only the calls."""
    cases, hidden = parse_cases(SECRET, "secret")
    check = GradedCheck("t", 1.0, cases, hidden, strip_hidden(SECRET), {})
    spec = AssignmentSpec("secret", checks={"t": check})
    got = [3, 1.0, "nope", [1, 2], False]
    message = judge_exercise(spec, "t", _outcomes(spec, got), OK).message
    assert message.startswith("5 of 5 checks failed:")
    assert "f(1) returned 3; expected 2" in message  # visible: everything
    for number, why in enumerate(["  [halves]", "", "", "  [a bool]"], start=1):
        assert f"hidden check {number} failed{why}\n" in message + "\n"
    for secret in ["424242", "hidden-answer-string", "31337", "27182", "f(0.5)", "g('x')",
                   "h()", "k()", "True"]:
        assert secret not in message, secret


@pytest.mark.parametrize("assignment", assignments())
def test_no_hidden_value_of_the_course_reaches_a_failure_message(assignment):
    """The same, for every real exercise answered with a number no case expects."""
    spec = load_spec(instructor_notebook(assignment))
    giveaways = hidden_giveaways(spec)
    assert len(giveaways) >= 2 * len(spec.checks)
    for grade_id, check in spec.checks.items():
        outcomes = [CaseOutcome(value=WRONG_NUMBER)] * len(check.cases)
        result = judge_exercise(spec, grade_id, outcomes, OK)
        assert result.points == 0 and f"hidden check {sum(check.hidden)} failed" in result.message
        assert [g for g in giveaways if g in result.message] == [], grade_id


# --- exercises whose checks did not all run ------------------------------------------------------

def test_an_exercise_whose_last_check_never_ran_scores_nothing(spec):
    """Kills: ``len(outcomes) < len(check.cases) - 1`` (or ``<=`` / ``>``) in judge_exercise:
    the worker died during the last check, every earlier one passed, and the exercise must not
    score full marks for a check that never ran."""
    check = spec.checks[G]
    assert len(check.cases) >= 2
    all_but_last = _outcomes(spec, [c.expect for c in check.cases][:-1])
    died = Report(Status.CRASHED, "the worker was killed by SIGKILL")
    result = judge_exercise(spec, G, all_but_last, died)
    assert (result.points, result.status) == (0.0, "crashed")
    assert result.message == "not graded: the worker was killed by SIGKILL"
    # the run itself ended OK (say, the report was cut short): still not graded, as crashed
    result = judge_exercise(spec, G, all_but_last, OK)
    assert (result.points, result.status) == (0.0, "crashed")
    assert result.message == "not graded: the notebook stopped before this test ran"
    # every check ran: graded as usual
    everything = _outcomes(spec, [c.expect for c in check.cases])
    assert judge_exercise(spec, G, everything, died).points == check.points


def _secret_spec():
    cases, hidden = parse_cases(SECRET, "secret")
    return AssignmentSpec("secret", checks={"t": GradedCheck("t", 2.5, cases, hidden,
                                                             strip_hidden(SECRET), {})})


RIGHT = [2, 424242.5, "hidden-answer-string", [31337, 27182], True]


def test_every_result_names_its_exercise_and_its_points():
    """Kills: a result with another (or no) grade id, maximum or score, a run's own status
    (timeout, out of memory) replaced by "crashed" when its cases were cut short, or a pass
    without its summary; what formgrader and the CSV show per exercise."""
    spec = _secret_spec()
    passed = judge_exercise(spec, "t", _outcomes(spec, RIGHT), OK)
    every_case = [CaseResult(i, i > 0, True, Status.PASSED) for i in range(5)]
    assert passed == TestResult("t", 2.5, 2.5, Status.PASSED, "All 5 checks passed.",
                                every_case)
    failed = judge_exercise(spec, "t", _outcomes(spec, [3, *RIGHT[1:]]), OK)
    assert failed == TestResult("t", 0.0, 2.5, Status.FAILED,
                                "1 of 5 checks failed:\n- f(1) returned 3; expected 2  [doubles]",
                                [CaseResult(0, False, False, Status.FAILED, "3"),
                                 *every_case[1:]])
    # a later failure after a passed case is still found (every case is judged)
    late = judge_exercise(spec, "t", _outcomes(spec, [*RIGHT[:4], False]), OK)
    assert late.message == "1 of 5 checks failed:\n- hidden check 4 failed  [a bool]"
    for status, message in [(Status.TIMEOUT, "cell 3 ran past 30 s"),
                            (Status.OUT_OF_MEMORY, "")]:
        cut = judge_exercise(spec, "t", _outcomes(spec, RIGHT[:2]), Report(status, message))
        reason = message or "the notebook stopped before this test ran"
        assert cut == TestResult("t", 0.0, 2.5, status, f"not graded: {reason}")


def test_an_error_is_reported_as_raised_and_an_uncomparable_value_asks_for_a_human(
        monkeypatch):
    """Kills: a case's error dropped (an exception judged as its value, None, which might
    even match), and a value the grader cannot compare (the comparison raised) passing or
    losing its explanation."""
    spec = _secret_spec()
    raised = [CaseOutcome(error="raised ValueError: no"), *_outcomes(spec, RIGHT[1:])]
    result = judge_exercise(spec, "t", raised, OK)
    assert result.message == ("1 of 5 checks failed:\n- f(1) raised ValueError: no"
                              "  [doubles]")
    cases, hidden = parse_cases('check([Case("f()", None), Case("g()", 2.0)])', "t")
    nothing = AssignmentSpec("n", checks={"t": GradedCheck("t", 1.0, cases, hidden, "", {})})
    real = autograder.judge.judge

    def judge_failing_on_g(case, outcome):
        if case.call == "g()":
            raise OverflowError("int too large to convert to float")
        return real(case, outcome)

    monkeypatch.setattr(autograder.judge, "judge", judge_failing_on_g)
    errors = [CaseOutcome(error="raised KeyError: 'x'"), CaseOutcome(value=2.0)]
    result = judge_exercise(nothing, "t", errors, OK)
    assert (result.points, result.status) == (0.0, "failed")
    assert result.message == (
        "2 of 2 checks failed:\n- f() raised KeyError: 'x'\n- g() returned a value the grader "
        "could not compare (OverflowError); if you think it is right, ask for a manual grade")


def test_a_submission_is_judged_exercise_by_exercise_from_its_own_outcomes(spec):
    """Kills: judge_submission giving an exercise another's outcomes (or none), a tampered
    exercise scoring or losing its explanation, tampering reasons run together, or a plain
    graded submission getting a message."""
    right = {g: _outcomes(spec, [c.expect for c in check.cases])
             for g, check in spec.checks.items()}
    tests, status, message = judge_submission(spec, Plan(), Report(cases=right))
    assert (status, message) == ("graded", "")
    assert [(t.grade_id, t.points, t.max_points, t.status) for t in tests] == [
        (g, c.points, c.points, "passed") for g, c in spec.checks.items()]
    first, second = list(spec.checks)[:2]
    plan = Plan(tampered={first: "its test cell was edited", second: "its test cell is gone"})
    tests, status, message = judge_submission(spec, plan, Report(cases=right))
    assert status == "tampered"
    assert message == f"{first}: its test cell was edited; {second}: its test cell is gone"
    assert tests[0] == TestResult(
        first, 0.0, spec.checks[first].points, Status.TAMPERED,
        "its test cell was edited; this exercise scores 0. Restore the test cell from the "
        "released notebook and submit again.")
    assert [t.status for t in tests[2:]] == ["passed"] * (len(tests) - 2)

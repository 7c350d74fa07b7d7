"""Turn the sandbox's report into per-exercise scores and messages.

This runs in the grader, never in the sandbox: it compares plain values against the
instructor's expected values with ``lecture_utils.checks.judge``. Hidden checks are reported
without their expression or expected value, so feedback never reveals them; a result that
matches a known wrong value (a case's hint) is told the hint's message instead. The report has
been validated (``protocol.Report.from_wire``) but its values are the student's; statuses
come from the flags the runner set, never from error text. Each case's verdict is kept
(``results.CaseResult``) with the student's value when it was wrong, as bounded text, and
never the expected value. Imports ``autograder.plan``, ``protocol``, ``results``, ``spec``
and ``lecture_utils.checks``.
"""

from __future__ import annotations

from autograder.plan import Plan
from autograder.protocol import CaseOutcome, Report, Status
from autograder.results import CASE_ERROR, CASE_NOT_COMPARABLE, CaseResult, TestResult, short_value
from autograder.spec import AssignmentSpec
from lecture_utils.checks import Outcome, failure_report, hint_for, judge, passed_line
from lecture_utils.i18n import N_, tr, tr_format

NOT_REACHED = N_("the notebook stopped before this test ran")


def _status_of(outcomes: list[CaseOutcome]) -> Status:
    """Why an exercise failed: a check ran out of time or memory, else plain failure."""
    if any(outcome.timeout for outcome in outcomes):
        return Status.TIMEOUT
    if any(outcome.oom for outcome in outcomes):
        return Status.OUT_OF_MEMORY
    return Status.FAILED


def _case_result(index: int, hidden: bool, outcome: CaseOutcome, passed: bool,
                 comparable: bool) -> CaseResult:
    """What a record keeps of one case: its verdict, and the student's value only if wrong."""
    if passed:
        return CaseResult(index, hidden, True, Status.PASSED)
    if outcome.timeout or outcome.oom:
        status = Status.TIMEOUT if outcome.timeout else Status.OUT_OF_MEMORY
        return CaseResult(index, hidden, False, status)
    if outcome.error is not None:
        return CaseResult(index, hidden, False, CASE_ERROR)
    status = Status.FAILED if comparable else CASE_NOT_COMPARABLE
    return CaseResult(index, hidden, False, status, short_value(outcome.value))


def judge_exercise(spec: AssignmentSpec, grade_id: str, outcomes: list[CaseOutcome] | None,
                   report: Report) -> TestResult:
    """One exercise's result from its case outcomes (None: never evaluated)."""
    check = spec.checks[grade_id]
    if outcomes is None or len(outcomes) < len(check.cases):
        status = report.status if report.status != Status.OK else Status.CRASHED
        # the sandbox's reasons are English (N_ templates): the reader's language here
        reason = tr(report.message or NOT_REACHED)
        return TestResult(grade_id, 0.0, check.points, status,
                          tr_format("not graded: {reason}", reason=reason))
    failures, hidden_number, cases = [], 0, []
    for index, (case, hidden, raw) in enumerate(zip(check.cases, check.hidden, outcomes)):
        comparable = True
        try:
            message = judge(case, Outcome(value=raw.value, error=raw.error))
        except Exception as error:  # noqa: BLE001 - an odd value fails its case, nothing more
            comparable = False
            message = case.call + " " + tr_format(
                "returned a value the grader could not compare ({error}); if you think it "
                "is right, ask for a manual grade", error=type(error).__name__)
        cases.append(_case_result(index, hidden, raw, message is None, comparable))
        if hidden:
            hidden_number += 1
        if message is None:
            continue
        if hidden:
            # a hint is the instructor's text (spec.py keeps the expected value out of it);
            # the comparison is never shown, it would quote the expected value
            hint = hint_for(case, raw.value) if raw.error is None else None
            why = f"  [{tr(case.why)}]" if case.why else ""
            failed = (tr_format("hidden check {number} failed: {hint}", number=hidden_number,
                                hint=hint) if hint else
                      tr_format("hidden check {number} failed", number=hidden_number))
            failures.append(failed + why)
        else:
            failures.append(message)
    if not failures:
        return TestResult(grade_id, check.points, check.points, Status.PASSED,
                          passed_line(len(check.cases)), cases)
    return TestResult(grade_id, 0.0, check.points, _status_of(outcomes[:len(check.cases)]),
                      failure_report(failures, len(check.cases)), cases)


def judge_submission(spec: AssignmentSpec, plan: Plan,
                     report: Report) -> tuple[list[TestResult], Status, str]:
    """Per-exercise results, the submission's status, and a message explaining that status."""
    tests = []
    for grade_id, check in spec.checks.items():
        if grade_id in plan.tampered:
            tests.append(TestResult(
                grade_id, 0.0, check.points, Status.TAMPERED,
                tr_format("{what}; this exercise scores 0. Restore the test cell from the "
                          "released notebook and submit again.",
                          what=tr(plan.tampered[grade_id]))))
        else:
            tests.append(judge_exercise(spec, grade_id, report.cases.get(grade_id), report))
    if report.status != Status.OK:  # English, as the record keeps it; shown translated
        return tests, report.status, report.message
    if plan.tampered:  # (each reason alone is an N_ text: it is translated before joining)
        return tests, Status.TAMPERED, "; ".join(
            f"{g}: {tr(why)}" for g, why in plan.tampered.items())
    return tests, Status.GRADED, ""

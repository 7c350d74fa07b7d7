"""Turn the sandbox's plain results into per-exercise scores and messages.

This runs in the grader, never in the sandbox: it compares plain values against the
instructor's expected values with ``lecture_utils.checks.judge``. Hidden checks are reported
without their expression or expected value, so feedback never reveals them.
"""

from __future__ import annotations

from typing import Any

from autograder.plan import Plan
from autograder.results import FAILED, PASSED, TAMPERED, TestResult
from autograder.spec import AssignmentSpec
from lecture_utils.checks import Outcome, failure_report, judge

OK = "ok"


def _status_of(errors: list[str]) -> str:
    if any(e.startswith("timed out") or "TimeoutError" in e for e in errors):
        return "timeout"
    if any("MemoryError" in e or "allocate memory" in e for e in errors):
        return "out of memory"
    return FAILED


def judge_exercise(spec: AssignmentSpec, grade_id: str, outcomes: list[dict[str, Any]] | None,
                   report: dict[str, Any]) -> TestResult:
    check = spec.checks[grade_id]
    if outcomes is None or len(outcomes) < len(check.cases):
        status = report.get("status") if report.get("status") not in (None, OK) else "crashed"
        reason = report.get("message") or "the notebook stopped before this test ran"
        return TestResult(grade_id, 0.0, check.points, status,
                          f"not graded: {reason}")
    failures, errors, hidden_number = [], [], 0
    for case, hidden, raw in zip(check.cases, check.hidden, outcomes):
        outcome = Outcome(value=raw.get("value"), error=raw.get("error"))
        if outcome.error:
            errors.append(outcome.error)
        message = judge(case, outcome)
        if hidden:
            hidden_number += 1
        if message is None:
            continue
        if hidden:
            why = f"  [{case.why}]" if case.why else ""
            failures.append(f"hidden check {hidden_number} failed{why}")
        else:
            failures.append(message)
    if not failures:
        return TestResult(grade_id, check.points, check.points, PASSED,
                          f"All {len(check.cases)} checks passed.")
    return TestResult(grade_id, 0.0, check.points, _status_of(errors),
                      failure_report(failures, len(check.cases)))


def judge_submission(spec: AssignmentSpec, plan: Plan,
                     report: dict[str, Any]) -> tuple[list[TestResult], str, str]:
    """Per-exercise results, the submission's status, and a message explaining that status."""
    tests = []
    for grade_id, check in spec.checks.items():
        if grade_id in plan.tampered:
            tests.append(TestResult(
                grade_id, 0.0, check.points, TAMPERED,
                f"{plan.tampered[grade_id]}; this exercise scores 0. Restore the test cell "
                "from the released notebook and submit again."))
        else:
            tests.append(judge_exercise(spec, grade_id, report.get("cases", {}).get(grade_id),
                                        report))
    if report.get("status", OK) != OK:
        return tests, report["status"], report.get("message", "")
    if plan.tampered:
        return tests, TAMPERED, "; ".join(f"{g}: {why}" for g, why in plan.tampered.items())
    return tests, "graded", ""

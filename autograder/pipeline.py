"""One submission through the grader: plan -> run in the sandbox -> judge.

``check`` (one reader's notebook) and ``grade``'s local pool call ``grade_submission``;
``grade`` on Dask (``autograder.cluster``) calls its parts apart: ``planned`` and ``judged``
where the answer key is, ``run_plan`` on a Dask worker.
Trusts the answer key (``spec``) and its caller; the submission is read as data by
``plan`` and run only in the ``Worker``. Imports ``autograder.plan``, ``judge``,
``protocol``, ``results``, ``sandbox.worker`` and ``spec``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.judge import judge_submission
from autograder.limits import Limits
from autograder.plan import InvalidSubmission, Plan, plan_submission
from autograder.protocol import Report, Status
from autograder.results import NotebookResult, TestResult
from autograder.sandbox.worker import Worker
from autograder.spec import AssignmentSpec
from lecture_utils.i18n import use_language


@dataclass
class Submission:
    student: str
    folder: Path
    path: Path | None  # None: no notebook at all
    note: str = ""  # e.g. graded under another file name


def needs_full_run(report: Report) -> bool:
    """A name undefined in the fast run may live in a demo cell the fast plan skipped."""
    return any("NameError" in (outcome.error or "")
               for outcomes in report.cases.values() for outcome in outcomes)


def planned(spec: AssignmentSpec, submission: Submission, assignment: str,
            limits: Limits | None = None) -> Plan | NotebookResult:
    """What the sandbox should run for ``submission``, or, for one that cannot be run, its
    result (0 points, saying why). Reads the submission as data; runs nothing; never raises
    (an invalid file is the submission's fault, anything else the grader's)."""
    try:
        if submission.path is None:
            raise InvalidSubmission(submission.note or "no notebook was submitted")
        return plan_submission(submission.path, spec, limits)
    except InvalidSubmission as problem:
        return scored_nothing(spec, submission, assignment, Status.INVALID, str(problem),
                              test_message=f"not graded: {problem}")
    except Exception as error:  # noqa: BLE001 - a grader bug costs this submission only
        return grader_failure(spec, submission, assignment, error)


def run_plan(worker: Worker, plan: Plan) -> Report:
    """The plan's fast steps in ``worker``'s sandbox, then its full steps if the fast run
    left a name undefined. The report holds plain values only: no verdicts are made here
    (on a Dask worker this runs far from the answer key)."""
    report = worker.run(plan.fast_steps)
    if needs_full_run(report) and plan.full_steps != plan.fast_steps:
        report = worker.run(plan.full_steps)
    return report


def judged(spec: AssignmentSpec, submission: Submission, assignment: str, plan: Plan,
           report: Report) -> NotebookResult:
    """The verdict on a run's report, made against the answer key (where the grader runs)."""
    result = NotebookResult(notebook=str(submission.path), assignment=assignment,
                            student=submission.student)
    with use_language(plan.language):  # feedback in the language the student reads
        result.tests, result.status, result.message = judge_submission(spec, plan, report)
    if submission.note:
        result.message = "; ".join(m for m in (submission.note, result.message) if m)
    return result


def grade_submission(worker: Worker, spec: AssignmentSpec, submission: Submission,
                     assignment: str) -> NotebookResult:
    """The graded result of one submission (an invalid one scores 0, with why), in this
    process: plan, run in ``worker``, judge."""
    plan = planned(spec, submission, assignment, worker.limits)
    if isinstance(plan, NotebookResult):
        return plan
    return judged(spec, submission, assignment, plan, run_plan(worker, plan))


def scored_nothing(spec: AssignmentSpec, submission: Submission, assignment: str,
                   status: Status, message: str, *, test_message: str | None = None,
                   final: bool = True) -> NotebookResult:
    """A submission that was not judged: every exercise 0 points, with ``status`` and why."""
    return NotebookResult(
        notebook=str(submission.path or submission.folder), assignment=assignment,
        student=submission.student, status=status, message=message, final=final,
        tests=[TestResult(g, 0.0, c.points, status, test_message or message)
               for g, c in spec.checks.items()])


def grader_failure(spec: AssignmentSpec, submission: Submission, assignment: str,
                   error: BaseException | str) -> NotebookResult:
    """What a bug in the grader (or a wait it gave up) costs: this submission, marked
    "grader error" and not final, so that a rerun grades it again."""
    if isinstance(error, BaseException):
        error = f"{type(error).__name__}: {str(error)[:500]}"
    message = f"internal grader error, please report it: {error}; rerun grade to try again"
    return scored_nothing(spec, submission, assignment, Status.GRADER_ERROR, message,
                          final=False)

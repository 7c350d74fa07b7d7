"""Plant bugs in an instructor notebook's solutions and grade each with the notebook's checks.

One warm worker per notebook: the cells a submission needs (imports, definitions, the
solutions) run once in the worker's zygote, in notebook order, and at each solution cell
the worker forks one child per mutant from that state. A child runs the mutated cell, the
cells between it and its test cell, and the test cell's cases, exactly as a submission's
are run (same child, same limits, same ``judge_exercise``), so a mutant costs a fork and
its own cells, not a kernel. Mutants that pass every check run a second time, with the
probes, to tell a surviving bug from a mutant that computes the same thing.

Known answers (``WRONG`` and ``RIGHT`` lists per solution grade_id, in
``ANSWERS_DIR/<assignment>.py``) are graded the same way, as whole replacement cells.

Trusts the instructor notebook and the answers files (instructor code, though a mutant may
still loop or allocate: each runs under the worker's time and memory limits). Imports
``autograder.audit``'s other modules, ``judge``, ``plan``-free parts of ``spec``, ``protocol``
and ``sandbox.worker``.
"""

from __future__ import annotations

import re
import reprlib
import runpy
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.audit.marks import Probe, declared_probes, generated_probes, mark_for, read_marks
from autograder.audit.mutants import mutants_of
from autograder.audit.report import AnswerFinding, ExerciseAudit, MutantFinding, Verdict
from autograder.judge import judge_exercise
from autograder.limits import Limits
from autograder.notebook import cell_source, nbgrader_meta, read_notebook
from autograder.pipeline import needs_full_run
from autograder.protocol import CaseOutcome, EvaluateCases, Report, RunCell, Status, Step
from autograder.results import TestResult
from autograder.sandbox.worker import Worker
from autograder.spec import AssignmentSpec, load_spec, needed_for_grading
from lecture_utils.checks import Case, Outcome, judge

_SHORT = reprlib.Repr()  # a value in a report line: a few items, a few levels
_SHORT.maxlist, _SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 4, 2, 60, 60
PROBES = "__audit_probes__"  # the grade_id the probes are evaluated under
# A mutant is instructor code with one slip: far tighter limits than a student's suffice
# (a loop bound pushed past its end may still spin or allocate).
AUDIT_LIMITS = Limits(cell_seconds=5.0, submission_seconds=60.0, memory_bytes=2 * 2**30)


@dataclass
class _Exercise:
    solution: str  # grade_id
    test: str
    source: str
    tail: list[Step]  # after the solution cell, up to and including its test's cases
    skipped: list[Step]  # the cells before it the fast plan leaves out (demos), in order


def known_answers(folder: Path | None, assignment: str) -> dict[str, dict[str, list[str]]]:
    """``{solution grade_id: {"wrong": [...], "right": [...]}}`` from
    ``folder/<assignment>.py`` (its ``WRONG`` and ``RIGHT`` dicts); empty when absent."""
    if folder is None or not (folder / f"{assignment}.py").is_file():
        return {}
    names = runpy.run_path(str(folder / f"{assignment}.py"))
    table: dict[str, dict[str, list[str]]] = {}
    for kind in ("WRONG", "RIGHT"):
        for grade_id, sources in names.get(kind, {}).items():
            table.setdefault(grade_id, {"wrong": [], "right": []})[kind.lower()] = list(sources)
    return table


def _steps(path: Path, spec: AssignmentSpec, full: bool) -> list[tuple[str | None, Step]]:
    """The notebook as the grader's plan runs it: (solution grade_id or None, step)."""
    steps: list[tuple[str | None, Step]] = []
    for cell in read_notebook(path).cells:
        if cell.get("cell_type") != "code":
            continue
        source, grade_id = cell_source(cell), nbgrader_meta(cell).get("grade_id")
        if grade_id in spec.checks:
            steps.append((None, EvaluateCases(grade_id, tuple(
                c.call for c in spec.checks[grade_id].cases))))
        elif grade_id in spec.solution_ids:
            steps.append((grade_id, RunCell(source)))
        elif full or needed_for_grading(source):
            steps.append((None, RunCell(source)))
    return steps


def _exercises(steps: list[tuple[str | None, Step]], spec: AssignmentSpec) -> list[_Exercise]:
    exercises = []
    for i, (solution, step) in enumerate(steps):
        if solution is None or not isinstance(step, RunCell):
            continue
        later = [s for _, s in steps[i + 1:]]
        tests = [s.grade_id for s in later if isinstance(s, EvaluateCases)]
        test = f"test_{solution}" if f"test_{solution}" in tests else (tests or [None])[0]
        if test is None:
            continue  # a solution no check reads: nothing to audit
        tail: list[Step] = []
        for s in later:
            if isinstance(s, RunCell):
                tail.append(s)
            elif s.grade_id == test:
                tail.append(s)
                break
        skipped = [s for g, s in steps[:i] if g is None and isinstance(s, RunCell)
                   and not needed_for_grading(s.source)]
        exercises.append(_Exercise(solution, test, step.source, tail, skipped))
    return exercises


def _first_failure(result: TestResult) -> str:
    lines = [line.removeprefix("- ") for line in result.message.splitlines()[1:]]
    return (lines or [result.message])[0][:300]


def _error_name(error: str) -> str:
    match = re.search(r"raised (\w+)", error)
    return match.group(1) if match else error.split(":")[0]


def _differs(probe: Probe, solution: CaseOutcome, mutant: CaseOutcome) -> str | None:
    """How the mutant's value on ``probe`` differs from the solution's, or None."""
    if solution.error is not None:
        if mutant.error is None:
            return f"the solution raises ({solution.error[:120]}), the mutant returns " \
                   f"{_SHORT.repr(mutant.value)}"
        if _error_name(solution.error) != _error_name(mutant.error):
            return f"the solution {solution.error[:120]}, the mutant {mutant.error[:120]}"
        return None
    message = judge(Case(probe.call, solution.value, rel=probe.rel, abs=probe.abs),
                    Outcome(value=mutant.value, error=mutant.error))
    if message is None:
        return None
    return (f"{probe.call}: the solution gives {_SHORT.repr(solution.value)}; the mutant "
            f"{message.removeprefix(probe.call).strip()[:300]}")


class NotebookAudit:
    """Audits one instructor notebook in one warm worker."""

    def __init__(self, path: Path, *, answers: Path | None, limits: Limits = AUDIT_LIMITS,
                 sandbox: bool = True, slot: int = 0, only: set[str] | None = None) -> None:
        self.path = path
        self.spec = load_spec(path)
        self.assignment = path.stem
        self.answers = known_answers(answers, self.assignment)
        self.limits, self.sandbox, self.slot, self.only = limits, sandbox, slot, only

    def run(self) -> list[ExerciseAudit]:
        """Every exercise's findings, in notebook order."""
        steps = _steps(self.path, self.spec, full=True)
        audits = []
        with Worker(self.limits, sandbox=self.sandbox, slot=self.slot, warmable=True) as worker:
            done = 0
            for exercise in _exercises(steps, self.spec):
                at = next(i for i, (g, _) in enumerate(steps) if g == exercise.solution)
                # the zygote takes what the grader's fast plan runs: imports, definitions
                warm = [s for g, s in steps[done:at] if isinstance(s, RunCell)
                        and (g is not None or needed_for_grading(s.source))]
                done = at
                if warm:
                    report = worker.warm(warm)
                    broken = [c.error for c in report.cells if c.error]
                    if report.status != Status.OK or broken:
                        raise AuditError(f"{self.path}: a cell before {exercise.solution} "
                                         f"fails: {(broken or [report.message])[0]}")
                if self.only is None or exercise.solution in self.only:
                    audits.append(self._exercise(worker, exercise))
        return audits

    # -- one exercise
    def _grade(self, worker: Worker, source: str, exercise: _Exercise,
               probes: list[Probe] = ()) -> tuple[TestResult, Report]:
        steps = [RunCell(source), *exercise.tail]
        if probes:
            steps.append(EvaluateCases(PROBES, tuple(p.call for p in probes)))
        report = worker.run(steps)
        if needs_full_run(report):  # as the grader does: run the skipped demo cells too
            report = worker.run([*exercise.skipped, *steps])
        return judge_exercise(self.spec, exercise.test, report.cases.get(exercise.test),
                              report), report

    def _exercise(self, worker: Worker, exercise: _Exercise) -> ExerciseAudit:
        started = time.monotonic()
        check = self.spec.checks[exercise.test]
        marks = read_marks(exercise.source)
        probes = declared_probes(marks, check) + generated_probes(check)
        audit = ExerciseAudit(self.assignment, exercise.solution, exercise.test,
                              checks=len(check.cases), probes=len(probes),
                              problems=list(marks.problems))
        result, report = self._grade(worker, exercise.source, exercise, probes)
        if result.points < result.max_points:
            audit.problems.append(f"the solution itself fails its checks in the audit: "
                                  f"{_first_failure(result)}")
            audit.seconds = round(time.monotonic() - started, 2)
            return audit
        expected = report.cases.get(PROBES, [])
        used = set()
        for mutant in mutants_of(exercise.source):
            result, _ = self._grade(worker, mutant.source, exercise)
            finding = MutantFinding(mutant.key, mutant.operator, mutant.line, mutant.diff,
                                    Verdict.KILLED)
            if result.points < result.max_points:
                finding.detail = f"{result.status}: {_first_failure(result)}"
            else:
                finding.verdict, finding.detail = self._compare(worker, mutant.source,
                                                                exercise, probes, expected)
                mark = mark_for(marks, mutant.key, list(mutant.removed))
                if mark is not None:
                    used.add(mark[0])
                    reason = mark[1]
                    if finding.verdict == Verdict.LIKELY_EQUIVALENT:
                        finding.verdict, finding.reason = Verdict.EQUIVALENT, reason
                    else:
                        finding.detail += " (it is marked equivalent, but it is not)"
            audit.mutants.append(finding)
        marked = {*marks.equivalent, *(f"line: {line}" for line in marks.lines)}
        for key in sorted(marked - used):
            audit.problems.append(f"the equivalence mark '{key}' names no surviving mutant "
                                  "(the solution changed, or a check now kills it): remove it")
        for kind, sources in self.answers.get(exercise.solution, {}).items():
            for index, source in enumerate(sources):
                result, _ = self._grade(worker, source, exercise)
                full = result.points >= result.max_points
                ok = full if kind == "right" else not full
                audit.answers.append(AnswerFinding(kind, index, ok,
                                                   result.message.splitlines()[0][:300]
                                                   if full else _first_failure(result)))
        audit.seconds = round(time.monotonic() - started, 2)
        return audit

    def _compare(self, worker: Worker, source: str, exercise: _Exercise,
                 probes: list[Probe], expected: list[CaseOutcome]) -> tuple[Verdict, str]:
        if not probes:
            return Verdict.LIKELY_EQUIVALENT, "passes every check; the exercise has no probes"
        _, report = self._grade(worker, source, exercise, probes)
        got = report.cases.get(PROBES, [])
        for probe, solution, mutant in zip(probes, expected, got):
            difference = _differs(probe, solution, mutant)
            if difference:
                return Verdict.SURVIVED, f"passes every check; differs on {difference}"
        if len(got) < len(probes):
            return Verdict.SURVIVED, ("passes every check; stopped before probe "
                                      f"{probes[len(got)].call} ({report.message})")
        return Verdict.LIKELY_EQUIVALENT, \
            f"passes every check and agrees with the solution on all {len(probes)} probes"


class AuditError(RuntimeError):
    """The notebook cannot be audited as it stands (a cell it needs fails)."""

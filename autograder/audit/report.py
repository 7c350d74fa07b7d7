"""An audit's findings as plain data: per exercise, what happened to each mutant and each
known answer; a text report for the instructor and a JSON document for machines.

Trusts its inputs (the audit made them); imports ``lecture_utils.tables``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum

from lecture_utils.tables import text_table


class Verdict(StrEnum):
    KILLED = "killed"  # a check failed: the exercise lost its points
    SURVIVED = "survived"  # passed every check, and differs from the solution on a probe
    LIKELY_EQUIVALENT = "likely equivalent"  # passed every check, agreed on every probe
    EQUIVALENT = "equivalent"  # likely equivalent, and the instructor marked it so


@dataclass
class MutantFinding:
    key: str
    operator: str
    line: int
    diff: str
    verdict: Verdict
    detail: str = ""  # killed: the first failure; survived: the probe that tells it apart
    reason: str = ""  # equivalent: the instructor's reason


@dataclass
class AnswerFinding:
    kind: str  # "wrong" (must lose the exercise's points) or "right" (must keep them)
    index: int  # its place in the answers file's list for the exercise
    ok: bool
    detail: str  # what the checks said


@dataclass
class ExerciseAudit:
    notebook: str
    exercise: str  # the solution cell's grade_id
    test: str  # its test cell's grade_id
    checks: int = 0  # cases, visible and hidden
    probes: int = 0
    seconds: float = 0.0
    mutants: list[MutantFinding] = field(default_factory=list)
    answers: list[AnswerFinding] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # the audit could not be trusted

    def count(self, verdict: Verdict) -> int:
        return sum(m.verdict == verdict for m in self.mutants)

    @property
    def unmarked(self) -> list[MutantFinding]:
        """Survivors the instructor has not accounted for (including likely equivalent)."""
        return [m for m in self.mutants
                if m.verdict in (Verdict.SURVIVED, Verdict.LIKELY_EQUIVALENT)]

    @property
    def score(self) -> float | None:
        """Killed / (made − marked equivalent); None when nothing could be killed."""
        live = len(self.mutants) - self.count(Verdict.EQUIVALENT)
        return self.count(Verdict.KILLED) / live if live else None

    @property
    def passed(self) -> bool:
        return not self.unmarked and not self.problems and all(a.ok for a in self.answers)

    def to_json(self) -> dict:
        return {**asdict(self), "score": self.score, "passed": self.passed,
                "counts": {str(v): self.count(v) for v in Verdict}}


def _percent(score: float | None) -> str:
    return "-" if score is None else f"{100 * score:.0f}%"


def summary_table(audits: list[ExerciseAudit]) -> str:
    """One row per exercise: mutants made, killed, survived, equivalent, score."""
    header = ["notebook", "exercise", "mutants", "killed", "survived", "equivalent",
              "score", "answers", ""]
    rows = [[a.notebook, a.exercise, str(len(a.mutants)), str(a.count(Verdict.KILLED)),
             str(len(a.unmarked)), str(a.count(Verdict.EQUIVALENT)), _percent(a.score),
             f"{sum(x.ok for x in a.answers)}/{len(a.answers)}",
             "ok" if a.passed else "FAIL"] for a in audits]
    return text_table([header, *rows], "llrrrrrrl", rule=True)


def details(audits: list[ExerciseAudit]) -> str:
    """Every problem, unmarked survivor and misgraded known answer, with what to do."""
    blocks = []
    for audit in audits:
        lines = []
        for problem in audit.problems:
            lines.append(f"  problem: {problem}")
        for answer in audit.answers:
            if not answer.ok:
                what = "still scores full marks" if answer.kind == "wrong" else "loses points"
                lines.append(f"  known {answer.kind} answer #{answer.index} {what}: "
                             f"{answer.detail}")
        for mutant in audit.unmarked:
            lines.append(f"  {mutant.verdict}: {mutant.key}")
            lines.extend(f"      {line}" for line in mutant.diff.splitlines())
            lines.append(f"      {mutant.detail}")
        if lines:
            blocks.append("\n".join([f"{audit.notebook} / {audit.exercise}:", *lines]))
    if not blocks:
        return ""
    advice = (
        "For each survivor: add a Case to the test cell that fails for it (the probe above is "
        "a good input) with a `why` naming the mistake; or, if it computes the same thing, "
        "mark it in the solution cell, between the solution markers:\n"
        "    # audit-equivalent: KEY -- why it is the same function")
    return "\n\n".join([*blocks, advice])


def to_json(audits: list[ExerciseAudit]) -> dict:
    return {"passed": all(a.passed for a in audits),
            "exercises": [a.to_json() for a in audits]}

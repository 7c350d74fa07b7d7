"""``python -m autograder audit``: how strong is each exercise's test?

It plants bugs in the solutions (``mutants``), grades each with the notebook's own checks
in a warm worker (``runner``), tells surviving bugs from harmless changes with probes and
the instructor's marks (``marks``), and reports per exercise (``report``). ``audit`` runs
several notebooks side by side, one worker each.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.audit.report import ExerciseAudit
from autograder.audit.runner import AUDIT_LIMITS, AuditError, NotebookAudit
from autograder.limits import Limits

__all__ = ["AuditError", "audit"]


def audit(notebooks: list[Path], *, answers: Path | None = None, jobs: int = 2,
          limits: Limits = AUDIT_LIMITS, sandbox: bool = True,
          only: set[str] | None = None) -> list[ExerciseAudit]:
    """Audit each instructor notebook (``jobs`` at a time); findings in notebook order."""
    def one(job: tuple[int, Path]) -> list[ExerciseAudit]:
        slot, path = job
        return NotebookAudit(path, answers=answers, limits=limits, sandbox=sandbox,
                             slot=slot, only=only).run()

    # the biggest notebooks first, so that the last one to start is a short one
    order = sorted(enumerate(notebooks), key=lambda job: -job[1].stat().st_size)
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        results = dict(zip((i for i, _ in order),
                           pool.map(one, [(n % max(1, jobs), p) for n, (_, p) in
                                          enumerate(order)])))
    return [finding for i in range(len(notebooks)) for finding in results[i]]

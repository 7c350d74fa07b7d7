"""Check a submission against its assignment and plan what the sandbox should run.

Nothing here executes student code. The submission is read as JSON, its graded test cells
are compared with the released ones (an edited, deleted or duplicated test cell is
tampering), and its code cells become an ordered list of steps for the sandbox: cells to
run, and at each test cell's place the instructor's case expressions to evaluate there.

Two plans are made. The fast one skips instructor cells the student left unchanged, unless
they only import or define things, so a submission costs about as much as the student's own
cells. The full one runs every code cell, and is used when the fast one leaves a name
undefined (a solution that relied on a demo cell's variable).

Trusts the answer key (``spec``), not the submission. Imports ``autograder.notebook``,
``limits``, ``protocol`` and ``spec``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autograder.limits import Limits
from autograder.notebook import (
    InvalidSubmission,
    cell_source,
    grade_id,
    read_submission_and_language,
)
from autograder.protocol import EvaluateCases, RunCell, Step
from autograder.spec import AssignmentSpec, needed_for_grading, normalise
from lecture_utils.i18n import N_

__all__ = ["InvalidSubmission", "Plan", "plan_submission"]


@dataclass
class Plan:
    fast_steps: list[Step] = field(default_factory=list)
    full_steps: list[Step] = field(default_factory=list)
    tampered: dict[str, str] = field(default_factory=dict)  # grade_id → what was done
    language: str = "en"  # the notebook's: its messages are judged in it


def plan_submission(path: Path, spec: AssignmentSpec, limits: Limits | None = None) -> Plan:
    """Read the submission at ``path`` (within ``limits``' caps on what is read): its
    tampered test cells and the two plans."""
    cells, language = read_submission_and_language(path, limits)
    plan = Plan(language=language)
    ours = set(spec.checks) | spec.solution_ids
    grade_ids = [g for g in map(grade_id, cells) if g]
    if not ours & set(grade_ids):
        raise InvalidSubmission(
            f"none of its cells are graded cells of {spec.name}; is it the right notebook?")

    counts = Counter(grade_ids)
    id_counts = Counter(c.get("id") for c in cells if c.get("id"))
    for gid, check in spec.checks.items():
        mine = [c for c in cells if grade_id(c) == gid]
        if not mine:
            plan.tampered[gid] = N_("its test cell was deleted")
        elif counts[gid] > 1:
            plan.tampered[gid] = N_("its test cell appears more than once")
        elif mine[0].get("cell_type") != "code" or \
                normalise(cell_source(mine[0])) != normalise(check.student_source):
            plan.tampered[gid] = N_("its test cell was edited")
        elif id_counts[mine[0].get("id")] > 1:
            plan.tampered[gid] = N_("its test cell's id is duplicated in the notebook")

    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source, gid = cell_source(cell), grade_id(cell)
        if gid in spec.checks:
            if gid not in plan.tampered:
                step = EvaluateCases(gid, tuple(c.call for c in spec.checks[gid].cases))
                plan.fast_steps.append(step)
                plan.full_steps.append(step)
            continue
        plan.full_steps.append(RunCell(source))
        original = spec.instructor_cells.get(cell.get("id", ""))
        unchanged = original is not None and normalise(original) == normalise(source)
        if not unchanged or needed_for_grading(source):
            plan.fast_steps.append(RunCell(source))
    return plan

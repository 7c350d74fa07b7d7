"""Check a submission against its assignment and plan what the sandbox should run.

Nothing here executes student code. The submission is read as JSON, its graded test cells
are compared with the released ones (an edited, deleted or duplicated test cell is
tampering), and its code cells become an ordered list of steps for the sandbox: cells to
run, and at each test cell's place the instructor's case expressions to evaluate there.

Two plans are made. The fast one skips instructor cells the student left unchanged, unless
they only import or define things, so a submission costs about as much as the student's own
cells. The full one runs every code cell, and is used when the fast one leaves a name
undefined (a solution that relied on a demo cell's variable).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.spec import AssignmentSpec, needed_for_grading, normalise

# A notebook is read whole into the grader (outside the sandbox), so its size is capped. Ours
# are ~0.2 MiB with outputs; only output piled up in cells (a print loop, hundreds of plots)
# comes near this, and clearing outputs fixes it.
MAX_NOTEBOOK_BYTES = 64 * 2**20


class InvalidSubmission(ValueError):
    """The file cannot be graded as this assignment's notebook."""


@dataclass
class Plan:
    fast_steps: list[dict[str, Any]] = field(default_factory=list)
    full_steps: list[dict[str, Any]] = field(default_factory=list)
    tampered: dict[str, str] = field(default_factory=dict)  # grade_id → what was done


def read_cells(path: Path) -> list[dict[str, Any]]:
    """The raw cells of a notebook file, or InvalidSubmission saying what is wrong."""
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        raise InvalidSubmission(
            f"the file is {size / 2**20:.0f} MiB, over the {MAX_NOTEBOOK_BYTES // 2**20} MiB a "
            "notebook may be (its outputs, most likely); clear them (Edit > Clear Outputs of "
            "All Cells), save, and submit again")
    try:
        data = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InvalidSubmission(f"not valid notebook JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise InvalidSubmission("not a Jupyter notebook (no list of cells)")
    cells = [c for c in data["cells"] if isinstance(c, dict)]
    if not cells:
        raise InvalidSubmission("the notebook is empty (it has no cells)")
    return cells


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _grade_id(cell: dict[str, Any]) -> str | None:
    meta = cell.get("metadata")
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None


def plan_submission(path: Path, spec: AssignmentSpec) -> Plan:
    cells = read_cells(path)
    plan = Plan()
    ours = set(spec.checks) | spec.solution_ids
    grade_ids = [g for g in map(_grade_id, cells) if g]
    if not ours & set(grade_ids):
        raise InvalidSubmission(
            f"none of its cells are graded cells of {spec.name}; is it the right notebook?")

    counts = Counter(grade_ids)
    id_counts = Counter(c.get("id") for c in cells if c.get("id"))
    for grade_id, check in spec.checks.items():
        mine = [c for c in cells if _grade_id(c) == grade_id]
        if not mine:
            plan.tampered[grade_id] = "its test cell was deleted"
        elif counts[grade_id] > 1:
            plan.tampered[grade_id] = "its test cell appears more than once"
        elif mine[0].get("cell_type") != "code" or \
                normalise(_source(mine[0])) != normalise(check.student_source):
            plan.tampered[grade_id] = "its test cell was edited"
        elif id_counts[mine[0].get("id")] > 1:
            plan.tampered[grade_id] = "its test cell's id is duplicated in the notebook"

    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source, grade_id = _source(cell), _grade_id(cell)
        if grade_id in spec.checks:
            if grade_id not in plan.tampered:
                step = {"cases": grade_id, "calls": [c.call for c in spec.checks[grade_id].cases]}
                plan.fast_steps.append(step)
                plan.full_steps.append(step)
            continue
        plan.full_steps.append({"cell": source})
        original = spec.instructor_cells.get(cell.get("id", ""))
        unchanged = original is not None and normalise(original) == normalise(source)
        if not unchanged or needed_for_grading(source):
            plan.fast_steps.append({"cell": source})
    return plan

"""An assignment's answer key as data: what ``run_autograder`` judges with, and nothing more.

The key holds what ``autograder.spec.load_spec`` reads from the instructor notebook: each
graded test cell's source (its ``Case`` literals, hidden ones included, which the grader reads
with ``ast`` and never runs), the ids of the solution cells (not their sources), the
instructor's demo cells (released to students as they are) and the released markdown. The
solutions themselves are not in it: a zip that leaks out gives away the hidden checks (as a
stock nbgrader release would give away the visible ones), not the answers.

``dump`` checks that ``load`` gives back exactly the spec ``check`` uses, so the zip judges
as ``check`` does. Trusts the instructor notebook; imports ``autograder.spec`` and nbformat.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat

from autograder.notebook import nbgrader_meta
from autograder.spec import AssignmentSpec, GradedCheck, load_spec, parse_cases, strip_hidden

FORMAT = 1  # bumped when the layout below changes


class KeyFormatError(ValueError):
    """The key file is not one this grader wrote."""


def dump(instructor_notebook: Path) -> dict[str, Any]:
    """The key of ``instructor_notebook`` as JSON data (raises if it would judge differently)."""
    spec = load_spec(instructor_notebook)
    notebook = nbformat.read(instructor_notebook, as_version=4)
    sources = {nbgrader_meta(cell).get("grade_id"): cell.source for cell in notebook.cells
               if cell.cell_type == "code" and nbgrader_meta(cell).get("grade")
               and not nbgrader_meta(cell).get("solution")}
    data = {
        "format": FORMAT,
        "assignment": spec.name,
        "fingerprint": spec.fingerprint,
        "checks": [{"grade_id": gid, "points": check.points, "source": sources[gid],
                    "metadata": check.metadata} for gid, check in spec.checks.items()],
        "solution_ids": sorted(spec.solution_ids),
        "instructor_cells": spec.instructor_cells,
        "released_ids": spec.released_ids,
        "released_meta": spec.released_meta,
        "released_markdown": sorted(spec.released_markdown),
    }
    if load(json.loads(json.dumps(data))) != spec:  # what the zip will read back
        raise ValueError(f"{instructor_notebook}: its key does not survive JSON unchanged")
    return data


def load(data: Any) -> AssignmentSpec:
    """The spec a key holds; ``KeyFormatError`` if it is not a key of this format."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise KeyFormatError(f"not an answer key of format {FORMAT}")
    spec = AssignmentSpec(name=data["assignment"], fingerprint=data["fingerprint"])
    for check in data["checks"]:
        gid = check["grade_id"]
        cases, hidden = parse_cases(check["source"], f"key {spec.name}, {gid}")
        spec.checks[gid] = GradedCheck(
            grade_id=gid, points=float(check["points"]), cases=cases, hidden=hidden,
            student_source=strip_hidden(check["source"]), metadata=check["metadata"])
    spec.solution_ids = set(data["solution_ids"])
    spec.instructor_cells = dict(data["instructor_cells"])
    spec.released_ids = dict(data["released_ids"])
    spec.released_meta = dict(data["released_meta"])
    spec.released_markdown = set(data["released_markdown"])
    return spec


def read(path: Path) -> AssignmentSpec:
    return load(json.loads(path.read_text(encoding="utf-8")))

"""What would give a hidden check away, as text a student could read; for leak tests.

A hidden case's call and expected value must never appear in what a student sees (``check``'s
output and ``--json``, the grade record, the autograded notebook, the feedback page). Only
spellings that are not public anyway are looked for: the released notebook and the visible
cases' values (``expected 128``) may legitimately share digits with a hidden value, and a hidden
case's ``why`` is shown on purpose.
"""

from __future__ import annotations

import numbers
from typing import Any

import nbformat

from autograder.course import RELEASE
from autograder.notebook import read_notebook
from autograder.spec import AssignmentSpec

# An answer no case expects: every case fails with a plain number, so a failure message
# would have the expected value beside it (``returned 7777777; expected ...``) if it leaked.
WRONG_NUMBER = 7777777


def spellings(value: Any) -> set[str]:
    """The ways a value can be written in a message: repr, str, ``%g`` (``_describe``)."""
    if value is None or isinstance(value, bool):
        return set()
    if isinstance(value, numbers.Real):
        return {repr(value), str(value), f"{value:.6g}", f"{value:g}"}
    if isinstance(value, str):
        return {value, repr(value)}
    if isinstance(value, (list, tuple)):
        found = {repr(list(value)), repr(tuple(value))}
        for item in value:
            found |= spellings(item)
        return found
    return {repr(value)}


def hidden_giveaways(spec: AssignmentSpec, public: str = "") -> set[str]:
    """Hidden cases' calls and expected values, as strings found in none of: ``public``, the
    released notebook, the visible cases (calls and values) and the hidden cases' reasons."""
    visible, hidden = set(), set()
    for check in spec.checks.values():
        for case, is_hidden in zip(check.cases, check.hidden):
            if is_hidden:
                hidden |= {case.call, *spellings(case.expect)}
                public += "\n" + case.why
            else:
                visible |= {case.call, *spellings(case.expect)}
    path = RELEASE / spec.name / f"{spec.name}.ipynb"
    public += path.read_text(encoding="utf-8")
    public += "\n".join(c.source for c in read_notebook(path).cells)
    public += "\n".join(visible) + str(WRONG_NUMBER)
    return {s for s in hidden if len(s) >= 4 and s not in public}


def answering_everything_with(assignment: str, value: Any) -> nbformat.NotebookNode:
    """The released notebook with every exercise's stub made to return ``value``."""
    notebook = read_notebook(RELEASE / assignment / f"{assignment}.ipynb")
    stubs = 0
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            assert "raise NotImplementedError()" in cell.source, cell.source
            cell.source = cell.source.replace("raise NotImplementedError()", f"return {value!r}")
            stubs += 1
    assert stubs
    return notebook

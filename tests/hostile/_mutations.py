"""Hypothesis strategies for hostile submissions: a real right answer, then broken.

A mutation is drawn as data (``Mutation``) and applied to a submission folder by
``Mutation.write``. It changes the file in one of the ways a hostile student can: a value
anywhere in the notebook's JSON replaced by another of any type, size or depth; the bytes
cut, spliced or replaced; the notebook replaced by something that is not a file; extra
files or a timestamp beside it; and the folder's own name. Used by the property tests
(tests/test_hostile_property.py) and their long run (benchmarks/hostile_property.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from hostile._kit import A, solution

SOLUTION_TEXT = json.dumps(solution())

# values of every JSON type, small and large, odd numbers and odd text included
_leaves = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([-1, 0, 2**63, -(2**63) - 1, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["\udc80", "\x00", "\u202e", "<script>alert(1)</script>",
                     "<img src='http://localhost:8888/logout'>", "x" * 100_000]),
)
json_values = st.recursive(
    _leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)
deep_values = st.integers(min_value=50, max_value=3000).map(
    lambda depth: json.loads("[" * min(depth, 900) + "]" * min(depth, 900)))
folder_names = st.text(
    st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
    min_size=1, max_size=60).filter(lambda n: n not in (".", "..")
                                    and len(n.encode()) < 200)


@dataclass
class Mutation:
    """One hostile change to a right answer (``kind`` says which, the rest how)."""

    kind: str
    # where in the JSON: ints are taken modulo what is there, strings are keys (made if new)
    path: list[Any] = field(default_factory=list)
    value: Any = None  # what goes there
    cut: int = 0  # a byte offset
    blob: bytes = b""  # bytes spliced in
    extra: str = ""  # an extra file's name

    def write(self, submitted: Path, student: str) -> None:
        folder = submitted / student / A
        folder.mkdir(parents=True)
        notebook = folder / f"{A}.ipynb"
        text = SOLUTION_TEXT.encode()
        if self.kind in ("value", "field"):
            data = json.loads(SOLUTION_TEXT)
            _replace(data, self.path, self.value)
            # ensure_ascii: lone surrogates and NaN are written as JSON escapes and words
            text = json.dumps(data).encode()
        elif self.kind == "cut":
            text = text[: self.cut % (len(text) + 1)]
        elif self.kind == "splice":
            at = self.cut % (len(text) + 1)
            text = text[:at] + self.blob + text[at:]
        if self.kind == "fifo":
            os.mkfifo(notebook)
        elif self.kind == "directory":
            notebook.mkdir()
        elif self.kind != "missing":
            notebook.write_bytes(text)
        if self.extra:
            (folder / self.extra).write_bytes(self.blob or b"{}")


def _replace(data: Any, path: list[Any], value: Any) -> None:
    """Put ``value`` at ``path``: each step a key or an index, taken modulo what is there;
    the walk stops where there is nothing further to go into."""
    for step in path[:-1]:
        child = _child(data, step)
        if child is None:
            break
        data = child
    last = path[-1] if path else 0
    if isinstance(last, str):
        if isinstance(data, dict):
            data[last] = value
    elif isinstance(data, dict) and data:
        data[sorted(data)[last % len(data)]] = value
    elif isinstance(data, list) and data:
        data[last % len(data)] = value


def _child(data: Any, step: int | str) -> Any:
    if isinstance(step, str):
        child = data.get(step) if isinstance(data, dict) else None
    elif isinstance(data, dict) and data:
        child = data[sorted(data)[step % len(data)]]
    elif isinstance(data, list) and data:
        child = data[step % len(data)]
    else:
        return None
    return child if isinstance(child, (dict, list)) else None


# the fields the grader reads, or nbformat checks: most hostile values are aimed at them
CELL_FIELDS = (["cell_type"], ["id"], ["source"], ["source", 0], ["metadata"],
               ["metadata", "nbgrader"], ["metadata", "nbgrader", "grade_id"],
               ["metadata", "nbgrader", "points"], ["metadata", "nbgrader", "grade"],
               ["metadata", "nbgrader", "solution"], ["execution_count"], ["outputs"],
               ["outputs", 0], ["attachments"])
TOP_FIELDS = (["cells"], ["metadata"], ["nbformat"], ["nbformat_minor"],
              ["metadata", "kernelspec"], ["metadata", "language_info"])
GRADED_CELLS = [i for i, c in enumerate(json.loads(SOLUTION_TEXT)["cells"])
                if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")]


@st.composite
def mutations(draw: Any) -> Mutation:
    kind = draw(st.sampled_from(["field", "field", "field", "field", "value", "value", "cut",
                                 "splice", "fifo", "directory", "missing", "extra"]))
    if kind == "field":
        value = draw(st.one_of(json_values, deep_values))
        if draw(st.booleans()):
            return Mutation(kind, path=list(draw(st.sampled_from(TOP_FIELDS))), value=value)
        cell = draw(st.one_of(st.sampled_from(GRADED_CELLS), st.integers(0, 10_000)))
        return Mutation(kind, path=["cells", cell, *draw(st.sampled_from(CELL_FIELDS))],
                        value=value)
    if kind == "extra":  # a right answer, with a file beside it
        return Mutation("extra", extra=draw(st.sampled_from(
            ["timestamp.txt", "other.ipynb", f"{A}.ipynb.bak", "notes.txt"])),
            blob=draw(st.binary(max_size=64)))
    return Mutation(
        kind,
        path=draw(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1,
                           max_size=6)),
        value=draw(st.one_of(json_values, deep_values)),
        cut=draw(st.integers(min_value=0, max_value=10**7)),
        blob=draw(st.binary(max_size=32)),
    )

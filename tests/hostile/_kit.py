"""What the hostile submissions are made of: the right answer as raw JSON, to be broken."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.submissions import perfect_submission

A = "01_tensors_and_memory"
FULL = 7  # tensor_bytes 1 + bytes_for 2 + storage_bytes 2 + adamw_bytes_per_param 2
INVALID = "invalid notebook"


@dataclass(frozen=True)
class Expect:
    status: str
    score: float
    says: tuple[str, ...] = ()  # words the record's message must hold


def solution() -> dict[str, Any]:
    """The perfect submission as plain JSON (worth FULL)."""
    return json.loads(json.dumps(perfect_submission(A)))


def cell(notebook: dict[str, Any], grade_id: str) -> dict[str, Any]:
    return next(c for c in notebook["cells"]
                if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)


def folder(submitted: Path, student: str | bytes) -> Path:
    """``submitted/<student>/<A>/``, made (a bytes student is a name that is not UTF-8)."""
    base = Path(student.decode("utf-8", "surrogateescape")) if isinstance(student, bytes) \
        else Path(student)
    path = submitted / base / A
    path.mkdir(parents=True)
    return path


def submit(submitted: Path, student: str | bytes, notebook: Any = None, *,
           text: str | None = None, raw: bytes | None = None) -> Path:
    """Write the notebook (JSON of ``notebook``, or ``text``, or ``raw`` bytes)."""
    path = folder(submitted, student) / f"{A}.ipynb"
    if raw is None:
        raw = (text if text is not None else json.dumps(notebook)).encode("utf-8",
                                                                          "surrogatepass")
    path.write_bytes(raw)
    return path


def with_answer(source: str) -> dict[str, Any]:
    """The solution with ``tensor_bytes`` (1 point) replaced by ``source``."""
    notebook = solution()
    cell(notebook, "tensor_bytes")["source"] = source
    return notebook


def with_raw_metadata(raw: str) -> str:
    """The solution's JSON text with ``raw`` (JSON text, or what passes for it) as the value
    of a key in the notebook's metadata."""
    notebook = solution()
    notebook["metadata"]["x"] = "@@RAW@@"
    return json.dumps(notebook).replace('"@@RAW@@"', raw, 1)

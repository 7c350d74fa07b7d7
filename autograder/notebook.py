"""Reading notebook files, the one place it is done, and the cell helpers everyone uses.

Trusts nothing in the file: every way a notebook can be broken becomes an exception with a
message for the person concerned. Imports only the standard library, ``nbformat`` and
``autograder.limits``. Two entry points share the file reading: ``read_notebook`` for a
reader's own ``check`` (a friendly message naming the file; nbformat's objects) and
``read_cells`` for grading (the raw cells as JSON, size-capped, the message the record
keeps).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat

from autograder.limits import NOTEBOOK_BYTES


class NotebookError(ValueError):
    """A file that cannot be graded; the message names the file and what to do."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


class InvalidSubmission(ValueError):
    """The file cannot be graded as this assignment's notebook."""


def nbgrader_meta(cell: Any) -> dict[str, Any]:
    """A cell's nbgrader metadata, ``{}`` when it has none (or a broken one)."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbgrader if isinstance(nbgrader, dict) else {}


def grade_id(cell: Any) -> str | None:
    """A cell's nbgrader grade_id, or None."""
    return nbgrader_meta(cell).get("grade_id")


def grade_ids(notebook: Any) -> list[str]:
    """The nbgrader grade_ids of a notebook's cells, in order."""
    return [g for g in map(grade_id, notebook["cells"]) if g]


def cell_source(cell: dict[str, Any]) -> str:
    """A cell's source as one string (the JSON may hold a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, turning every way it can be broken into a NotebookError."""
    if not path.exists():
        raise NotebookError(path, "no such file")
    if not path.is_file():
        raise NotebookError(path, "is not a file; give the path of an .ipynb notebook")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise NotebookError(path, "is not a text file, so not a Jupyter notebook") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        if path.suffix != ".ipynb":
            raise NotebookError(path, "is not a Jupyter notebook (those are .ipynb files); "
                                "give the path of your saved notebook") from None
        raise NotebookError(
            path,
            f"is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
            "the file is damaged - restore it from a checkpoint or re-download it",
        ) from None
    if isinstance(data, dict) and isinstance(data.get("nbformat"), int) and data["nbformat"] < 4:
        raise NotebookError(path, f"is an old (version {data['nbformat']}) notebook; open it in "
                            "JupyterLab and save it, which converts it to version 4")
    if not isinstance(data, dict) or "cells" not in data or "nbformat" not in data:
        raise NotebookError(path, "is JSON but not a Jupyter notebook (no 'cells'/'nbformat')")
    try:
        return nbformat.reads(text, as_version=4)
    except Exception as error:
        raise NotebookError(path, f"is not a readable notebook: {error}") from None


def read_cells(path: Path) -> list[dict[str, Any]]:
    """The raw cells of a submitted notebook, or InvalidSubmission saying what is wrong."""
    size = path.stat().st_size
    if size > NOTEBOOK_BYTES:  # it is read whole, outside the sandbox
        raise InvalidSubmission(
            f"the file is {size / 2**20:.0f} MiB, over the {NOTEBOOK_BYTES // 2**20} MiB a "
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

"""Where the course's notebooks live, and which assignment a given notebook belongs to."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
RELEASE = REPO / "notebooks"
NBGRADER_CONFIG = REPO / "nbgrader_config.py"


class NotebookError(ValueError):
    """A file that cannot be graded; the message names the file and what to do."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


def assignments() -> list[str]:
    """Assignment names: the folders of ``solutions/`` holding a notebook of the same name."""
    return sorted(p.parent.name for p in SOLUTIONS.glob("*/*.ipynb") if p.stem == p.parent.name)


def instructor_notebook(assignment: str) -> Path:
    return SOLUTIONS / assignment / f"{assignment}.ipynb"


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, turning every way it can be broken into a NotebookError."""
    if not path.exists():
        raise NotebookError(path, "no such file")
    if not path.is_file():
        raise NotebookError(path, "is not a file; give the path of an .ipynb notebook")
    try:
        text = path.read_text(encoding="utf-8")
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


def grade_ids(notebook: nbformat.NotebookNode) -> list[str]:
    """The nbgrader grade_ids of a notebook's cells, in order."""
    ids = []
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id:
            ids.append(grade_id)
    return ids


def identify(path: Path, notebook: nbformat.NotebookNode) -> str:
    """The assignment ``notebook`` belongs to: by file name, else by its graded cells' ids.

    Matching by ids means a renamed copy ("01_tensors_and_memory-Copy1.ipynb") still grades.
    """
    names = assignments()
    if path.stem in names:
        return path.stem
    ours = set(grade_ids(notebook))
    overlap = {
        name: len(ours & set(grade_ids(read_notebook(instructor_notebook(name)))))
        for name in names
    }
    best = max(overlap, key=overlap.get, default=None)
    if best is None or overlap[best] == 0:
        raise NotebookError(
            path,
            "is not one of this course's notebooks (none of its cells are graded cells of "
            f"{', '.join(names) or 'any assignment'}); grade a notebook from notebooks/",
        )
    return best


def perfect_submission(assignment: str) -> nbformat.NotebookNode:
    """The released notebook with every solution cell filled in from the instructor version:
    what a student who got everything right hands in (its test cells are the released ones)."""
    solutions = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in read_notebook(instructor_notebook(assignment)).cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    notebook = read_notebook(RELEASE / assignment / f"{assignment}.ipynb")
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = solutions[grade_id]
    return notebook


def with_answer(notebook: nbformat.NotebookNode, grade_id: str,
                source: str) -> nbformat.NotebookNode:
    """A copy of ``notebook`` whose cell ``grade_id`` holds ``source``: a submission with one
    answer (or one test cell) changed, for tests and benchmarks."""
    changed = copy.deepcopy(notebook)
    for cell in changed.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source = source
            return changed
    raise KeyError(f"no cell with grade_id {grade_id!r}")

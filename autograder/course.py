"""This repository as a course: where its notebooks live, and which assignment a notebook is.

The product's view of the repository (``check`` and ``release`` use it; an nbgrader course
elsewhere is ``autograder.course_dirs``). Trusts the repository; imports
``autograder.notebook``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.notebook import NotebookError, grade_ids, read_notebook

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
RELEASE = REPO / "notebooks"
NBGRADER_CONFIG = REPO / "nbgrader_config.py"


def assignments() -> list[str]:
    """Assignment names: the folders of ``solutions/`` holding a notebook of the same name."""
    return sorted(p.parent.name for p in SOLUTIONS.glob("*/*.ipynb") if p.stem == p.parent.name)


def instructor_notebook(assignment: str) -> Path:
    """The instructor version (solutions and hidden tests) of ``assignment``."""
    return SOLUTIONS / assignment / f"{assignment}.ipynb"


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

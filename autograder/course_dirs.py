"""An nbgrader course directory as its config lays it out, and the environment nbgrader needs.

Trusts the course directory's ``nbgrader_config.py`` (the instructor's; nbgrader runs it).
Imports ``nbgrader`` and ``traitlets`` lazily, nothing else of the grader.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class GradeError(ValueError):
    """The run cannot start (unknown assignment, no gradebook entry, no sandbox...)."""


def nbgrader_env() -> dict[str, str]:
    """This environment, with this interpreter's folder first on PATH: nbgrader shells out
    to alembic, which is installed beside it (in the venv's bin/)."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


@contextmanager
def alembic_on_path() -> Iterator[None]:
    """PATH as ``nbgrader_env`` has it, for this block only (opening a gradebook may run
    alembic); the process's PATH is restored afterwards."""
    before = os.environ.get("PATH")
    os.environ["PATH"] = nbgrader_env()["PATH"]
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = before


@dataclass
class CourseDirs:
    """The folders of an nbgrader course directory the grader needs, from its config."""

    root: Path
    source: Path
    submitted: Path
    autograded: Path
    feedback: Path
    db_url: str

    @classmethod
    def load(cls, root: Path) -> CourseDirs:
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        root = root.resolve()
        if not root.is_dir():
            raise GradeError(f"{root}: no such course directory (give the folder that holds "
                             "nbgrader_config.py with --course, or run from it)")
        config = Config()
        if (root / "nbgrader_config.py").exists():
            config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
        directory = CourseDirectory(config=config)
        directory.root = str(root)
        return cls(
            root=root,
            source=root / directory.source_directory,
            submitted=root / directory.submitted_directory,
            autograded=root / directory.autograded_directory,
            feedback=root / directory.feedback_directory,
            db_url=directory.db_url,
        )


def source_notebook(course: CourseDirs, assignment: str) -> Path:
    """The assignment's one instructor notebook, or GradeError naming what exists."""
    if not course.source.is_dir():
        raise GradeError(
            f"{course.root}: not an nbgrader course directory: it has no {course.source.name}/ "
            "folder of instructor notebooks (nbgrader_config.py names it as "
            "CourseDirectory.source_directory)")
    if not (course.source / assignment).is_dir():
        known = sorted(p.name for p in course.source.iterdir() if p.is_dir()
                       and not p.name.startswith("."))
        raise GradeError(f"{assignment!r} is not an assignment of {course.root}; the "
                         f"assignments in {course.source}/ are: {', '.join(known) or 'none'}")
    notebooks = sorted((course.source / assignment).glob("*.ipynb"))
    if len(notebooks) != 1:
        raise GradeError(
            f"{course.source / assignment}: expected exactly one instructor notebook, found "
            f"{len(notebooks)}")
    return notebooks[0]

"""Generate the student notebooks (nbgrader's release) from the instructor ones (its source).

This is stock ``nbgrader generate_assignment`` run from the repository root, so it reads
``nbgrader_config.py``: solutions are replaced by stubs, hidden tests and outputs removed,
and test cells locked. The config also appends the course's preprocessors
(``autograder.preprocessors``), which drop saved widget state, tag test cells
``raises-exception`` and put the "Open in Colab" badge and the Colab setup cell at the top
(from ``course.toml``); an instructor running ``nbgrader generate_assignment`` by hand gets
the same notebooks.

Trusts the repository. Imports ``autograder.course`` and ``autograder.course_dirs``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autograder.course import RELEASE, REPO, assignments
from autograder.course_dirs import nbgrader_env


def release(
    names: list[str] | None = None, release_dir: Path = RELEASE, *, use_db: bool = True
) -> list[Path]:
    """Write ``release_dir/<name>/<name>.ipynb`` for each assignment; return the paths.

    With ``use_db`` the assignments are also recorded in the course gradebook, which
    ``nbgrader autograde`` needs later; tests pass ``use_db=False`` to leave no database behind.
    """
    written = []
    for name in names or assignments():
        command = [sys.executable, "-m", "nbgrader", "generate_assignment", name, "--force",
                   f"--CourseDirectory.release_directory={release_dir.resolve()}"]
        if not use_db:
            command.append("--no-db")
        run = subprocess.run(command, cwd=REPO, env=nbgrader_env(), capture_output=True,
                             text=True)
        if run.returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{run.stderr}")
        written.append(release_dir / name / f"{name}.ipynb")
    return written

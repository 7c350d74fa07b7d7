"""Wrong and right answers of every notebook, one file per assignment.

``tests/answers/<assignment>.py`` defines ``WRONG`` and ``RIGHT``, each keyed by the solution
cell's grade_id (the format of ``wrong_answers.py`` and ``right_answers.py`` without the
assignment level, which is the file's name). Those two modules merge these in, so every test
that reads them covers every notebook.
"""

from __future__ import annotations

import runpy
from pathlib import Path

HERE = Path(__file__).resolve().parent


def by_assignment(kind: str) -> dict[str, dict[str, list[str]]]:
    """``{assignment: answers[kind]}`` for every answers file here (kind: "WRONG" or "RIGHT")."""
    # run_path, because module names cannot start with a digit
    return {path.stem: runpy.run_path(str(path))[kind]
            for path in sorted(HERE.glob("[0-9]*_*.py"))}

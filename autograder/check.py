"""Grade one filled-in notebook against the instructor version, hidden tests included.

The same engine as ``python -m autograder grade``, for one notebook: the instructor's checks
are read as data, the notebook's own cells run in a worker (sandboxed where bubblewrap is
available; it is the reader's own code, so without it the worker runs unsandboxed), and
the results are judged here. A renamed copy is recognised by its graded cells.

The answer key is this repository's ``solutions/`` (``autograder.course``): ``check`` is the
reader's tool, run in a clone; ``grade`` reads an nbgrader course's config instead. Trusts
the repository; imports ``course``, ``notebook``, ``pipeline``, ``results``, ``sandbox`` and
``spec``.
"""

from __future__ import annotations

import os
from pathlib import Path

from autograder.course import SOLUTIONS, identify, instructor_notebook
from autograder.limits import Limits
from autograder.notebook import NotebookError, read_notebook
from autograder.pipeline import Submission, grade_submission
from autograder.results import NotebookResult
from autograder.sandbox.bwrap import sandbox_available
from autograder.sandbox.worker import Worker
from autograder.spec import load_spec
from lecture_utils.i18n import ENGLISH, N_, notebook_language

# Printed by ``check`` above its table where bubblewrap is missing (Colab, macOS).
UNSANDBOXED = N_("No sandbox here (bubblewrap is not installed): your notebook's code ran in a "
                 "separate process without one, which is fine for your own code.")


# Where the answer key is kept from whoever runs ``check`` (a student on a course's server,
# deploy/jupyterhub) or is absent: say so, instead of a permission error's traceback.
ANSWER_KEY_HIDDEN = ("cannot be checked here: the answer key ({solutions}) cannot be read. On a "
                     "course's server it is kept from students; the test cells in your notebook "
                     "check your answers, and your instructor grades it with the hidden tests.")


def language_of(path: Path) -> str:
    """The language ``path`` declares in its metadata (English if none, or unreadable)."""
    try:
        return notebook_language(read_notebook(path).metadata)
    except Exception:  # noqa: BLE001 - the table is shown in English then
        return ENGLISH


def check_notebook(path: Path, *, sandboxed: bool | None = None) -> NotebookResult:
    """Grade ``path`` (a student's copy); raises NotebookError on bad input. ``sandboxed``:
    whether to run it under bubblewrap (default: where bubblewrap works)."""
    notebook = read_notebook(path)
    try:
        if not os.access(SOLUTIONS, os.R_OK | os.X_OK):  # else an empty course, silently
            raise PermissionError(SOLUTIONS)
        assignment = identify(path, notebook)
        spec = load_spec(instructor_notebook(assignment))
    except PermissionError:
        raise NotebookError(path, ANSWER_KEY_HIDDEN.format(solutions=SOLUTIONS)) from None
    if sandboxed is None:
        sandboxed, _ = sandbox_available()
    with Worker(Limits(), sandbox=sandboxed) as worker:
        result = grade_submission(worker, spec, Submission("", path.parent, path), assignment)
    result.notebook = str(path)
    return result

"""``%check_my_work``: the full check of the notebook you have open, hidden tests included,
without leaving JupyterLab.

It runs ``python -m autograder check`` (this repository's grader) on the notebook's saved
file, which JupyterLab names to the kernel (``__session__``), and prints the grader's table.
It grades what is saved, so save first (Ctrl+S). Outside JupyterLab it says which command to
run in a terminal instead. Every kernel of the course environment loads it as an IPython
extension (scripts/setup.sh writes that into the environment's IPython kernel config), and
importing ``lecture_utils`` registers it too.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from lecture_utils.i18n import open_notebook, tr, tr_format

REPO = Path(__file__).resolve().parent.parent
CHECK_SECONDS = 900


def notebook_path(namespace: dict) -> Path | None:
    """The open notebook's file, as JupyterLab told the kernel, if it did and it exists
    (the same file whose language the kernel's messages follow)."""
    return open_notebook(namespace.get("__session__"))


def _ago(seconds: float) -> str:
    if seconds < 90:
        return tr_format("{seconds} s ago", seconds=f"{seconds:.0f}")
    return tr_format("{minutes} min ago", minutes=f"{seconds / 60:.0f}")


def check_my_work(line: str = "") -> None:
    """Line magic body: grade the saved notebook with ``python -m autograder check``."""
    from IPython import get_ipython

    path = notebook_path(get_ipython().user_ns)
    if path is None:
        print(tr("%check_my_work needs JupyterLab (it asks it which notebook is open). In a "
                 "terminal, from the repository root, run:")
              + "\n    python -m autograder check PATH/TO/YOUR_NOTEBOOK.ipynb")
        return
    saved = time.time() - path.stat().st_mtime
    print(tr_format("Checking {name} as saved {ago} (save with Ctrl+S first to include your "
                    "latest edits); this runs every cell again and takes a little while...",
                    name=path.name, ago=_ago(saved)), flush=True)
    run = subprocess.run([sys.executable, "-m", "autograder", "check", str(path)], cwd=REPO,
                         capture_output=True, text=True, timeout=CHECK_SECONDS)
    print(run.stdout, end="")
    if run.returncode not in (0, 1) or not run.stdout:  # 1: some checks failed
        print(run.stderr[-3000:], file=sys.stderr)


def load_ipython_extension(shell) -> None:
    """Loaded in every kernel of the course environment (scripts/setup.sh configures it)."""
    shell.register_magic_function(check_my_work, magic_kind="line", magic_name="check_my_work")


def register_if_in_ipython() -> None:
    """Register ``%check_my_work`` when imported inside IPython/Jupyter."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        load_ipython_extension(shell)

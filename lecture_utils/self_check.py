"""``%check_my_work``: the full check of the notebook you have open, hidden tests included,
without leaving JupyterLab.

It runs ``python -m autograder check`` (this repository's grader) on the notebook's saved
file, which JupyterLab names to the kernel (``__session__``), and prints the grader's table.
It grades what is saved, so save first (Ctrl+S). On Google Colab there is no such file: the
kernel asks the browser for the open notebook (unsaved edits included), writes it under
``/content`` and grades that copy. Elsewhere it says which command to run in a terminal
instead. Every kernel of the course environment loads it as an IPython extension
(scripts/setup.sh writes that into the environment's IPython kernel config), and importing
``lecture_utils`` registers it too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lecture_utils.i18n import notebook_language, open_notebook, tr, tr_format, use_language

REPO = Path(__file__).resolve().parent.parent
CHECK_SECONDS = 900
COLAB_FOLDER = Path("/content/cs336-check")  # /content: the Colab session's own disk
COLAB_SECONDS = 60  # how long the browser may take to send a notebook with its outputs


def notebook_path(namespace: dict) -> Path | None:
    """The open notebook's file, as JupyterLab told the kernel, if it did and it exists
    (the same file whose language the kernel's messages follow)."""
    return open_notebook(namespace.get("__session__"))


def _ago(seconds: float) -> str:
    if seconds < 90:
        return tr_format("{seconds} s ago", seconds=f"{seconds:.0f}")
    return tr_format("{minutes} min ago", minutes=f"{seconds / 60:.0f}")


def on_colab() -> bool:
    """Whether this kernel runs on Google Colab, whose kernels import ``google.colab`` at
    start."""
    return "google.colab" in sys.modules


def _assignment(notebook: dict[str, Any]) -> str:
    """The course assignment ``notebook`` is, told by its graded cells as ``check`` tells it
    (``autograder.course.identify``); "notebook" if none, and ``check`` will say so."""
    try:
        import nbformat

        from autograder.course import identify

        return identify(Path("notebook.ipynb"), nbformat.from_dict(notebook))
    except Exception:  # noqa: BLE001 - any notebook the browser sends still gets checked
        return "notebook"


def colab_notebook(folder: Path | None = None) -> Path | None:
    """Ask Colab's front end for the open notebook and write it to ``folder/<assignment>.ipynb``;
    None if the browser did not send one.

    A Colab kernel has no file of the notebook it runs. It asks the browser with
    ``google.colab._message.blocking_request("get_ipynb", request="", timeout_sec=N)``, which
    returns ``{"ipynb": <the notebook as a dict>}`` as the browser holds it, unsaved edits
    included, or None when the time runs out; it raises ``MessageError`` when the browser
    answers with an error (colabtools, google/colab/_message.py).
    ``folder`` defaults to ``COLAB_FOLDER``, or a folder of that name in the system's
    temporary folder where there is no ``/content``.
    """
    from google.colab import _message

    try:
        reply = _message.blocking_request("get_ipynb", request="", timeout_sec=COLAB_SECONDS)
    except _message.MessageError:  # the browser answered with an error: no notebook either
        reply = None
    notebook = reply.get("ipynb") if isinstance(reply, dict) else None
    if not isinstance(notebook, dict):
        return None
    if folder is None:  # /content exists on Colab; elsewhere (its twin in tests) use /tmp
        content = COLAB_FOLDER.parent.is_dir()
        folder = COLAB_FOLDER if content else Path(tempfile.gettempdir()) / COLAB_FOLDER.name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_assignment(notebook)}.ipynb"
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    return path


def _run_check(path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "autograder", "check", str(path)], cwd=REPO,
                         capture_output=True, text=True, timeout=CHECK_SECONDS)
    print(run.stdout, end="")
    if run.returncode not in (0, 1) or not run.stdout:  # 1: some checks failed
        print(run.stderr[-3000:], file=sys.stderr)


def check_on_colab() -> None:
    """``%check_my_work`` on Colab: grade a copy of the notebook as the browser holds it."""
    path = colab_notebook()
    if path is None:
        print(tr_format("Colab did not send the notebook within {seconds} s; run "
                        "%check_my_work again.", seconds=COLAB_SECONDS))
        return
    with use_language(notebook_language(json.loads(path.read_text("utf-8")).get("metadata"))):
        print(tr_format("Checking {name} as it is open in Colab, unsaved edits included (a "
                        "copy: {path}); this runs every cell again and takes a little while...",
                        name=path.stem, path=path), flush=True)
    _run_check(path)


def check_my_work(line: str = "") -> None:
    """Line magic body: grade the saved notebook with ``python -m autograder check``."""
    from IPython import get_ipython

    if on_colab():
        check_on_colab()
        return
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
    _run_check(path)


def load_ipython_extension(shell) -> None:
    """Loaded in every kernel of the course environment (scripts/setup.sh configures it)."""
    shell.register_magic_function(check_my_work, magic_kind="line", magic_name="check_my_work")


def register_if_in_ipython() -> None:
    """Register ``%check_my_work`` when imported inside IPython/Jupyter."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        load_ipython_extension(shell)

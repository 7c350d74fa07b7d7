"""Run instructor notebooks top to bottom, store their outputs, then regenerate the release.

The notebooks in solutions/ are stored with outputs (what an instructor reads, and what the
nbval replay compares against), so after editing one, run it here rather than saving it from
a JupyterLab session with stray state:

    .venv/bin/python scripts/run_solutions.py                 # every notebook
    .venv/bin/python scripts/run_solutions.py 02_strides_and_views --no-release

Each notebook runs in a fresh kernel in its own folder; cell ids are kept, widget state is not
stored (the release would strip it anyway). Timings in the outputs are those of this machine:
run it on a quiet one.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course import assignments, instructor_notebook  # noqa: E402
from autograder.release import release  # noqa: E402


def run_in_place(path: Path, timeout: int = 600) -> float:
    """Execute the notebook at ``path`` and write it back with its outputs; seconds taken."""
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(notebook, timeout=timeout, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - started
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, path)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="assignment names (default: all)")
    parser.add_argument("--no-release", action="store_true",
                        help="do not regenerate notebooks/ afterwards")
    args = parser.parse_args()
    names = args.names or assignments()
    for name in names:
        path = instructor_notebook(name)
        print(f"{name}: ran in {run_in_place(path):.1f} s, outputs stored in {path}")
    if not args.no_release:
        for path in release(names):
            print(f"released {path}")


if __name__ == "__main__":
    main()

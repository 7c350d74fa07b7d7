"""Runs notebooks top to bottom in the Colab twin's kernel, as Colab's "Run all" does.

Run by the twin's own python (scripts/colab_twin.sh prints it), so that nbclient, jupyter_client
and the kernel are Colab's versions:

    <twin python> tests/colab/run_notebooks.py [--jobs N] OUT_DIR NOTEBOOK...

Each notebook runs in a fresh kernel started in the notebook's folder; every cell runs even
after an error (the test reads the errors from the outputs), and the executed notebook is
written to OUT_DIR under the same name. One line per notebook on stdout: its name and seconds.
With --jobs N, the first notebook runs alone (its setup cell fetches and installs for all),
then the others N at a time, each in its own process and kernel.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

CELL_TIMEOUT_S = 300


def run(notebook_path: Path, out_dir: Path) -> str:
    notebook = nbformat.read(notebook_path, as_version=4)
    started = time.perf_counter()
    NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(notebook_path.parent)}}).execute()
    nbformat.write(notebook, out_dir / notebook_path.name)
    return f"{notebook_path.name} {time.perf_counter() - started:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("notebooks", type=Path, nargs="+")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    first, *rest = args.notebooks
    print(run(first, args.out_dir), flush=True)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for line in pool.map(run, rest, [args.out_dir] * len(rest)):
            print(line, flush=True)


if __name__ == "__main__":
    main()

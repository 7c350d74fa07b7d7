"""How long each instructor notebook takes to run, against a baseline from the same run.

The baseline is a notebook that only starts a kernel and imports torch and lecture_utils:
the fixed cost every notebook pays. Each notebook's time is printed in seconds and as a
ratio to that baseline, so figures from different machines compare.

    .venv/bin/python benchmarks/notebook_times.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course import assignments, instructor_notebook  # noqa: E402


def run_seconds(notebook: nbformat.NotebookNode, cwd: Path) -> float:
    started = time.perf_counter()
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per notebook (median)")
    args = parser.parse_args()

    baseline_nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import torch\nimport lecture_utils")])
    rows = [("baseline: kernel + import torch", [
        run_seconds(nbformat.from_dict(baseline_nb), REPO) for _ in range(args.repeats)])]
    for name in assignments():
        path = instructor_notebook(name)
        rows.append((name, [run_seconds(nbformat.read(path, as_version=4), path.parent)
                            for _ in range(args.repeats)]))

    base = statistics.median(rows[0][1])
    width = max(len(label) for label, _ in rows)
    print(f"{'notebook'.ljust(width)}  median s   min s   ×baseline")
    for label, times in rows:
        median = statistics.median(times)
        print(f"{label.ljust(width)}  {median:8.1f}  {min(times):6.1f}  {median / base:9.2f}")


if __name__ == "__main__":
    main()

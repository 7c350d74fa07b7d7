"""Run instructor notebooks top to bottom and record what ran: seconds, errors, GPU cells.

Written for a GPU machine (``benchmarks/gpu_replay.sh``), where the ``%%gpu_only`` cells run
at the lecture's sizes; on a CPU they print their skip line, and this script counts them as
skipped. Each executed notebook is saved beside a ``replay.json`` summary, so the figures the
GPU cells printed can be read and committed. Exits 1 if any cell raised.

    .venv/bin/python benchmarks/replay_notebooks.py --out DIR [NAME ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course import assignments, instructor_notebook  # noqa: E402
from lecture_utils.gpu_cells import SKIP_MESSAGE, is_gpu_only  # noqa: E402
from lecture_utils.i18n import LANGUAGES, tr  # noqa: E402


def gpu_cells(notebook: nbformat.NotebookNode) -> tuple[int, int]:
    """(ran, skipped) among the notebook's ``%%gpu_only`` cells, read from their outputs."""
    ran = skipped = 0
    for cell in notebook.cells:
        if cell.cell_type != "code" or not is_gpu_only(cell.source):
            continue
        printed = "".join(o.get("text", "") for o in cell.get("outputs", []))
        if any(tr(SKIP_MESSAGE, language) in printed for language in LANGUAGES):
            skipped += 1
        else:
            ran += 1
    return ran, skipped


def replay(name: str, out: Path) -> dict[str, object]:
    path = instructor_notebook(name)
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    error = None
    try:
        NotebookClient(notebook, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    except CellExecutionError as failure:
        error = str(failure).splitlines()[-1] if str(failure) else type(failure).__name__
    seconds = time.perf_counter() - started
    nbformat.write(notebook, out / f"{name}.ipynb")
    ran, skipped = gpu_cells(notebook)
    return {"notebook": name, "seconds": round(seconds, 1), "error": error,
            "gpu_cells_ran": ran, "gpu_cells_skipped": skipped}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks to run (default: all)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the results")
    args = parser.parse_args()
    unknown = sorted(set(args.names) - set(assignments()))
    if unknown:
        parser.error(f"no such notebook: {', '.join(unknown)}; known: {', '.join(assignments())}")
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [replay(name, args.out) for name in (args.names or assignments())]
    (args.out / "replay.json").write_text(json.dumps(rows, indent=1))
    for row in rows:
        print(f"{row['notebook']:32s} {row['seconds']:7.1f} s  GPU cells ran "
              f"{row['gpu_cells_ran']}, skipped {row['gpu_cells_skipped']}"
              + (f"  ERROR: {row['error']}" if row["error"] else ""))
    return 1 if any(row["error"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

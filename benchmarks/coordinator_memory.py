"""How much memory does the coordinator need for the largest file it accepts?

The grade process reads every submission outside the sandbox: it plans it (reads, counts,
parses and checks the JSON) and writes the autograded notebook (reads it again, sanitises,
validates, writes). Each shape below is built just under the limits (``Limits``: 32 MiB,
1,000,000 JSON values, 2,000 cells) and, for comparison, at a quarter of the size; each
is handled in a fresh process, whose peak resident memory (VmHWM) is printed minus that of
the same process after handling the honest right answer (imports, the answer key), and
divided by the file's size. Over the limits, files are refused before they are parsed
(the rows marked "refused").

    .venv/bin/python benchmarks/coordinator_memory.py

About a minute on a 2-core machine. (Before the limits, a 63 MiB notebook of padded
metadata took the coordinator to 11 GB.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

MiB = 2**20
A = "01_tensors_and_memory"

# Run in a fresh process: first on the honest answer (so that every module the work needs is
# imported and warm), then on the file measured. Peaks are VmHWM, the high-water mark of
# this process's own memory (ru_maxrss would include what the parent held when it forked).
CHILD = """
import sys, time
from pathlib import Path
sys.path[:0] = [{repo!r}]
from autograder.course import instructor_notebook
from autograder.limits import Limits
from autograder.pipeline import Submission, planned
from autograder.record import write_autograded
from autograder.results import NotebookResult
from autograder.spec import load_spec

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

spec = load_spec(instructor_notebook({a!r}))
def handle(path):
    result = planned(spec, Submission("s", path.parent, path), {a!r}, Limits())
    if hasattr(result, "status"):
        return "refused"
    write_autograded(path.parent / "out.ipynb", path,
                     NotebookResult(notebook=str(path), assignment={a!r}, student="s"), spec)
    return "read"
handle(Path(sys.argv[1]))
before = hwm()
started = time.perf_counter()
status = handle(Path(sys.argv[2]))
print(hwm() - before, before, status, time.perf_counter() - started)
"""


def _shapes(base: dict, size: int) -> dict[str, str]:
    """Notebooks of about ``size`` bytes, each a right answer plus one kind of bulk."""
    def with_output(output: dict) -> str:
        notebook = json.loads(json.dumps(base))
        code = next(c for c in notebook["cells"] if c["cell_type"] == "code")
        code["outputs"] = [output]
        return json.dumps(notebook)

    line = "tensor([0.1234, 0.5678, 0.9012, 0.3456, 0.7890, 0.2345, 0.6789, 0.0123])\n"
    n_lines = min(size // (len(line) + 4), 900_000)
    return {
        "one long printed output": with_output(
            {"output_type": "stream", "name": "stdout", "text": "x" * size}),
        "many printed lines": with_output(
            {"output_type": "stream", "name": "stdout", "text": [line] * n_lines}),
        "an embedded image": with_output(
            {"output_type": "display_data", "metadata": {},
             "data": {"image/png": "iVBORw0KGgo" * (size // 11)}}),
        "padded metadata": json.dumps({**base, "metadata": {**base["metadata"],
                                                            "pad": "x" * size}}),
    }


def _extra(honest: Path, path: Path) -> tuple[int, int, str, float]:
    """Memory beyond the warm baseline, the baseline, the status and seconds for ``path``."""
    code = CHILD.format(repo=str(REPO), a=A)
    out = subprocess.run([sys.executable, "-c", code, str(honest), str(path)],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1]), out[2], float(out[3])


def main() -> None:
    from support.submissions import perfect_submission

    base = json.loads(json.dumps(perfect_submission(A)))
    with tempfile.TemporaryDirectory() as tmp:
        honest = Path(tmp) / "honest" / f"{A}.ipynb"
        honest.parent.mkdir()
        honest.write_text(json.dumps(base))
        _, baseline, _, _ = _extra(honest, honest)
        print(f"baseline (grader imported, the honest answer handled, "
              f"{honest.stat().st_size / 1024:.0f} KiB): {baseline / MiB:.0f} MiB\n")
        print(f"{'shape':28} {'file MiB':>9} {'status':>8} {'extra MiB':>10} "
              f"{'x file':>7} {'seconds':>8}")
        for size in (8 * MiB, 31 * MiB, 40 * MiB):
            for name, text in _shapes(base, size).items():
                path = Path(tmp) / f"{len(text)}" / f"{A}.ipynb"
                path.parent.mkdir(exist_ok=True)
                path.write_text(text)
                extra, _, status, seconds = _extra(honest, path)
                print(f"{name:28} {len(text) / MiB:9.1f} {status:>8} {extra / MiB:10.0f} "
                      f"{extra / len(text):7.1f} {seconds:8.2f}")


if __name__ == "__main__":
    main()

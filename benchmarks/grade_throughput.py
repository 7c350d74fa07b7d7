"""Grading throughput: stock ``nbgrader autograde`` against ``python -m autograder grade``.

Both grade the same batch of notebook-01 submissions (a mix of correct and wrong answers)
in the same run on this machine, each in its own fresh course directory with a real
gradebook. Prints submissions per minute for each and their ratio.

    .venv/bin/python benchmarks/grade_throughput.py [--submissions 40] [--jobs 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course import perfect_submission, with_answer  # noqa: E402
from autograder.nbgrader_course import Course  # noqa: E402

A = "01_tensors_and_memory"
VARIANTS = [  # (solution cell, replacement) — None keeps the instructor's solution
    None,
    ("tensor_bytes", "def tensor_bytes(x):\n    return x.numel()\n"),
    None,
    ("storage_bytes", "def storage_bytes(x):\n    return x.numel() * x.element_size()\n"),
    ("bytes_for", "def bytes_for(shape, dtype):\n    return 4\n"),
]


def make_course(root: Path, count: int) -> Course:
    course = Course(root)
    course.add_assignment(A)
    for i in range(count):
        notebook = perfect_submission(A)
        variant = VARIANTS[i % len(VARIANTS)]
        if variant:
            notebook = with_answer(notebook, *variant)
        course.submit(f"student-{i:03d}", A, notebook)
    return course


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, text=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        stock = make_course(Path(tmp) / "stock", args.submissions)
        ours = make_course(Path(tmp) / "ours", args.submissions)
        started = time.perf_counter()
        stock.nbgrader("autograde", A)  # run in the course directory, with its config
        stock_s = time.perf_counter() - started
        ours_s = timed([sys.executable, "-m", "autograder", "grade", A, f"--course={ours.root}",
                        f"--jobs={args.jobs}", "--no-progress"])

    n = args.submissions
    print(f"{n} submissions of {A}, {args.jobs} jobs for the sandboxed grader")
    print(f"{'grader':<32} {'seconds':>8} {'subs/min':>9} {'× stock':>8}")
    for label, seconds in (("stock nbgrader autograde", stock_s),
                           ("autograder grade (sandboxed)", ours_s)):
        print(f"{label:<32} {seconds:8.1f} {n / seconds * 60:9.1f} {stock_s / seconds:8.2f}")


if __name__ == "__main__":
    main()

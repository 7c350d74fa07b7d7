"""Grading throughput: stock ``nbgrader autograde`` against ``python -m autograder grade``.

Both grade the same batch of notebook-01 submissions (a mix of correct and wrong answers)
in the same run on this machine, each in its own fresh course directory with a real
gradebook. Prints submissions per minute for each and their ratio.

    .venv/bin/python benchmarks/grade_throughput.py [--submissions 40] [--jobs 2]

``--ours-only`` skips stock nbgrader (~5 min) and times only the sandboxed grader;
``--against DIR`` also times the grader of another checkout on the same batch (say
``git worktree add /tmp/before HEAD`` before a refactor), alternating the two ``--repeat``
times, each on a fresh course, so both see the same machine load:

    .venv/bin/python benchmarks/grade_throughput.py --ours-only --against /tmp/before --repeat 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # tests/ holds the test-support helpers

from support.nbgrader_course import Course  # noqa: E402
from support.submissions import perfect_submission, with_answer  # noqa: E402

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


def timed(args: list[str], tree: Path = REPO) -> float:
    """Seconds ``args`` took, run with the grader of checkout ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    started = time.perf_counter()
    run = subprocess.run(args, capture_output=True, text=True, cwd=tree, env=env)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(args)} (in {tree}) failed:\n{run.stderr[-3000:]}")
    return time.perf_counter() - started


def ours(root: Path, count: int, jobs: int, tree: Path = REPO) -> float:
    """Seconds the sandboxed grader of ``tree`` takes on a fresh course of ``count``."""
    course = make_course(root, count)
    return timed([sys.executable, "-m", "autograder", "grade", A, f"--course={course.root}",
                  f"--jobs={jobs}", "--no-progress"], tree)


def compare_trees(args: argparse.Namespace) -> None:
    """This checkout's grader against ``--against``'s, alternating, on identical batches."""
    trees = {"this checkout": REPO, str(args.against): args.against.resolve()}
    seconds: dict[str, list[float]] = {label: [] for label in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.repeat):
            for label, tree in trees.items():
                root = Path(tmp) / f"{run}-{len(seconds[label])}-{tree.name}"
                seconds[label].append(ours(root, args.submissions, args.jobs, tree))
    n = args.submissions
    print(f"{n} submissions of {A}, {args.jobs} jobs, {args.repeat} runs each, alternating")
    print(f"{'grader':<32} {'median s':>8} {'min s':>7} {'subs/min':>9}  runs")
    for label, times in seconds.items():
        median = statistics.median(times)
        runs = " ".join(f"{t:.1f}" for t in times)
        print(f"{label:<32} {median:8.1f} {min(times):7.1f} {n / median * 60:9.1f}  {runs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ours-only", action="store_true",
                        help="time only the sandboxed grader, not stock nbgrader")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="with --ours-only: also time the grader of checkout DIR")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each (with --against)")
    args = parser.parse_args()
    if args.against is not None:
        compare_trees(args)
        return
    if args.ours_only:
        with tempfile.TemporaryDirectory() as tmp:
            ours_s = ours(Path(tmp) / "ours", args.submissions, args.jobs)
        n = args.submissions
        print(f"{n} submissions of {A}, {args.jobs} jobs: autograder grade (sandboxed) "
              f"{ours_s:.1f} s, {n / ours_s * 60:.1f}/min")
        return

    with tempfile.TemporaryDirectory() as tmp:
        stock = make_course(Path(tmp) / "stock", args.submissions)
        started = time.perf_counter()
        stock.nbgrader("autograde", A)  # run in the course directory, with its config
        stock_s = time.perf_counter() - started
        ours_s = ours(Path(tmp) / "ours", args.submissions, args.jobs)

    n = args.submissions
    print(f"{n} submissions of {A}, {args.jobs} jobs for the sandboxed grader")
    print(f"{'grader':<32} {'seconds':>8} {'subs/min':>9} {'× stock':>8}")
    for label, seconds in (("stock nbgrader autograde", stock_s),
                           ("autograder grade (sandboxed)", ours_s)):
        print(f"{label:<32} {seconds:8.1f} {n / seconds * 60:9.1f} {stock_s / seconds:8.2f}")


if __name__ == "__main__":
    main()

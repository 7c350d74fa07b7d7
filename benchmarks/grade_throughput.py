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

``--engines`` compares the ways ``grade`` can run its sandboxes, on one batch of
``--submissions`` (default 200 here), in one run: the in-process pool (``--engine threads``,
the baseline), the default Dask local cluster, and a real Dask cluster on this machine
(``dask scheduler`` + 1, then 2, ``dask worker`` processes of one thread each). It reports
the steady-state rate: submissions per minute after the first 10% are done (sandbox starts
and cluster start-up excluded), from the times the records were written:

    .venv/bin/python benchmarks/grade_throughput.py --engines
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


def steady_rate(records: Path, warm_up: float = 0.1) -> float:
    """Submissions per minute after the first ``warm_up`` fraction, from record mtimes."""
    times = sorted(p.stat().st_mtime for p in records.glob("*.json"))
    first = int(len(times) * warm_up)
    return (len(times) - 1 - first) / (times[-1] - times[first]) * 60


def compare_engines(args: argparse.Namespace) -> None:
    """The in-process pool, the default local cluster, and 1 and 2 real Dask workers."""
    from support.dask_cluster import running_cluster, wait_for_workers

    from autograder.cluster import ClusterOptions
    from autograder.grade import grade_assignment

    n = args.submissions
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        course = make_course(Path(tmp) / "course", n)
        records = course.root / "grades" / A

        def run(label: str, **options) -> None:
            started = time.perf_counter()
            summary = grade_assignment(course.root, A, regrade=True, progress=False,
                                       **options)
            assert len(summary.graded) == n, f"{label}: graded {len(summary.graded)} of {n}"
            rows.append((label, time.perf_counter() - started, steady_rate(records)))

        run(f"local pool (--engine threads --jobs {args.jobs})", engine="threads",
            jobs=args.jobs)
        run(f"Dask local cluster (default, --jobs {args.jobs})", jobs=args.jobs)
        for workers in (1, 2):
            with running_cluster(Path(tmp) / f"cluster-{workers}", tls=False) as cluster:
                names = [f"w{i}" for i in range(1, workers + 1)]
                for name in names:
                    cluster.add_worker(name)
                wait_for_workers(cluster, names)
                run(f"Dask cluster, {workers} worker(s) x 1 thread",
                    cluster=ClusterOptions(scheduler=cluster.address))
    base = rows[0][2]
    print(f"{n} submissions of {A}; steady state = after the first 10% were done")
    print(f"{'engine':<44} {'wall s':>7} {'subs/min':>9} {'× pool':>7}")
    for label, wall, rate in rows:
        print(f"{label:<44} {wall:7.1f} {rate:9.1f} {rate / base:7.2f}")
    one, two = rows[2][2], rows[3][2]
    print(f"scaling from 1 to 2 Dask workers: {two / one:.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=None,
                        help="batch size (default 40; 200 with --engines)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ours-only", action="store_true",
                        help="time only the sandboxed grader, not stock nbgrader")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="with --ours-only: also time the grader of checkout DIR")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each (with --against)")
    parser.add_argument("--engines", action="store_true",
                        help="compare the local pool with Dask (local cluster, 1 and 2 workers)")
    args = parser.parse_args()
    if args.engines:
        args.submissions = args.submissions or 200
        compare_engines(args)
        return
    args.submissions = args.submissions or 40
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

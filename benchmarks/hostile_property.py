"""The long run of tests/test_hostile_property.py: many batches of hostile submissions.

Each batch is one honest submission and four drawn by Hypothesis (``hostile._mutations``),
graded by the real ``python -m autograder grade`` on one engine; the invariant of the
property test is checked after each (the honest one scores full marks, every other has a
record, no grader error, the exit status names who has no final grade). Prints how many
submissions were graded, how they ended, and seconds per batch against the first batch of
the same run (the sandbox start is in every batch).

    .venv/bin/python benchmarks/hostile_property.py [--batches 25] [--engine threads|dask|both]

About 15 s per batch on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=25)
    parser.add_argument("--engine", choices=["threads", "dask", "both"], default="both")
    args = parser.parse_args()

    from support.nbgrader_course import Course
    from test_hostile_property import A

    from autograder.record import load_record

    for engine in (["threads", "dask"] if args.engine == "both" else [args.engine]):
        with tempfile.TemporaryDirectory() as tmp:
            course = Course(Path(tmp) / "course")
            course.add_assignment(A)
            seconds = _run(course.root, engine, args.batches)
            records = [load_record(p) for p in (course.root / "grades" / A).glob("*.json")]
            statuses = Counter(r["status"] for r in records if r)
            first, median = seconds[0], statistics.median(seconds)
            print(f"{engine}: {len(seconds)} batches, {len(records)} submissions, invariant "
                  f"held in all; statuses: {json.dumps(dict(statuses))}")
            print(f"  seconds per batch: first {first:.1f}, median {median:.1f} "
                  f"({median / first:.2f}x), max {max(seconds):.1f} "
                  f"({max(seconds) / first:.2f}x)")


def _run(course_root: Path, engine: str, batches_wanted: int) -> list[float]:
    """Seconds of each batch graded (Hypothesis draws them; the invariant is checked)."""
    from hypothesis import HealthCheck, given, settings
    from test_hostile_property import batches, grade_batch

    seconds: list[float] = []

    @settings(max_examples=batches_wanted, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(batch=batches)
    def one_batch(batch) -> None:
        seconds.append(grade_batch(course_root, engine, len(seconds), batch))

    one_batch()
    return seconds

if __name__ == "__main__":
    main()

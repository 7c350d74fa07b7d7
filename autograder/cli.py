"""Command line: ``python -m autograder {check,release,grade} ...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.course import NotebookError


def _check(args: argparse.Namespace) -> int:
    from autograder.check import check_notebook
    from autograder.nbgrader_course import NbgraderFailed

    try:
        result = check_notebook(Path(args.notebook))
    except NotebookError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    except NbgraderFailed as error:
        print(f"autograder: {args.notebook}: could not be graded: {error}", file=sys.stderr)
        return 1
    print(result.table())
    if args.json:
        result.write_json(Path(args.json))
    return 0


def _grade(args: argparse.Namespace) -> int:
    from autograder.grade import GradeError, grade_assignment
    from autograder.sandbox import Limits, sandbox_available

    if not args.unsandboxed:
        ok, why = sandbox_available()
        if not ok:
            print(f"autograder: cannot sandbox student code here: {why}. Install bubblewrap "
                  "(Debian/Ubuntu: apt install bubblewrap) on Linux, or pass --unsandboxed to "
                  "run student code WITHOUT isolation (only for code you trust).",
                  file=sys.stderr)
            return 2
    limits = Limits(cell_seconds=args.cell_timeout, submission_seconds=args.timeout,
                    memory_bytes=int(args.memory_gb * 2**30))
    try:
        summary = grade_assignment(Path(args.course), args.assignment, jobs=args.jobs,
                                   limits=limits, sandbox=not args.unsandboxed,
                                   regrade=args.regrade, progress=not args.no_progress)
    except GradeError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autograder: interrupted; rerun the same command to grade the rest "
              "(finished submissions are kept)", file=sys.stderr)
        return 130
    counts = ", ".join(f"{n} {status}" for status, n in sorted(summary.statuses().items()))
    rate = len(summary.graded) / summary.seconds * 60 if summary.seconds else 0.0
    print(f"graded {len(summary.graded)} submission(s) in {summary.seconds:.1f} s "
          f"({rate:.1f}/min){': ' + counts if counts else ''}; "
          f"{summary.skipped} already graded and unchanged")
    print(f"per-question scores: {summary.csv}")
    return 0


def _release(args: argparse.Namespace) -> int:
    from autograder.release import release

    for path in release(args.assignments or None):
        print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser(
        "check", help="grade a filled-in notebook against the instructor version",
        description="Grade NOTEBOOK with the instructor's tests, hidden ones included. "
        "Exit status 0 whenever grading happened, whatever the score.",
    )
    check.add_argument("notebook", help="path to your copy of a course notebook (.ipynb)")
    check.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    check.set_defaults(run=_check)

    grade = commands.add_parser(
        "grade", help="grade all submissions of an assignment, sandboxed and in parallel",
        description="Grade every submitted/<student>/ASSIGNMENT/ notebook of the nbgrader "
        "course in --course. Scores go to nbgrader's gradebook and autograded/ (so formgrader, "
        "export and generate_feedback work), to grades/ASSIGNMENT/<student>.json and to "
        "grades/ASSIGNMENT.csv. Interrupt and rerun at will: finished work is kept.",
    )
    grade.add_argument("assignment", help="assignment name, as in source/ (solutions/)")
    grade.add_argument("--course", default=".", help="course directory (default: here)")
    grade.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    grade.add_argument("--cell-timeout", type=float, default=30.0, metavar="S",
                       help="seconds one cell may run (default 30)")
    grade.add_argument("--timeout", type=float, default=180.0, metavar="S",
                       help="seconds one submission may run in all (default 180)")
    grade.add_argument("--memory-gb", type=float, default=3.0, metavar="GB",
                       help="memory one submission may use (default 3)")
    grade.add_argument("--regrade", action="store_true",
                       help="grade again even submissions already graded and unchanged")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")
    grade.add_argument("--unsandboxed", action="store_true",
                       help="run student code without bubblewrap isolation (unsafe)")
    grade.set_defaults(run=_grade)

    release = commands.add_parser(
        "release", help="regenerate the student notebooks in notebooks/ from solutions/",
    )
    release.add_argument("assignments", nargs="*", help="assignment names (default: all)")
    release.set_defaults(run=_release)

    args = parser.parse_args(argv)
    return args.run(args)

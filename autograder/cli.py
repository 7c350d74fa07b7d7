"""Command line: ``python -m autograder {check,release} ...``."""

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

    release = commands.add_parser(
        "release", help="regenerate the student notebooks in notebooks/ from solutions/",
    )
    release.add_argument("assignments", nargs="*", help="assignment names (default: all)")
    release.set_defaults(run=_release)

    args = parser.parse_args(argv)
    return args.run(args)

"""Check one notebook, grade a class, audit the tests, or regenerate the student notebooks."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from autograder.limits import DEFAULT_JOBS, ENGINES, GRADE_OPTIONS
from autograder.notebook import NotebookError
from autograder.translate import translated_languages

NOT_ALL_GRADED = 3  # grade's exit status when some submissions have no final grade

# The first line above is the command's --help description; below, for a reader of the
# code: trusts its arguments only as far as argparse checks them; imports the commands
# lazily (``check``, ``grade``, ``release``) so that ``--help`` is quick.


def _check(args: argparse.Namespace) -> int:
    from autograder.check import UNSANDBOXED, check_notebook, language_of
    from autograder.sandbox.bwrap import sandbox_available
    from lecture_utils.i18n import tr, use_language

    report = Path(args.json) if args.json else None
    if report is not None and not report.parent.is_dir():
        print(f"autograder: {report}: cannot write the JSON report there: the folder "
              f"{report.parent} does not exist", file=sys.stderr)
        return 2
    sandboxed, _ = sandbox_available()
    try:
        result = check_notebook(Path(args.notebook), sandboxed=sandboxed)
    except NotebookError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    with use_language(language_of(Path(args.notebook))):
        if not sandboxed:
            print(tr(UNSANDBOXED) + "\n")
        print(result.table())
        details = result.details()
        if details:
            print("\n" + tr("What went wrong, in full:") + f"\n\n{details}")
    if report is not None:
        try:
            result.write_json(report)
        except OSError as error:
            print(f"autograder: {report}: could not write the JSON report "
                  f"({error.strerror}); the table above is the result", file=sys.stderr)
            return 2
        print(f"\nwrote {report}")
    return 0


def _grade(args: argparse.Namespace) -> int:
    from autograder import interrupt
    from autograder.grade import ClusterOptions, GradeError, grade_assignment
    from autograder.identities import printable
    from autograder.limits import Limits
    from autograder.sandbox.bwrap import sandbox_available

    if not args.unsandboxed:
        ok, why = sandbox_available()
        if not ok:
            print(f"autograder: cannot sandbox student code here: {why}. Install bubblewrap "
                  "(Debian/Ubuntu: apt install bubblewrap) on Linux, or pass --unsandboxed to "
                  "run student code WITHOUT isolation (only for code you trust).",
                  file=sys.stderr)
            return 2
    limits = Limits(**{option.field: option.to_limit(getattr(args, option.field))
                        for option in GRADE_OPTIONS})
    cluster = ClusterOptions(scheduler=args.scheduler, tls_ca_file=args.tls_ca_file,
                             tls_cert=args.tls_cert, tls_key=args.tls_key,
                             allow_plain_tcp=args.allow_plain_tcp, gpu=args.gpu)
    try:
        with interrupt.catching_ctrl_c():
            summary = grade_assignment(Path(args.course), args.assignment, jobs=args.jobs,
                                       limits=limits, sandbox=not args.unsandboxed,
                                       regrade=args.regrade, progress=not args.no_progress,
                                       engine=args.engine, cluster=cluster,
                                       image_hosts=args.allow_images_from)
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
    if args.scheduler and summary.workers:
        print("ran on: " + ", ".join(f"{worker} {n}" for worker, n in
                                     sorted(summary.workers.items())))
    print(f"per-question scores: {summary.csv}")
    if not summary.graded and not summary.skipped:
        print(f"autograder: no submissions found in {summary.submitted}/*/{args.assignment}/; "
              f"collect them first (nbgrader collect {args.assignment})", file=sys.stderr)
    if summary.stale_feedback:
        print(f"removed the outdated feedback of {summary.stale_feedback} regraded "
              f"submission(s); write it anew: nbgrader generate_feedback {args.assignment}")
    for warning in summary.warnings:
        print(f"autograder: warning: {warning}", file=sys.stderr)
    if summary.not_graded:
        print(f"autograder: {len(summary.not_graded)} submission(s) have no final grade "
              "(each record and the CSV say why; rerun grade after fixing, for the others "
              "it is quick):", file=sys.stderr)
        for student, status in sorted(summary.not_graded)[:50]:
            print(f"  {printable(student)}: {status}", file=sys.stderr)
        if len(summary.not_graded) > 50:
            print(f"  ... and {len(summary.not_graded) - 50} more", file=sys.stderr)
        return NOT_ALL_GRADED
    return 0


def _audit(args: argparse.Namespace) -> int:
    import json
    import time
    from dataclasses import replace

    from autograder.audit import AuditError, audit
    from autograder.audit.report import details, summary_table, to_json
    from autograder.audit.runner import AUDIT_LIMITS
    from autograder.course import REPO, assignments, instructor_notebook
    from autograder.sandbox.bwrap import sandbox_available

    notebooks = []
    for name in args.notebooks or assignments():
        path = Path(name)
        if name in assignments():
            path = instructor_notebook(name)
        if path.suffix != ".ipynb" or not path.is_file():
            print(f"autograder: {name}: neither an instructor notebook (.ipynb) nor one of "
                  f"this course's assignments ({', '.join(assignments())})", file=sys.stderr)
            return 2
        notebooks.append(path)
    answers = Path(args.answers) if args.answers else REPO / "tests" / "answers"
    if args.answers and not answers.is_dir():
        print(f"autograder: --answers {answers}: no such folder", file=sys.stderr)
        return 2
    limits = replace(AUDIT_LIMITS, cell_seconds=args.cell_timeout,
                     memory_bytes=int(args.memory_gb * 2**30))
    sandboxed, _ = sandbox_available()
    started = time.monotonic()
    try:
        audits = audit(notebooks, answers=answers if answers.is_dir() else None,
                       jobs=int(args.jobs), limits=limits, sandbox=sandboxed,
                       only=set(args.exercise) or None)
    except (AuditError, RuntimeError) as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    if args.json == "-":
        print(json.dumps(to_json(audits), indent=2))
    else:
        print(summary_table(audits))
        made = sum(len(a.mutants) for a in audits)
        print(f"\n{made} mutants of {len(audits)} exercise(s) graded in "
              f"{time.monotonic() - started:.0f} s")
        text = details(audits)
        if text:
            print(f"\n{text}")
        if args.json:
            Path(args.json).write_text(json.dumps(to_json(audits), indent=2) + "\n",
                                       encoding="utf-8")
            print(f"\nwrote {args.json}")
    return 0 if all(a.passed for a in audits) else 1


def _release(args: argparse.Namespace) -> int:
    from autograder.course import assignments
    from autograder.release import release
    from autograder.translate import translated_languages
    from autograder.translate.build import build

    names = args.assignments or assignments()
    for path in release(names):
        print(f"wrote {path}")
    for language in translated_languages():
        for path, untranslated in build(names, language).items():
            left = f" ({len(untranslated)} cells still in English)" if untranslated else ""
            print(f"wrote {path}{left}")
    return 0


def _translate(args: argparse.Namespace) -> int:
    from autograder.translate.catalog import catalog_names, update
    from autograder.translate.sync import problems

    names = args.catalogs or catalog_names()
    if args.action == "update":
        for name in names:
            counts = update(args.language, name)
            print(f"{name}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()))
        return 0
    found = [problem for name in names for problem in problems(args.language, name)]
    for problem in found:
        print(problem)
    print(f"{len(found)} problems in {len(names)} catalogs of {args.language}")
    return 1 if found else 0


def _export(args: argparse.Namespace) -> int:
    from autograder.export import ExportError, export_grades, report

    roster = Path(args.roster) if args.roster else None
    try:
        done = export_grades(Path(args.course), args.assignment, args.format,
                             roster_path=roster, out=Path(args.out) if args.out else None,
                             title=args.title, canvas_assignment_id=args.canvas_assignment_id,
                             moodle_id=args.moodle_id)
    except ExportError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    print(f"wrote {done.path}: {done.rows} student(s), {len(done.blank)} on the roster "
          "without a record (blank score)")
    for line in report(done, roster):
        print(f"autograder: {line}", file=sys.stderr)
    return NOT_ALL_GRADED if done.left_out or done.unreadable else 0


def _stats(args: argparse.Namespace) -> int:
    from autograder.course_dirs import CourseDirs, GradeError, source_notebook
    from autograder.spec import SpecError, load_spec
    from autograder.stats import StatsError, write_stats

    try:
        course = CourseDirs.load(Path(args.course))
        spec = load_spec(source_notebook(course, args.assignment))
        run = write_stats(course.root, args.assignment, spec, top=args.top,
                          progress=not args.no_progress)
    except (GradeError, SpecError, StatsError) as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    left_out = f" ({run.unusable} unreadable record(s) left out)" if run.unusable else ""
    print(f"{run.records} record(s) in {run.seconds:.1f} s{left_out}; wrote "
          f"{run.folder}/: {', '.join(p.name for p in run.files)}")
    if run.todo:
        print(f"\n{len(run.todo)} common wrong value(s) no hint covers yet (most common first; "
              "all of them in report.html and wrong_values.csv):")
        for w in run.todo[:10]:
            print(f"  {w.count:>5}  {w.grade_id} {w.label}: {w.value}")
    return 0


def _gradescope(args: argparse.Namespace) -> int:
    from autograder.course import assignments
    from autograder.gradescope.build import budget_seconds, build_zip
    from autograder.limits import Limits

    if args.assignment not in assignments():
        print(f"autograder: {args.assignment}: not one of this course's assignments "
              f"({', '.join(assignments())})", file=sys.stderr)
        return 2
    limits = Limits(**{option.field: option.to_limit(getattr(args, option.field))
                        for option in GRADE_OPTIONS[:3]})
    built = build_zip(args.assignment, Path(args.output), args.hidden_visibility, limits)
    print(f"wrote {built.path}: {built.files} files, {built.bytes / 1024:.0f} KiB; "
          f"{built.exercises} exercises, {built.max_score:g} points")
    if built.hidden_exercises:
        print(f"{built.hidden_exercises} exercise(s) have hidden checks: their scores (and "
              f"so the total) have Gradescope visibility {args.hidden_visibility}")
    # rounded up, plus a minute for the container to start and to upload results.json
    minutes = -(-budget_seconds(limits) // 60) + 1
    print(f"upload it on Gradescope (Configure Autograder, Ubuntu 22.04 base image); set its "
          f"timeout to at least {minutes} minutes and its memory above "
          f"{limits.memory_bytes / 2**30 + 0.6:.1f} GB (docs/gradescope.md)")
    return 0


def _positive(kind: type) -> Callable[[str], float]:
    """An argparse type that accepts only numbers above zero."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
        return value
    return parse


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
        "grades/ASSIGNMENT.csv. Interrupt and rerun at will: finished work is kept. "
        f"Exit status 0 when every submission has a final grade; {NOT_ALL_GRADED} when some "
        "do not (an invalid notebook, a grader error, a worker that died), listed on stderr; "
        "2 when grading could not start.",
    )
    grade.add_argument("assignment", help="assignment name: a folder of the course's source "
                       "directory (in this repository, solutions/)")
    grade.add_argument("--course", default=".", help="course directory (default: here)")
    grade.add_argument("--jobs", type=_positive(int), default=DEFAULT_JOBS,
                       help=f"sandboxes side by side on this machine (default {DEFAULT_JOBS}); "
                       "on a cluster (--scheduler) each Dask worker thread runs one")
    for option in GRADE_OPTIONS:  # defaults and help from autograder.limits
        grade.add_argument(option.flag, dest=option.field, type=_positive(float),
                           default=option.default, metavar=option.metavar,
                           help=f"{option.help} (default {option.default:g})")
    grade.add_argument("--regrade", action="store_true",
                       help="grade again even submissions already graded and unchanged")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")
    grade.add_argument("--allow-images-from", metavar="HOST", action="append", default=[],
                       help="a web host (e.g. upload.wikimedia.org) whose https images the "
                       "autograded notebooks and feedback may show; repeat for more. "
                       "Default: none, only images embedded in the notebook")
    grade.add_argument("--unsandboxed", action="store_true",
                       help="run student code without bubblewrap isolation (unsafe)")
    where = grade.add_argument_group(
        "where the sandboxes run", "Default: a Dask cluster of --jobs threads started in this "
        "process. See docs/cluster.md for scheduler and workers.")
    where.add_argument("--engine", choices=ENGINES, default="dask",
                       help="dask (default), or threads: a plain pool in this process")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running Dask scheduler, e.g. tls://grader.example.edu:8786")
    where.add_argument("--tls-ca-file", metavar="PEM",
                       help="the CA certificate that signed the cluster's certificates")
    where.add_argument("--tls-cert", metavar="PEM", help="this client's TLS certificate")
    where.add_argument("--tls-key", metavar="PEM", help="this client's TLS private key")
    where.add_argument("--allow-plain-tcp", action="store_true",
                       help="accept a tcp:// scheduler on another machine (unencrypted, and "
                       "anyone who can reach it can run code on the cluster: unsafe)")
    where.add_argument("--gpu", action="store_true",
                       help="each submission needs a GPU: it runs on workers started with "
                       "--resources GPU=N, and its sandbox sees the GPU devices")
    grade.set_defaults(run=_grade)

    audit = commands.add_parser(
        "audit", help="plant bugs in the solutions and see whether the tests catch them",
        description="For each graded solution cell of each instructor NOTEBOOK, make mutants "
        "(one small change each: an operator, a constant, a dropped term or call, a loop "
        "bound...) and grade them with the notebook's own checks, hidden ones included. A "
        "mutant that passes every check is compared with the solution on probe inputs: "
        "'survived' if it differs on one (shown), 'likely equivalent' if not; an instructor "
        "marks a real equivalent in the solution cell, between the solution markers: "
        "'# audit-equivalent: KEY -- why'. Extra probes: '# audit-probe: EXPRESSION'. Known "
        "answers (--answers) are graded too: each wrong one must lose its points, each right "
        "one keep them. Exit status 0 when every exercise passes; 1 when a mutant survives "
        "unmarked, a known answer is misgraded or a mark is stale; 2 when it cannot run.",
    )
    audit.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                       help="an assignment name of this repository or the path of an "
                       "instructor notebook (default: every assignment in solutions/)")
    audit.add_argument("--exercise", action="append", default=[], metavar="GRADE_ID",
                       help="audit only this solution cell (repeat for more)")
    audit.add_argument("--answers", metavar="DIR",
                       help="known answers: DIR/<assignment>.py defining WRONG and RIGHT, "
                       "dicts of solution grade_id -> list of replacement cell sources "
                       "(default: this repository's tests/answers)")
    audit.add_argument("--json", metavar="FILE",
                       help="also write the findings as JSON to FILE ('-': only JSON, to stdout)")
    audit.add_argument("--jobs", type=_positive(int), default=DEFAULT_JOBS,
                       help=f"notebooks audited side by side (default {DEFAULT_JOBS})")
    audit.add_argument("--cell-timeout", type=_positive(float), default=5.0, metavar="S",
                       help="seconds one mutant's cell or check may run (default 5)")
    audit.add_argument("--memory-gb", type=_positive(float), default=2.0, metavar="GB",
                       help="memory one mutant may use (default 2)")
    audit.set_defaults(run=_audit)

    release = commands.add_parser(
        "release", help="regenerate the student notebooks in notebooks/ from solutions/",
        description="Regenerate this repository's notebooks/ from its solutions/ with "
        "nbgrader generate_assignment (solutions and hidden tests removed). Edit only "
        "solutions/, then run this; the tests fail when the two drift apart.",
    )
    release.add_argument("assignments", nargs="*", help="assignment names (default: all)")
    release.set_defaults(run=_release)

    translate = commands.add_parser(
        "translate", help="keep the translation catalogs (translations/) in step",
        description="update: add the cells and messages the English gained to each catalog "
        "(translations/LANGUAGE/NAME.po), mark those whose English changed fuzzy, and retire "
        "those gone. check: list what is missing, stale, altered or off the glossary (exit 1 "
        "if anything is). The translated notebooks are built by release.",
    )
    translate.add_argument("action", choices=["update", "check"])
    translate.add_argument("catalogs", nargs="*",
                           help="assignment names or lecture_utils (default: all)")
    # only a language the course has: any other name would become a new translations/ folder
    translate.add_argument("--language", default="zh-CN", choices=translated_languages(),
                           help="default: zh-CN")
    translate.set_defaults(run=_translate)

    export = commands.add_parser(
        "export", help="write an assignment's grades for Canvas or Moodle to import, or as CSV",
        description="Write the grades of ASSIGNMENT (its records in grades/ASSIGNMENT/, from "
        "grade) as a Canvas gradebook import file, a Moodle grade import file (grade and "
        "feedback) or a plain CSV; by default to exports/ASSIGNMENT/FORMAT.csv in the course. "
        "ROSTER.csv maps each student's grader id to the LMS: columns grader_id, then name, "
        "canvas_id, sis_user_id, sis_login_id, section (Canvas) or email, idnumber, username "
        "(Moodle). Exit status 0 when every graded student is in the file; "
        f"{NOT_ALL_GRADED} when some are not (listed on stderr, with what to do); 2 when "
        "nothing was written.",
    )
    export.add_argument("assignment", help="assignment name (a folder of grades/)")
    export.add_argument("--format", required=True, choices=("canvas", "moodle", "csv"))
    export.add_argument("--roster", metavar="ROSTER.csv",
                        help="grader id -> LMS identity (needed for canvas and moodle)")
    export.add_argument("--course", default=".", help="course directory (default: here)")
    export.add_argument("--out", metavar="FILE", help="where to write the export")
    export.add_argument("--title", help="the LMS column title (default: the assignment name)")
    export.add_argument("--canvas-assignment-id", metavar="ID",
                        help="the Canvas assignment's id: the column is titled 'TITLE (ID)' "
                        "and fills that assignment")
    export.add_argument("--moodle-id", choices=("email", "idnumber", "username"),
                        help="the roster column Moodle finds students by (default: the first "
                        "of these the roster has)")
    export.set_defaults(run=_export)

    stats = commands.add_parser(
        "stats", help="what a graded class got wrong: statistics, plots and a report page",
        description="Read the records of ASSIGNMENT (grades/ASSIGNMENT/, from grade) and write "
        "stats/ASSIGNMENT/ in the course: questions.csv (per exercise n, mean, median, SD, "
        "%% full and zero marks, item-rest discrimination), checks.csv (per check case its "
        "pass rate and why), wrong_values.csv (per case the most common wrong values, with "
        "counts and whether a hint covers each), the plots as PNG files and report.html, one "
        "self-contained page with all of it. No student is named in any. Exit status 0 when "
        "written, 2 when there is nothing to read.",
    )
    stats.add_argument("assignment", help="assignment name (a folder of grades/)")
    stats.add_argument("--course", default=".", help="course directory (default: here)")
    stats.add_argument("--top", type=_positive(int), default=10, metavar="N",
                       help="wrong values listed per check case (default 10)")
    stats.add_argument("--no-progress", action="store_true", help="no progress bar")
    stats.set_defaults(run=_stats)

    gradescope = commands.add_parser(
        "gradescope", help="build the Gradescope autograder zip of an assignment",
        description="Write a Gradescope autograder zip for ASSIGNMENT: setup.sh and "
        "run_autograder at its root, the assignment's checks as data (never its solutions) "
        "and this grader, which grades each submission exactly as check and grade do. See "
        "docs/gradescope.md.",
    )
    gradescope.add_argument("assignment", help="assignment name (a folder of solutions/)")
    gradescope.add_argument("-o", "--output", default="autograder.zip", metavar="ZIP",
                            help="where to write the zip (default autograder.zip)")
    gradescope.add_argument("--hidden-visibility", default="after_published",
                            choices=("hidden", "after_due_date", "after_published", "visible"),
                            help="when students see the scores of exercises with hidden "
                            "checks (default after_published: once grades are published)")
    for option in GRADE_OPTIONS[:3]:  # the time and memory limits, as grade takes them
        gradescope.add_argument(option.flag, dest=option.field, type=_positive(float),
                                default=option.default, metavar=option.metavar,
                                help=f"{option.help} (default {option.default:g}, as check)")
    gradescope.set_defaults(run=_gradescope)

    args = parser.parse_args(argv)
    return args.run(args)

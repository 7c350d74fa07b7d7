"""``python -m autograder grade ASSIGNMENT``: grade every submission of an nbgrader course.

For each ``submitted/<student>/<assignment>/`` folder:

1. ``plan``: read the notebook as data, detect tampered test cells, list the steps to run;
2. ``sandbox``: run the student's cells in a sandboxed worker, and evaluate the instructor's
   case expressions there, getting back plain JSON values;
3. ``judge``: compare those values with the expected ones here, outside the sandbox;
4. ``record``: write the gradebook, the autograded notebook, the JSON record and the CSV.

Workers run in parallel (``--jobs``), each a sandbox with torch imported once. A rerun skips
submissions whose JSON record matches the same submission, answer key and limits.
"""

from __future__ import annotations

import hashlib
import os
import queue
import shutil
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autograder.judge import judge_submission
from autograder.nbgrader_course import nbgrader_env
from autograder.plan import InvalidSubmission, plan_submission
from autograder.record import (
    load_record,
    record_path,
    save_grades,
    write_autograded,
    write_csv,
    write_record,
)
from autograder.results import INVALID, NotebookResult, TestResult
from autograder.sandbox import Limits, SandboxUnavailable, Worker
from autograder.spec import AssignmentSpec, load_spec

GRADER_VERSION = "1"


class GradeError(ValueError):
    """The run cannot start (unknown assignment, no gradebook entry, no sandbox...)."""


@dataclass
class Submission:
    student: str
    folder: Path
    path: Path | None  # None: no notebook at all
    note: str = ""  # e.g. graded under another file name


@dataclass
class CourseDirs:
    """The folders of an nbgrader course directory the grader needs, from its config
    (not ``nbgrader_course.Course``, the throw-away course the tests build)."""

    root: Path
    source: Path
    submitted: Path
    autograded: Path
    feedback: Path
    db_url: str

    @classmethod
    def load(cls, root: Path) -> CourseDirs:
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        root = root.resolve()
        if not root.is_dir():
            raise GradeError(f"{root}: no such course directory (give the folder that holds "
                             "nbgrader_config.py with --course, or run from it)")
        config = Config()
        if (root / "nbgrader_config.py").exists():
            config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
        directory = CourseDirectory(config=config)
        directory.root = str(root)
        return cls(
            root=root,
            source=root / directory.source_directory,
            submitted=root / directory.submitted_directory,
            autograded=root / directory.autograded_directory,
            feedback=root / directory.feedback_directory,
            db_url=directory.db_url,
        )


@dataclass
class Summary:
    graded: list[NotebookResult] = field(default_factory=list)
    skipped: int = 0
    seconds: float = 0.0
    csv: Path | None = None
    submitted: Path | None = None
    stale_feedback: int = 0  # feedback folders removed because their scores were redone

    def statuses(self) -> Counter:
        return Counter(r.status for r in self.graded)


def source_notebook(course: CourseDirs, assignment: str) -> Path:
    if not course.source.is_dir():
        raise GradeError(
            f"{course.root}: not an nbgrader course directory: it has no {course.source.name}/ "
            "folder of instructor notebooks (nbgrader_config.py names it as "
            "CourseDirectory.source_directory)")
    if not (course.source / assignment).is_dir():
        known = sorted(p.name for p in course.source.iterdir() if p.is_dir()
                       and not p.name.startswith("."))
        raise GradeError(f"{assignment!r} is not an assignment of {course.root}; the "
                         f"assignments in {course.source}/ are: {', '.join(known) or 'none'}")
    notebooks = sorted((course.source / assignment).glob("*.ipynb"))
    if len(notebooks) != 1:
        raise GradeError(
            f"{course.source / assignment}: expected exactly one instructor notebook, found "
            f"{len(notebooks)}")
    return notebooks[0]


def _linked(path: Path, submitted: Path) -> bool:
    """Whether a symbolic link stands for the notebook or its folders (it could point at the
    answer key, which the grader itself can read)."""
    return (any(p.is_symlink() for p in (path, path.parent, path.parent.parent))
            or not path.resolve().is_relative_to(submitted.resolve()))


def find_submissions(course: CourseDirs, assignment: str, notebook_id: str) -> list[Submission]:
    found = []
    for folder in sorted(course.submitted.glob(f"*/{assignment}")):
        if not folder.is_dir():
            continue
        student = folder.parent.name
        expected = folder / f"{notebook_id}.ipynb"
        others = sorted(p for p in folder.glob("*.ipynb") if p != expected)
        path, note = None, ""
        if expected.exists():
            path = expected
        elif len(others) == 1:
            path, note = others[0], f"graded {others[0].name}; it should be named {expected.name}"
        if path is not None and _linked(path, course.submitted):
            path, note = None, "the notebook is a symbolic link; submit the file itself"
        found.append(Submission(student, folder, path, note))
    return found


def fingerprint(submission: Submission, spec: AssignmentSpec, limits: Limits) -> str:
    if submission.path is not None:
        with submission.path.open("rb") as f:  # streamed: a submission may be huge
            digest = hashlib.file_digest(f, "sha256")
    else:
        digest = hashlib.sha256(b"<none>")
    for part in (spec.fingerprint, GRADER_VERSION, repr(asdict(limits))):
        digest.update(part.encode())
    return digest.hexdigest()


def _needs_full_run(report: dict[str, Any]) -> bool:
    """A name undefined in the fast run may live in a demo cell the fast plan skipped."""
    return any("NameError" in (outcome.get("error") or "")
               for outcomes in report.get("cases", {}).values() for outcome in outcomes)


def grade_submission(worker: Worker, spec: AssignmentSpec, submission: Submission,
                     assignment: str) -> NotebookResult:
    result = NotebookResult(notebook=str(submission.path or submission.folder),
                            assignment=assignment, student=submission.student)
    try:
        if submission.path is None:
            raise InvalidSubmission(submission.note or "no notebook was submitted")
        plan = plan_submission(submission.path, spec)
    except InvalidSubmission as problem:
        result.status, result.message = INVALID, str(problem)
        result.tests = [TestResult(g, 0.0, c.points, INVALID, f"not graded: {problem}")
                        for g, c in spec.checks.items()]
        return result
    report = worker.run(plan.fast_steps)
    if _needs_full_run(report) and plan.full_steps != plan.fast_steps:
        report = worker.run(plan.full_steps)
    result.tests, result.status, result.message = judge_submission(spec, plan, report)
    if submission.note:
        result.message = "; ".join(m for m in (submission.note, result.message) if m)
    return result


def grade_assignment(course_root: Path, assignment: str, *, jobs: int = 2,
                     limits: Limits | None = None, sandbox: bool = True, regrade: bool = False,
                     progress: bool = True) -> Summary:
    from nbgrader.api import Gradebook, MissingEntry

    limits = limits or Limits()
    course = CourseDirs.load(course_root)
    source_nb = source_notebook(course, assignment)
    notebook_id = source_nb.stem
    spec = load_spec(source_nb)
    missing_entry = GradeError(
        f"{assignment} is not in the gradebook ({course.db_url}); run "
        f"`nbgrader generate_assignment {assignment}` in {course.root} first")
    database = course.db_url.removeprefix("sqlite:///")
    if course.db_url.startswith("sqlite:///") and not Path(database).exists():
        raise missing_entry  # opening it would create an empty one
    os.environ["PATH"] = nbgrader_env()["PATH"]  # opening the gradebook may run alembic
    with Gradebook(course.db_url) as gradebook:
        try:
            gradebook.find_notebook(notebook_id, assignment)
        except MissingEntry:
            raise missing_entry from None

        summary = Summary(submitted=course.submitted)
        todo = []
        for submission in find_submissions(course, assignment, notebook_id):
            key = fingerprint(submission, spec, limits)
            done = load_record(record_path(course.root, assignment, submission.student))
            if not regrade and done and done.get("fingerprint") == key:
                summary.skipped += 1
            else:
                todo.append((submission, key))

        started = time.perf_counter()
        for submission, key, result in _run_parallel(todo, spec, assignment, jobs, limits,
                                                     sandbox, progress):
            save_grades(gradebook, result, notebook_id, _timestamp(submission))
            if submission.path is not None:
                folder = course.autograded / submission.student / assignment
                write_autograded(folder / f"{notebook_id}.ipynb", submission.path, result, spec)
            write_record(record_path(course.root, assignment, submission.student), result, key)
            # Feedback written before this grading shows old scores (and, if stock autograde
            # made it, hidden tests); generate_feedback skips folders that exist, so drop it.
            stale = course.feedback / submission.student / assignment
            if stale.is_dir():
                shutil.rmtree(stale)
                summary.stale_feedback += 1
            summary.graded.append(result)
        summary.seconds = time.perf_counter() - started
    summary.csv = write_csv(course.root, assignment, spec)
    return summary


def _run_parallel(todo, spec, assignment, jobs, limits, sandbox, progress):
    """Yield (submission, fingerprint, result) as workers finish them, in any order."""
    if not todo:
        return
    work: queue.Queue = queue.Queue()
    for item in todo:
        work.put(item)
    done: queue.Queue = queue.Queue()
    stop = threading.Event()

    def serve(slot: int) -> None:
        try:
            with Worker(limits, slot=slot, sandbox=sandbox) as worker:
                while not stop.is_set():
                    try:
                        submission, key = work.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        result = grade_submission(worker, spec, submission, assignment)
                    except Exception as error:  # a grader bug costs this submission only
                        result = _grader_failure(spec, submission, assignment, error)
                    done.put((submission, key, result))
        except BaseException as error:  # surface a worker that cannot start
            done.put(error)

    threads = [threading.Thread(target=serve, args=(slot,), daemon=True)
               for slot in range(max(1, min(jobs, len(todo))))]
    for thread in threads:
        thread.start()
    bar = _progress_bar(len(todo), progress)
    try:
        for _ in range(len(todo)):
            item = done.get()
            if isinstance(item, SandboxUnavailable):
                raise GradeError(f"a sandboxed worker could not start: {item}")
            if isinstance(item, BaseException):
                raise item
            bar.update(1)
            yield item
        for thread in threads:  # all done: let each worker close its sandbox
            thread.join(timeout=60)
    finally:
        # On Ctrl-C or an error, do not wait for submissions in flight: the threads are
        # daemons and each sandbox dies with this process (bwrap --die-with-parent).
        stop.set()
        bar.close()


def _grader_failure(spec: AssignmentSpec, submission: Submission, assignment: str,
                    error: Exception) -> NotebookResult:
    message = f"internal grader error, please report it: {type(error).__name__}: {error}"
    return NotebookResult(
        notebook=str(submission.path), assignment=assignment, student=submission.student,
        status="crashed", message=message,
        tests=[TestResult(g, 0.0, c.points, "crashed", message) for g, c in spec.checks.items()])


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="submission", disable=not enabled, dynamic_ncols=True)


def _timestamp(submission: Submission) -> str | None:
    stamp = submission.folder / "timestamp.txt"
    return stamp.read_text().strip() if stamp.exists() else None


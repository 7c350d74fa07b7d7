"""``python -m autograder grade ASSIGNMENT``: grade every submission of an nbgrader course.

This is the batch: find ``submitted/<student>/<assignment>/`` folders, skip those already
graded, send each of the rest through the pipeline (plan -> sandbox -> judge), and
``record`` the results: gradebook, autograded notebook, JSON record, CSV. A rerun skips
submissions whose JSON record matches the same submission, answer key and limits.

Two engines run the sandboxes. ``dask`` (the default, ``autograder.cluster``): Dask
distributed, on a local cluster started here (``--jobs`` threads) or on a running cluster
(``--scheduler``). ``threads``: a plain pool of ``--jobs`` threads in this process, each
with its own sandbox (what ``dask`` is measured against in benchmarks/grade_throughput.py).
Either way this process is the only one that writes results.

Trusts the course directory and its config; student files are only hashed and handed to the
pipeline. Imports the grader's modules and ``nbgrader`` (lazily).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import shutil
import threading
import time
from collections import Counter
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autograder import interrupt
from autograder.cluster import ClusterOptions, overdue_after, run_on_dask, security_for
from autograder.course_dirs import CourseDirs, GradeError, alembic_on_path, source_notebook
from autograder.identities import identity_warnings
from autograder.limits import (
    DEFAULT_JOBS,
    ENGINES,
    SIDE_FILE_BYTES,
    Limits,
)
from autograder.notebook import InvalidSubmission, open_regular, read_capped
from autograder.pipeline import Submission, grade_submission, grader_failure
from autograder.protocol import Status
from autograder.record import (
    load_record,
    record_path,
    save_grades,
    write_autograded,
    write_csv,
    write_record,
)
from autograder.results import NotebookResult
from autograder.sandbox.bwrap import SandboxUnavailable
from autograder.sandbox.worker import Worker
from autograder.spec import AssignmentSpec, load_spec

GRADER_VERSION = "2"
NOT_GRADED = frozenset({Status.INVALID, Status.GRADER_ERROR})
__all__ = ["ENGINES", "ClusterOptions", "GradeError", "Submission", "Summary", "fingerprint",
           "find_submissions", "grade_assignment"]


@dataclass
class Summary:
    graded: list[NotebookResult] = field(default_factory=list)
    skipped: int = 0
    seconds: float = 0.0
    csv: Path | None = None
    submitted: Path | None = None
    stale_feedback: int = 0  # feedback folders removed because their scores were redone
    workers: Counter = field(default_factory=Counter)  # Dask worker -> submissions it ran
    # (student, status) of every submission without a final grade: invalid, grader error,
    # or not final (worker died, or its results could not all be written); rerun for these
    not_graded: list[tuple[str, str]] = field(default_factory=list)
    unrecorded: list[NotebookResult] = field(default_factory=list)  # JSON record failed
    warnings: list[str] = field(default_factory=list)  # look-alike and hidden-character ids

    def statuses(self) -> Counter:
        return Counter(r.status for r in self.graded)


def _linked(path: Path, submitted: Path) -> bool:
    """Whether a symbolic link stands for the notebook or its folders (it could point at the
    answer key, which the grader itself can read)."""
    return (any(p.is_symlink() for p in (path, path.parent, path.parent.parent))
            or not path.resolve().is_relative_to(submitted.resolve()))


def student_id(folder_name: str) -> tuple[str, str]:
    """A student id from a folder name, and why the submission cannot be graded ("" if it
    can). Bytes that are not UTF-8 (which Python keeps as lone surrogates, and no gradebook
    or CSV can hold) are written as ``\\xNN``."""
    try:
        folder_name.encode("utf-8")
        return folder_name, ""
    except UnicodeEncodeError:
        student = os.fsencode(folder_name).decode("utf-8", "backslashreplace")
        return student, (f"the folder name is not UTF-8 text (its bytes are shown as \\x.. "
                         f"in {student!r}); rename the folder and grade again")


def _submission_in(course: CourseDirs, entry: Path, assignment: str,
                   notebook_id: str) -> Submission | None:
    """The submission in ``submitted/<entry>/<assignment>/``, None if there is none. Every
    way the folder can be odd becomes a submission with a reason; nothing here raises."""
    student, problem = student_id(entry.name)
    folder = entry / assignment
    if not folder.is_symlink() and not folder.exists():
        return None
    if problem:
        return Submission(student, folder, None, problem)
    if folder.is_symlink() or entry.is_symlink():  # it could lead to the answer key
        return Submission(student, folder, None, "the submission folder is a symbolic link; "
                          "submit the notebook file itself")
    if not folder.is_dir():
        return Submission(student, folder, None, f"submitted/.../{assignment} is not a "
                          "folder; the notebook must be a file in the submission folder")
    expected = folder / f"{notebook_id}.ipynb"
    others = sorted(p for p in folder.iterdir() if p.suffix == ".ipynb" and p != expected)
    path, note = None, ""
    if expected.exists() or expected.is_symlink():
        path = expected
    elif len(others) == 1:
        path, note = others[0], f"graded {others[0].name}; it should be named {expected.name}"
    elif others:
        names = ", ".join(repr(p.name) for p in others[:5]) + (", ..." if len(others) > 5 else "")
        note = (f"no {expected.name}, and {len(others)} other notebooks ({names}); submit "
                f"only {expected.name}")
    if path is not None and _linked(path, course.submitted):
        path, note = None, "the notebook is a symbolic link; submit the file itself"
    return Submission(student, folder, path, note)


def find_submissions(course: CourseDirs, assignment: str, notebook_id: str) -> list[Submission]:
    """Every ``submitted/<student>/<assignment>/``, odd ones included (each with why it
    cannot be graded), sorted by student id."""
    if not course.submitted.is_dir():
        return []
    found = []
    for entry in course.submitted.iterdir():
        try:
            submission = _submission_in(course, entry, assignment, notebook_id)
        except OSError as error:  # unreadable folder, name too long...: that student's
            student, _ = student_id(entry.name)
            submission = Submission(student, entry / assignment, None,
                                    f"the submission folder cannot be read: {error.strerror}")
        if submission is not None:
            found.append(submission)
    return sorted(found, key=lambda s: s.student)


def fingerprint(submission: Submission, spec: AssignmentSpec, limits: Limits) -> str:
    """What a submission is graded as: its file, the answer key, the grader and the limits.
    A file too large to grade counts by its size and time, and one that cannot be opened
    as a regular file (``notebook.open_regular``) by why, so that nothing here blocks on a
    FIFO or reads gigabytes."""
    digest = hashlib.sha256(b"<none>")
    if submission.path is not None:
        try:
            with open_regular(submission.path) as (file, info):
                if info.st_size <= limits.notebook_bytes:
                    digest = hashlib.file_digest(file, "sha256")
                else:
                    digest = hashlib.sha256(f"<{info.st_size} {info.st_mtime_ns}>".encode())
        except (OSError, InvalidSubmission) as error:
            digest = hashlib.sha256(f"<{type(error).__name__} "
                                    f"{getattr(error, 'errno', '')}>".encode())
    for part in (spec.fingerprint, GRADER_VERSION, repr(asdict(limits)), submission.note):
        digest.update(part.encode("utf-8", "backslashreplace"))
    return digest.hexdigest()


def grade_assignment(course_root: Path, assignment: str, *, jobs: int = DEFAULT_JOBS,
                     limits: Limits | None = None, sandbox: bool = True, regrade: bool = False,
                     progress: bool = True, engine: str = "dask",
                     cluster: ClusterOptions | None = None,
                     image_hosts: Collection[str] = ()) -> Summary:
    """Grade every submission of ``assignment`` not yet graded (all with ``regrade``), on
    ``engine`` ("dask": a local cluster, or ``cluster.scheduler``; "threads": a local pool).
    Whatever a submission holds, it ends in its own record (``invalid notebook`` for a file
    the grader refuses, ``grader error`` for a failure of the grader's) and the run goes
    on; ``Summary.not_graded`` lists them. ``image_hosts``: web hosts the autograded
    notebooks may show images from (none: embedded images only)."""
    limits = limits or Limits()
    cluster = cluster or ClusterOptions()
    if engine not in ENGINES:
        raise GradeError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "threads" and cluster != ClusterOptions():
        raise GradeError("--scheduler, --tls-* and --gpu need the dask engine")
    if cluster.scheduler is not None:
        security_for(cluster)  # refuse an unsafe or malformed address before any work
    course = CourseDirs.load(course_root)
    source_nb = source_notebook(course, assignment)
    notebook_id = source_nb.stem
    spec = load_spec(source_nb)
    with _open_gradebook(course, assignment, notebook_id) as gradebook:
        summary = Summary(submitted=course.submitted)
        todo = []
        submissions = find_submissions(course, assignment, notebook_id)
        summary.warnings = identity_warnings(s.student for s in submissions)
        for submission in submissions:
            key = fingerprint(submission, spec, limits)
            done = load_record(record_path(course.root, assignment, submission.student))
            if not regrade and isinstance(done, dict) and done.get("fingerprint") == key:
                summary.skipped += 1
                if done.get("status") in NOT_GRADED:
                    summary.not_graded.append((submission.student, str(done.get("status"))))
            else:
                todo.append((submission, key))

        started = time.perf_counter()
        if engine == "dask":
            results = run_on_dask(todo, spec, assignment, jobs, limits, sandbox, cluster,
                                  summary.workers)
        else:
            results = _run_parallel(todo, spec, assignment, jobs, limits, sandbox)
        bar = _progress_bar(len(todo), progress and bool(todo))
        try:
            with contextlib.closing(results):
                for submission, key, result in results:
                    interrupt.check()
                    _record(course, gradebook, spec, notebook_id, submission, key, result,
                            summary, limits, image_hosts)
                    bar.update(1)
        finally:
            bar.close()
        summary.seconds = time.perf_counter() - started
    summary.csv = write_csv(course.root, assignment, spec, summary.unrecorded)
    return summary


def _open_gradebook(course: CourseDirs, assignment: str, notebook_id: str) -> Any:
    """The course's gradebook, which must already hold the assignment's notebook."""
    from nbgrader.api import Gradebook, MissingEntry

    missing_entry = GradeError(
        f"{assignment} is not in the gradebook ({course.db_url}); run "
        f"`nbgrader generate_assignment {assignment}` in {course.root} first")
    database = course.db_url.removeprefix("sqlite:///")
    if course.db_url.startswith("sqlite:///") and not Path(database).exists():
        raise missing_entry  # opening it would create an empty one
    with alembic_on_path():  # opening the gradebook may run alembic
        gradebook = Gradebook(course.db_url)
    try:
        gradebook.find_notebook(notebook_id, assignment)
    except MissingEntry:
        gradebook.close()
        raise missing_entry from None
    return gradebook


def _record(course: CourseDirs, gradebook: Any, spec: AssignmentSpec, notebook_id: str,
            submission: Submission, key: str, result: NotebookResult, summary: Summary,
            limits: Limits, image_hosts: Collection[str]) -> None:
    """Everything a graded submission leaves on disk; its JSON record last (it marks it
    done). A step that fails costs this submission a rerun (its record is written without
    its fingerprint, or, if even that fails, its row goes into the CSV from memory), never
    the batch."""
    assignment = result.assignment
    problems = []
    try:
        save_grades(gradebook, result, notebook_id, _timestamp(submission))
    except Exception as error:  # noqa: BLE001
        gradebook.db.rollback()
        problems.append(f"the gradebook: {type(error).__name__}: {str(error)[:300]}")
    try:  # (none for a folder without a notebook: it may be a link, to the answer key)
        if submission.path is not None:
            folder = course.autograded / submission.student / assignment
            write_autograded(folder / f"{notebook_id}.ipynb", submission.path, result, spec,
                             limits=limits, image_hosts=image_hosts)
    except Exception as error:  # noqa: BLE001
        problems.append(f"autograded/: {type(error).__name__}: {str(error)[:300]}")
    if problems:
        result.final = False
        result.message = "; ".join(m for m in (result.message, "could not be written to "
                                   + "; ".join(problems) + "; rerun grade") if m)
    if not result.final or result.status in NOT_GRADED:
        summary.not_graded.append((submission.student, result.status))
    # a result that is not final (its worker died) is recorded without its fingerprint, so
    # that the next run grades the submission again
    try:
        write_record(record_path(course.root, assignment, submission.student), result,
                     key if result.final else "")
    except Exception:  # noqa: BLE001 - the CSV still gets its row, from memory
        summary.unrecorded.append(result)
    # Feedback written before this grading shows old scores (and, if stock autograde
    # made it, hidden tests); generate_feedback skips folders that exist, so drop it.
    stale = course.feedback / submission.student / assignment
    if stale.is_dir() and not stale.is_symlink():
        shutil.rmtree(stale, ignore_errors=True)
        summary.stale_feedback += 1
    summary.graded.append(result)


def _run_parallel(todo, spec, assignment, jobs, limits, sandbox):
    """Yield (submission, fingerprint, result) as workers finish them, in any order. A
    submission not back within ``overdue_after(limits)`` (the sandbox's own watchdog
    failed, or the grader hangs) is given up: its result says so and is not final, and a
    new thread takes its place."""
    if not todo:
        return
    work: queue.Queue = queue.Queue()
    for item in todo:
        work.put(item)
    done: queue.Queue = queue.Queue()
    stop = threading.Event()
    in_flight: dict[int, tuple[Submission, str, float]] = {}  # thread number → its item
    given_up: set[int] = set()

    def serve(number: int, slot: int) -> None:
        try:
            with Worker(limits, slot=slot, sandbox=sandbox) as worker:
                while not stop.is_set() and number not in given_up:
                    try:
                        submission, key = work.get_nowait()
                    except queue.Empty:
                        return
                    in_flight[number] = (submission, key, time.monotonic())
                    try:
                        result = grade_submission(worker, spec, submission, assignment)
                    except Exception as error:  # a grader bug costs this submission only
                        result = grader_failure(spec, submission, assignment, error)
                    if in_flight.pop(number, None) is not None:
                        done.put((submission, key, result))
        except BaseException as error:  # surface a worker that cannot start
            done.put(error)

    threads: list[threading.Thread] = []

    def start(slot: int) -> None:
        number = len(threads)
        threads.append(threading.Thread(target=serve, args=(number, slot), daemon=True))
        threads[-1].start()

    for slot in range(max(1, min(jobs, len(todo)))):
        start(slot)
    overdue = overdue_after(limits)
    try:
        for _ in range(len(todo)):
            while True:
                try:
                    item = done.get(timeout=5.0)
                    break
                except queue.Empty:
                    interrupt.check()
                    item = _give_up_overdue(in_flight, given_up, overdue, spec, assignment)
                    if item is not None:
                        # a new thread on a fresh slot: the stuck one may hold its sandbox
                        start(jobs + len(given_up))
                        break
            if isinstance(item, SandboxUnavailable):
                raise GradeError(f"a sandboxed worker could not start: {item}")
            if isinstance(item, BaseException):
                raise item
            yield item
        for thread in threads:  # all done: let each worker close its sandbox
            thread.join(timeout=60)
    finally:
        # On Ctrl-C or an error, do not wait for submissions in flight: the threads are
        # daemons and each sandbox dies with this process (bwrap --die-with-parent).
        stop.set()


def _give_up_overdue(in_flight: dict, given_up: set[int], overdue: float,
                     spec: AssignmentSpec,
                     assignment: str) -> tuple[Submission, str, NotebookResult] | None:
    """The first submission in flight for longer than ``overdue`` seconds, as a not-final
    grader error (its thread is marked given up and its late result dropped), or None."""
    now = time.monotonic()
    for number, (submission, key, since) in list(in_flight.items()):
        if now - since > overdue and in_flight.pop(number, None) is not None:
            given_up.add(number)
            return submission, key, grader_failure(
                spec, submission, assignment,
                f"no result after {overdue:.0f} s; the grader gave up waiting for it")
    return None


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="submission", disable=not enabled, dynamic_ncols=True)


def _timestamp(submission: Submission) -> str | None:
    """The submission's ``timestamp.txt``, if it is a small regular file holding a time
    nbgrader can read; None otherwise (the gradebook then keeps no time for it)."""
    from nbgrader import utils

    try:
        text = read_capped(submission.folder / "timestamp.txt", SIDE_FILE_BYTES)
        stamp = text.decode("utf-8").strip()
        utils.parse_utc(stamp)
        return stamp
    except Exception:  # noqa: BLE001 - missing, a FIFO, huge, not a time: no timestamp
        return None

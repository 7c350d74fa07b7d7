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

import hashlib
import queue
import shutil
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autograder.cluster import ClusterOptions, run_on_dask, security_for
from autograder.course_dirs import CourseDirs, GradeError, alembic_on_path, source_notebook
from autograder.limits import DEFAULT_JOBS, ENGINES, Limits
from autograder.pipeline import Submission, grade_submission, grader_failure
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

GRADER_VERSION = "1"
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

    def statuses(self) -> Counter:
        return Counter(r.status for r in self.graded)


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


def grade_assignment(course_root: Path, assignment: str, *, jobs: int = DEFAULT_JOBS,
                     limits: Limits | None = None, sandbox: bool = True, regrade: bool = False,
                     progress: bool = True, engine: str = "dask",
                     cluster: ClusterOptions | None = None) -> Summary:
    """Grade every submission of ``assignment`` not yet graded (all with ``regrade``), on
    ``engine`` ("dask": a local cluster, or ``cluster.scheduler``; "threads": a local pool)."""
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
        for submission in find_submissions(course, assignment, notebook_id):
            key = fingerprint(submission, spec, limits)
            done = load_record(record_path(course.root, assignment, submission.student))
            if not regrade and done and done.get("fingerprint") == key:
                summary.skipped += 1
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
            for submission, key, result in results:
                _record(course, gradebook, spec, notebook_id, submission, key, result, summary)
                bar.update(1)
        finally:
            bar.close()
        summary.seconds = time.perf_counter() - started
    summary.csv = write_csv(course.root, assignment, spec)
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
            submission: Submission, key: str, result: NotebookResult, summary: Summary) -> None:
    """Everything a graded submission leaves on disk; its JSON record last (it marks it done)."""
    assignment = result.assignment
    save_grades(gradebook, result, notebook_id, _timestamp(submission))
    if submission.path is not None:
        folder = course.autograded / submission.student / assignment
        write_autograded(folder / f"{notebook_id}.ipynb", submission.path, result, spec)
    # a result that is not final (its worker died) is recorded without its fingerprint, so
    # that the next run grades the submission again
    write_record(record_path(course.root, assignment, submission.student), result,
                 key if result.final else "")
    # Feedback written before this grading shows old scores (and, if stock autograde
    # made it, hidden tests); generate_feedback skips folders that exist, so drop it.
    stale = course.feedback / submission.student / assignment
    if stale.is_dir():
        shutil.rmtree(stale)
        summary.stale_feedback += 1
    summary.graded.append(result)


def _run_parallel(todo, spec, assignment, jobs, limits, sandbox):
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
                        result = grader_failure(spec, submission, assignment, error)
                    done.put((submission, key, result))
        except BaseException as error:  # surface a worker that cannot start
            done.put(error)

    threads = [threading.Thread(target=serve, args=(slot,), daemon=True)
               for slot in range(max(1, min(jobs, len(todo))))]
    for thread in threads:
        thread.start()
    try:
        for _ in range(len(todo)):
            item = done.get()
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


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="submission", disable=not enabled, dynamic_ncols=True)


def _timestamp(submission: Submission) -> str | None:
    stamp = submission.folder / "timestamp.txt"
    return stamp.read_text().strip() if stamp.exists() else None


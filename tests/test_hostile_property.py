"""Property: whatever a student does to their file, it costs that submission only.

Two tests draw hostile submissions (``hostile._mutations``: a right answer with a JSON
value anywhere replaced by any other, its bytes cut or spliced, the notebook a FIFO or a
folder, extra files, an odd folder name):

- in this process, many of them through everything the coordinator does with a file
  (find, fingerprint, plan, judge any values, write the autograded notebook): nothing
  raises, an invalid file says why, and the notebook written is valid;
- a few batches through the real ``grade`` on each engine, honest students in each: the
  batch ends in bounded time, the honest ones score full marks, every mutated one has a
  record, and the exit status says whether some have no final grade.

``HOSTILE_EXAMPLES`` raises the number of batches (benchmarks/hostile_property.py runs
many more and reports the figures).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from hostile._kit import FULL, INVALID, A, solution, submit
from hostile._mutations import CELL_FIELDS, Mutation, folder_names, json_values, mutations
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.nbgrader_course import Course

from autograder.cli import NOT_ALL_GRADED
from autograder.course import instructor_notebook
from autograder.grade import _submission_in, fingerprint, student_id
from autograder.identities import printable
from autograder.limits import Limits
from autograder.pipeline import judged, planned
from autograder.plan import Plan
from autograder.protocol import CaseOutcome, Report, Status
from autograder.record import record_path, write_autograded
from autograder.sandbox import sandbox_available
from autograder.spec import load_spec

SPEC = load_spec(instructor_notebook(A))
LIMITS = Limits()
AVAILABLE, WHY = sandbox_available()
BATCHES = int(os.environ.get("HOSTILE_EXAMPLES", "2"))
BATCH_SIZE = 4  # mutated submissions per batch, beside one honest one
BATCH_SECONDS = 420  # the grade command's bound here; a hang fails the test


def coordinate(submitted: Path, student: str, values: list) -> tuple[object, Path | None]:
    """Everything the coordinator does with one submission folder, in this process, with
    ``values`` as what the student's functions returned. Returns the result and the
    autograded notebook written (None for a folder without a notebook)."""
    entry = submitted / student
    submission = _submission_in(SimpleNamespace(submitted=submitted), entry, A, A)
    assert submission is not None
    fingerprint(submission, SPEC, LIMITS)
    plan = planned(SPEC, submission, A, LIMITS)
    if isinstance(plan, Plan):
        cases = {gid: [CaseOutcome(value=values[i % len(values)]) for i, _ in
                       enumerate(check.cases)] for gid, check in SPEC.checks.items()}
        result = judged(SPEC, submission, A, plan, Report(Status.OK, cases=cases))
    else:
        result = plan
    target = None
    if submission.path is not None:
        target = submitted.parent / "autograded" / f"{A}.ipynb"
        write_autograded(target, submission.path, result, SPEC, limits=LIMITS)
    return result, target


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutation=mutations(), name=folder_names,
       values=st.lists(json_values, min_size=1, max_size=3))
def test_the_coordinator_never_fails_on_a_file(mutation: Mutation, name: str,
                                               values: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        submitted = Path(tmp) / "submitted"
        mutation.write(submitted, name)
        started = time.monotonic()
        result, notebook = coordinate(submitted, name, values)
        assert time.monotonic() - started < 20  # one file, however odd
        assert result.status != Status.GRADER_ERROR, result.message
        assert result.max_score == FULL
        if result.status == INVALID:
            assert result.message and result.score == 0
        if notebook is not None:
            nbformat.validate(nbformat.read(notebook, as_version=4))
        json.dumps(result.to_json())  # a record can be written


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Course:
    course = Course(tmp_path_factory.mktemp("hostile-property"))
    course.add_assignment(A)
    return course


def grade_batch(course_root: Path, engine: str, number: int,
                batch: list[tuple[Mutation, str]]) -> float:
    """Grade one honest submission and ``batch`` (mutation, folder name) with the real
    command, check the invariant, and return the seconds the batch took."""
    submitted = course_root / "submitted"
    honest = f"honest-{engine}-{number}"
    submit(submitted, honest, solution())
    students = []
    for mutation, name in batch:
        student = f"{engine}-{number}-{name}"
        mutation.write(submitted, student)
        students.append(student)
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", A, f"--course={course_root}",
         "--jobs=2", "--cell-timeout=20", "--timeout=60", "--memory-gb=2",
         "--no-progress", f"--engine={engine}"],
        capture_output=True, text=True, timeout=BATCH_SECONDS,
        env=dict(os.environ, NBGRADER_EXECUTION="autograde"))
    seconds = time.monotonic() - started
    assert run.returncode in (0, NOT_ALL_GRADED), run.stderr[-3000:]
    record = json.loads(record_path(course_root, A, honest).read_text())
    assert (record["status"], record["score"]) == ("graded", FULL), run.stderr[-3000:]
    for student in students:
        path = record_path(course_root, A, student_id(student)[0])
        assert path.is_file(), f"no record for {printable(student)}: {run.stderr[-2000:]}"
        record = json.loads(path.read_text())
        assert record["status"] != Status.GRADER_ERROR, record["message"]
        if record["status"] == INVALID:
            assert record["message"]
            assert printable(student_id(student)[0]) in run.stderr
    return seconds


batches = st.lists(st.tuples(mutations(), folder_names), min_size=BATCH_SIZE,
                   max_size=BATCH_SIZE, unique_by=lambda pair: pair[1])


@pytest.mark.slow
@pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox here: {WHY}")
@pytest.mark.parametrize("engine", ["threads", "dask"])
def test_a_batch_of_hostile_submissions_costs_only_themselves(course, engine):
    numbers = iter(range(10**6))

    @settings(max_examples=BATCHES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(batch=batches)
    def one_batch(batch: list[tuple[Mutation, str]]) -> None:
        grade_batch(course.root, engine, next(numbers), batch)

    one_batch()


# Every field the grader reads, in a solution cell, a test cell and a markdown cell, set to
# one value of each kind: the exhaustive part, since a random path rarely hits one field.
KINDS = [None, True, -1, 10**400, 1.5, "", "x" * 3000, "\udc80", [], ["a", 1], {}, {"a": [{}]}]
SOLUTION_CELLS = json.loads(json.dumps(solution()))["cells"]
TARGETS = {  # what the cell is → its index in the solution
    "solution": next(i for i, c in enumerate(SOLUTION_CELLS)
                     if c["metadata"].get("nbgrader", {}).get("solution")),
    "test": next(i for i, c in enumerate(SOLUTION_CELLS)
                 if c["metadata"].get("nbgrader", {}).get("grade_id", "").startswith("test_")),
    "markdown": next(i for i, c in enumerate(SOLUTION_CELLS) if c["cell_type"] == "markdown"),
}


@pytest.mark.parametrize("field", CELL_FIELDS, ids=lambda f: ".".join(map(str, f)))
def test_every_field_of_every_kind_of_cell_with_every_kind_of_value(field):
    for where, index in TARGETS.items():
        for value in KINDS:
            with tempfile.TemporaryDirectory() as tmp:
                submitted = Path(tmp) / "submitted"
                Mutation("field", path=["cells", index, *field], value=value).write(
                    submitted, "s")
                result, notebook = coordinate(submitted, "s", [1])
                context = f"{where} cell, {field} = {str(value)[:40]!r}: {result.message}"
                assert result.status != Status.GRADER_ERROR, context
                if notebook is not None:
                    nbformat.validate(nbformat.read(notebook, as_version=4))

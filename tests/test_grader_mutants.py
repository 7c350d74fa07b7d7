"""Tests written to fail on a broken grader: each kills mutants that once passed the suite.

How to repeat: copy the repository (without .venv/.git) to a temp dir, plant one mutant there
(a one-line edit of the file named), and run the named test from that copy with the copy first
on the path: ``cd COPY && PYTHONPATH=COPY pytest tests/...`` (the venv has /work/main installed
editable; the current directory, and so PYTHONPATH, comes first). The test must fail there and
pass here.

Mutants (file: edit -> test that kills it):

1.  checks.py: ``DEFAULT_REL = 1e-4`` (or 1e-9) -> test_checks.py::test_default_tolerance_
    rejects_a_small_slip_and_accepts_float32; ``is_exact`` returning False for ints ->
    test_checks.py::test_an_integer_expected_value_is_exact_unless_the_case_gives_a_tolerance
2.  checks.py: a nan expectation ``return None`` for any number -> test_checks.py::
    test_nan_expectation_accepts_only_nan
3.  checks.py ``to_plain``: tensors of 2+ dimensions ``.flatten().tolist()`` or
    ``.sum().item()`` -> test_checks.py::test_tensors_keep_their_shape
4.  plan.py: ``normalise(check.student_source) not in normalise(cell_source(cell))``
    (containment),
    or the ``cell_type != "code"`` test dropped (a raw or markdown test cell) ->
    test_plan.py::test_a_test_cell_with_a_line_added_or_another_type_is_edited
5.  plan.py: ``unchanged = original is not None`` (or ``normalise(original) in ...``) ->
    test_plan.py::test_a_changed_demo_cell_runs_in_the_fast_plan
6.  pipeline.py: ``needs_full_run`` returns False -> here, test_each_submission_scores_what_it_
    deserves[uses-demo-variable] (the solution uses ``estimate``, set by a demo cell)
7.  judge.py: a hidden failure's message with ``(expected {case.expect})`` appended ->
    test_judge.py::test_failed_hidden_checks_show_neither_their_call_nor_their_expected_value,
    test_judge.py::test_no_hidden_value_of_the_course_reaches_a_failure_message, and here
    test_no_hidden_value_reaches_a_record_the_autograded_notebook_or_the_feedback
8.  grade.py ``fingerprint``: ``spec.fingerprint`` or ``repr(asdict(limits))`` left out of the
    hash -> here, test_fingerprint_covers_notebook_answer_key_and_limits and
    test_a_new_answer_key_or_new_limits_regrade_everything
9.  record.py ``save_grades``: ``needs_manual_grade = grade.manual_score is not None`` (tampering
    not flagged) -> here, test_tampered_exercises_need_manual_grading_in_the_gradebook
10. grade.py ``_linked``: ``return False``, or ``path.parent.parent`` left out ->
    here, test_each_submission_scores_what_it_deserves[linked-*]
11. cli.py ``_check``: ``return 0`` when the JSON cannot be written, or exit 1 for a zero
    score -> test_check_cli.py::test_json_that_cannot_be_written_after_grading_exits_2,
    test_check_cli.py::test_zero_score_exits_0_and_shows_no_hidden_value
12. gpu_cells.py ``gpu_only``: the body run without CUDA -> test_gpu_cells.py::
    test_without_cuda_the_body_never_runs_and_the_skip_is_said
13. timing.py ``_resolve_device(None)``: "cuda" if available else "cpu" -> test_timing.py::
    test_default_device_honours_lecture_device, test_default_device_is_mps_on_a_mac_and_is_
    synchronised
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from giveaways import WRONG_NUMBER, answering_everything_with, hidden_giveaways
from support.nbgrader_course import Course
from support.submissions import perfect_submission, with_answer

from autograder.cli import NOT_ALL_GRADED
from autograder.course import instructor_notebook
from autograder.grade import Submission, fingerprint, grade_assignment
from autograder.sandbox import Limits, sandbox_available
from autograder.spec import AssignmentSpec, load_spec

AVAILABLE, WHY = sandbox_available()
needs_sandbox = pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox here: {WHY}")
A = "01_tensors_and_memory"
FULL = 7  # tensor_bytes 1 + bytes_for 2 + storage_bytes 2 + adamw_bytes_per_param 2
ARGS = ("--jobs=2", "--cell-timeout=30", "--timeout=150", "--memory-gb=2", "--no-progress")
# Right, but only with the demo cell's `estimate = 4 * 8 * 4` (128) run first: the fast plan
# skips that cell, so the first run raises NameError and the grader must rerun in full.
USES_DEMO = ("def tensor_bytes(x):\n"
             "    return estimate * x.numel() * x.element_size() // (4 * 8 * 4)\n")


def _grade(root: Path, *extra: str) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", A, f"--course={root}",
                          *ARGS, *extra], capture_output=True, text=True, timeout=600)
    # 3: some have no final grade (the linked ones, refused as invalid), each named
    assert run.returncode in (0, NOT_ALL_GRADED), run.stderr[-3000:]
    if run.returncode == NOT_ALL_GRADED:
        named = set(re.findall(r'^  "(.*)": ', run.stderr, re.MULTILINE))
        assert named and named <= set(LINKED), run.stderr[-3000:]
    return run


def _records(root: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (root / "grades" / A).glob("*.json")}


def test_fingerprint_covers_notebook_answer_key_and_limits(tmp_path):
    """Kills: a fingerprint without ``spec.fingerprint`` or without the limits (a rerun would
    skip scores made with the old answer key or limits), and a ``load_spec`` fingerprint that
    misses a hidden expected value."""
    notebook = tmp_path / "mine.ipynb"
    notebook.write_text("{}")
    submission = Submission("ada", tmp_path, notebook)
    key = AssignmentSpec(A, fingerprint="answer key 1")
    first = fingerprint(submission, key, Limits())
    assert fingerprint(submission, key, Limits()) == first
    assert fingerprint(submission, AssignmentSpec(A, fingerprint="answer key 2"),
                       Limits()) != first
    assert fingerprint(submission, key, Limits(cell_seconds=31)) != first
    assert fingerprint(submission, key, Limits(memory_bytes=2**31)) != first
    notebook.write_text("{ }")
    assert fingerprint(submission, key, Limits()) != first

    source = instructor_notebook(A).read_text(encoding="utf-8")
    fixed = tmp_path / f"{A}.ipynb"
    fixed.write_text(_new_answer_key(source), encoding="utf-8")
    assert load_spec(fixed).fingerprint != load_spec(instructor_notebook(A)).fingerprint


def _new_answer_key(source: str) -> str:
    """The instructor notebook with one hidden expected value changed (80 -> 81): what a
    fixed answer key looks like. The released test cell is unchanged."""
    old = '\\"tensor_bytes(torch.arange(10))\\", 80,'
    assert source.count(old) == 1
    return source.replace(old, old.replace("80", "81"))


# --- one batch of submissions, graded by the real command ----------------------------------------


def _linked_elsewhere(root: Path, student: str) -> None:
    """submitted/<student> is a link to the course's source/: its notebook is the answer key."""
    (root / "submitted" / student).symlink_to(root / "source")


def _linked_to_classmate(root: Path, student: str) -> None:
    (root / "submitted" / student).symlink_to(root / "submitted" / "uses-demo-variable")


def _assignment_folder_linked(root: Path, student: str) -> None:
    (root / "submitted" / student).mkdir()
    (root / "submitted" / student / A).symlink_to(root / "submitted" / "uses-demo-variable" / A)


SUBMISSIONS = {  # student -> (notebook, expected score, expected status)
    "uses-demo-variable": (lambda: with_answer(perfect_submission(A), "tensor_bytes", USES_DEMO),
                           FULL, "graded"),
    "all-wrong": (lambda: answering_everything_with(A, WRONG_NUMBER), 0, "graded"),
    "test-cell-with-a-line-added": (lambda: with_answer(
        perfect_submission(A), "test_tensor_bytes",
        load_spec(instructor_notebook(A)).checks["test_tensor_bytes"].student_source
        + "\nprint('All 14 checks passed.')"), FULL - 1, "tampered"),
}
LINKED = {  # made after the others, so that they can point at them
    "linked-to-source": _linked_elsewhere,
    "linked-to-classmate": _linked_to_classmate,
    "assignment-folder-linked": _assignment_folder_linked,
}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Course:
    """A course with assignment 01 in its gradebook (nbgrader takes ~20 s to make one)."""
    course = Course(tmp_path_factory.mktemp("mutants-course"))
    course.add_assignment(A)
    return course


@pytest.fixture(scope="module")
def batch(course):
    root = course.root
    for student, (make, _, _) in SUBMISSIONS.items():
        course.submit(student, A, make())
    for student, link in LINKED.items():
        link(root, student)
    run = _grade(root)
    return course, run, _records(root)


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("student", [*SUBMISSIONS, *LINKED])
def test_each_submission_scores_what_it_deserves(batch, student):
    """Kills mutants 6 (``needs_full_run`` always False: uses-demo-variable loses
    tensor_bytes) and 10 (a linked folder graded: linked-to-classmate would score FULL, and
    linked-to-source would be graded as the instructor notebook, solutions and all)."""
    _, _, records = batch
    record = records[student]
    score, status = SUBMISSIONS[student][1:] if student in SUBMISSIONS else (0, "invalid notebook")
    summary = f"{student}: {record['status']} {record['message']}\n" + "\n".join(
        f"  {t['grade_id']} {t['points']}/{t['max_points']} {t['status']}: {t['message'][:300]}"
        for t in record["tests"])
    assert (record["score"], record["status"]) == (score, status), summary
    if student in LINKED:
        assert "symbolic link" in record["message"]


@pytest.mark.slow
@needs_sandbox
def test_linked_folders_leave_no_autograded_notebook(batch):
    """A linked folder may lead to the answer key: nothing of it reaches autograded/ (which
    generate_feedback renders for the student)."""
    course, _, _ = batch
    for student in LINKED:
        assert not (course.root / "autograded" / student).exists(), student


@pytest.mark.slow
@needs_sandbox
def test_tampered_exercises_need_manual_grading_in_the_gradebook(batch):
    """Kills mutant 9: formgrader lists a submission for review only through the gradebook's
    ``needs_manual_grade``, so a tampered exercise must set it (and nothing else may)."""
    from nbgrader.api import Gradebook

    course, _, _ = batch
    with Gradebook(course.db_url) as gradebook:
        def flags(student):
            notebook = gradebook.find_submission_notebook(A, A, student)
            return notebook.needs_manual_grade, {g.name: g.needs_manual_grade
                                                 for g in notebook.grades if g.cell_type == "code"}

        flagged, grades = flags("test-cell-with-a-line-added")
        assert flagged and grades.pop("test_tensor_bytes") is True
        assert grades and not any(grades.values()), grades
        for student in ("uses-demo-variable", "all-wrong"):
            flagged, grades = flags(student)
            assert not flagged and not any(grades.values()), student


@pytest.mark.slow
@needs_sandbox
def test_no_hidden_value_reaches_a_record_the_autograded_notebook_or_the_feedback(batch):
    """Kills mutant 7 end to end: everything the all-wrong student can read is searched for
    the hidden cases' calls and expected values."""
    course, _, _ = batch
    giveaways = hidden_giveaways(load_spec(instructor_notebook(A)))
    course.nbgrader("generate_feedback", A, "--student=all-wrong")
    seen = {
        "record": (course.root / "grades" / A / "all-wrong.json").read_text(),
        "autograded": course.autograded("all-wrong", A).read_text(),
        "feedback": (course.root / "feedback" / "all-wrong" / A / f"{A}.html").read_text(),
    }
    assert "hidden check 9 failed" in seen["record"]  # every hidden check failed, so would leak
    for where, text in seen.items():
        leaked = [g for g in giveaways if g in text or g.replace("'", "&#39;") in text]
        assert leaked == [], where


@pytest.mark.slow
@needs_sandbox
def test_a_new_answer_key_or_new_limits_regrade_everything(course, tmp_path):
    """Kills mutant 8 end to end: grade; rerun (skipped); fix the answer key and rerun (must
    regrade, not keep the stale score); change a limit and rerun (must regrade). Graded in
    process (the command's start-up costs ~10 s a run here; the batch above runs it)."""
    root = tmp_path / "course"
    Course(root).submit("ada", A, perfect_submission(A))  # one student, in a copy of `course`
    shutil.copytree(course.root / "source", root / "source")
    shutil.copy(course.root / "gradebook.db", root / "gradebook.db")  # it has the assignment
    limits = Limits(cell_seconds=30, submission_seconds=150, memory_bytes=2 * 2**30)

    def grade(limits: Limits) -> tuple[int, int, dict]:
        summary = grade_assignment(root, A, jobs=1, limits=limits, progress=False)
        tests = {t["grade_id"]: t for t in _records(root)["ada"]["tests"]}
        return len(summary.graded), summary.skipped, tests

    graded, skipped, tests = grade(limits)
    assert (graded, skipped) == (1, 0) and sum(t["points"] for t in tests.values()) == FULL
    assert grade(limits)[:2] == (0, 1)  # nothing changed: skipped

    source = root / "source" / A / f"{A}.ipynb"
    source.write_text(_new_answer_key(source.read_text(encoding="utf-8")), encoding="utf-8")
    graded, skipped, tests = grade(limits)
    assert (graded, skipped) == (1, 0)
    assert tests["test_tensor_bytes"]["points"] == 0  # the correct 80 is now "wrong"
    assert "hidden check 2 failed" in tests["test_tensor_bytes"]["message"]

    assert grade(dataclasses.replace(limits, cell_seconds=31))[:2] == (1, 0)

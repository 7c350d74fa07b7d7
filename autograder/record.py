"""Write a graded submission where nbgrader and the instructor expect it.

- the gradebook: one score per test cell, so formgrader, ``nbgrader export`` and
  ``nbgrader generate_feedback`` work as after a stock autograde;
- ``autograded/<student>/<assignment>/<notebook>.ipynb``: the submission with each test cell
  restored to its released form (no hidden tests) and its output set to our verdict, which
  is what ``generate_feedback`` renders; sanitised (``autograder.sanitize``), because
  formgrader shows it in the instructor's Jupyter session and the feedback is made from it;
- ``grades/<assignment>/<student>.json``: the same record ``python -m autograder check``
  writes, plus a fingerprint that lets a rerun skip work already done;
- ``grades/<assignment>.csv``: one row per student, one column per question.

The JSON record is written last, so a submission counts as done only once everything else
for it is on disk; an interrupted run regrades at most the submissions in flight.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import shutil
import warnings
from pathlib import Path
from typing import Any

import nbformat

from autograder.notebook import grade_id as grade_id_of
from autograder.protocol import Status
from autograder.results import NotebookResult
from autograder.sanitize import note_cell, numbered_notes, plain_text, sanitize_notebook
from autograder.spec import AssignmentSpec


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def record_path(course_root: Path, assignment: str, student: str) -> Path:
    return course_root / "grades" / assignment / f"{student}.json"


def load_record(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_record(path: Path, result: NotebookResult, fingerprint: str) -> None:
    data = result.to_json()
    data["fingerprint"] = fingerprint
    _atomic_write(path, json.dumps(data, indent=2) + "\n")


def save_grades(gradebook: Any, result: NotebookResult, notebook_id: str,
                timestamp: str | None) -> None:
    """Scores into nbgrader's gradebook (tampered cells are flagged for a human to look at)."""
    from nbgrader import utils

    gradebook.update_or_create_student(result.student)
    kwargs = {"timestamp": utils.parse_utc(timestamp)} if timestamp else {}
    with warnings.catch_warnings():  # nbgrader's own ORM code warns on every new submission
        warnings.filterwarnings("ignore", message=".*not in session.*")
        gradebook.update_or_create_submission(result.assignment, result.student, **kwargs)
    for test in result.tests:
        grade = gradebook.find_grade(test.grade_id, notebook_id, result.assignment,
                                     result.student)
        grade.auto_score = test.points
        grade.needs_manual_grade = test.status == Status.TAMPERED or grade.manual_score is not None
    gradebook.db.commit()


def _verdict_outputs(status: str, message: str) -> list[Any]:
    message = plain_text(message)  # it may quote the student's values: no terminal escapes
    if status == Status.PASSED:
        return [nbformat.v4.new_output("stream", name="stdout", text=message + "\n")]
    return [nbformat.v4.new_output("error", ename=f"Grader ({status})", evalue=message,
                                   traceback=message.splitlines())]


def write_autograded(target: Path, submitted: Path, result: NotebookResult,
                     spec: AssignmentSpec) -> None:
    """The notebook ``generate_feedback`` turns into the student's feedback page, and
    formgrader shows. It is sanitised here, the one place the grader writes what people
    open: whatever the submission holds that could run in a browser is removed, and if any
    was, a note at the top of the notebook and in ``result.message`` (so in the JSON record,
    written after this) says what; the score is unchanged."""
    if result.status == Status.INVALID:  # not read again (it may be huge): the page says why
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
            f"**This submission could not be graded:** {result.message}. It scores 0.")])
    else:
        try:
            notebook = nbformat.reads(submitted.read_text(encoding="utf-8"), as_version=4)
        except Exception:  # unreadable after all: an empty page with the verdicts
            notebook = nbformat.v4.new_notebook()
    # first, so that what follows reads well-formed cells whatever the student's JSON held
    removed = sanitize_notebook(notebook, grade_ids=set(spec.checks) | spec.solution_ids)
    # (the verdicts added below are the grader's own plain-text outputs)
    verdicts = {t.grade_id: t for t in result.tests}
    cells, seen = [], set()
    for cell in notebook.cells:
        grade_id = grade_id_of(cell)
        if grade_id in seen:  # a duplicated graded cell: keep only the first
            continue
        if grade_id:
            seen.add(grade_id)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            if grade_id in spec.checks:
                cell.source = spec.checks[grade_id].student_source
                cell.metadata["nbgrader"] = copy.deepcopy(spec.checks[grade_id].metadata)
                test = verdicts[grade_id]
                cell.outputs = _verdict_outputs(test.status, test.message)
        cells.append(cell)
    notebook.cells = cells
    if removed:
        notes = numbered_notes(removed, cells, number_from=2)  # the note becomes cell 1
        notebook.cells.insert(0, note_cell(notes))
        note = "content that could run in a browser was removed from the autograded " \
            "notebook (score unchanged): " + "; ".join(notes)
        result.message = "; ".join(m for m in (result.message, note) if m)
    _atomic_write(target, nbformat.writes(notebook))
    stamp = submitted.parent / "timestamp.txt"
    # copied only as a small plain file: a link could point at the answer key, and
    # generate_feedback copies every file here into the feedback students receive
    if stamp.is_file() and not stamp.is_symlink() and stamp.stat().st_size < 1024:
        shutil.copy(stamp, target.parent / "timestamp.txt")


def write_csv(course_root: Path, assignment: str, spec: AssignmentSpec) -> Path:
    """Rebuild the per-question CSV from every JSON record (so reruns never duplicate rows)."""
    folder = course_root / "grades" / assignment
    questions = list(spec.checks)
    rows = []
    for path in sorted(folder.glob("*.json")):
        data = load_record(path)
        if data is None:
            continue
        points = {t["grade_id"]: t["points"] for t in data["tests"]}
        rows.append([data["student"], data["status"], data["score"], data["max_score"],
                     *(points.get(q, 0) for q in questions)])
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["student", "status", "score", "max_score", *questions])
    writer.writerows(rows)  # none yet: a header-only CSV
    target = course_root / "grades" / f"{assignment}.csv"
    _atomic_write(target, text.getvalue())
    return target

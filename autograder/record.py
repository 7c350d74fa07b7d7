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
import hashlib
import io
import json
import os
import re
import secrets
import warnings
from collections.abc import Collection
from pathlib import Path
from typing import Any

import nbformat

from autograder.colab import is_colab_cell
from autograder.identities import is_hidden
from autograder.limits import SIDE_FILE_BYTES, Limits
from autograder.notebook import InvalidSubmission, parse_json, read_capped
from autograder.notebook import grade_id as grade_id_of
from autograder.protocol import Status
from autograder.results import NotebookResult, status_text
from autograder.sanitize import note_cell, numbered_notes, plain_text, sanitize_notebook
from autograder.spec import GRADING_KEYS, AssignmentSpec
from autograder.spreadsheet import safe_row
from lecture_utils.i18n import N_, notebook_language, tr, tr_format, use_language


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # a short name of its own, not path's name + ".tmp", which can pass the file system's
    # 255 bytes; hidden, and not *.json, so that nothing reads it as a record
    tmp = path.with_name(f".{secrets.token_hex(8)}.tmp")
    try:
        with tmp.open("x", encoding="utf-8") as file:
            file.write(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


NAME_MAX = 255  # bytes in one file name (ext4, xfs, btrfs, tmpfs...)
_HASHED = re.compile(r".*~[0-9a-f]{32}", re.DOTALL)  # what record_path makes of odd ids


def record_path(course_root: Path, assignment: str, student: str) -> Path:
    """``grades/<assignment>/<student>.json``, when that is a plain file name (so records of
    existing courses stay where they are). Otherwise a readable part of the id, ``~`` and a
    hash of the whole id: for an id too long for the file system, or with a ``/``, a control
    or invisible character (newline, bidi override, zero-width space), a first ``-`` (read
    as an option by the instructor's tools) or ``.`` (a hidden file), bytes that were not
    UTF-8, or of the hashed form itself (so no two ids ever share a file). The record holds
    the real id."""
    folder = course_root / "grades" / assignment
    name = f"{student}.json"
    plain = (student[:1] not in ("", "-", ".") and not _HASHED.fullmatch(student)
             and all(char != "/" and not is_hidden(char) for char in student))
    if plain and len(name.encode("utf-8")) <= NAME_MAX:  # (is_hidden: no lone surrogates)
        return folder / name
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    readable = "".join(char for char in student if char != "/" and not is_hidden(char))
    readable = readable.lstrip("-. ").encode("utf-8")[:100].decode("utf-8", "ignore")
    return folder / f"{readable or 'id'}~{digest}.json"  # at most 138 bytes


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
    return [nbformat.v4.new_output("error", evalue=message, traceback=message.splitlines(),
                                   ename=tr_format("Grader ({status})",
                                                   status=status_text(status)))]


def _escape_markdown(text: str) -> str:
    """``text`` shown as itself in a markdown cell (a message may quote a file name)."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>&~=])", r"\\\1", plain_text(text))


def _read_for_feedback(path: Path, limits: Limits) -> nbformat.NotebookNode:
    """The submission as a notebook, read within ``limits`` (it was read once to plan it,
    but it is read again here and may have changed); an empty one if it cannot be."""
    try:
        data = parse_json(read_capped(path, limits.notebook_bytes), limits)
    except (OSError, InvalidSubmission):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return nbformat.v4.new_notebook()
    return nbformat.from_dict(data)


def restore_graded_cells(cells: list[Any], spec: AssignmentSpec) -> list[str]:
    """Give the release, not the student, the say over which cells are graded and how.
    For each of the assignment's nbgrader ids, the graded cell is the student's cell with
    the released cell id (else the first with that grade_id); other cells claiming the same
    grade_id lose their nbgrader metadata, and the graded one gets the instructor's back.
    Returns notes on what the student had changed, naming cells by number."""
    notes: list[str] = []
    claims: dict[str, list[int]] = {}
    for index, cell in enumerate(cells):
        gid = grade_id_of(cell)
        if isinstance(gid, str) and gid in spec.released_meta:
            claims.setdefault(gid, []).append(index)
    for gid, indices in claims.items():
        wanted = spec.released_ids.get(gid)
        chosen = next((i for i in indices if cells[i].get("id") == wanted), indices[0])
        for index in indices:
            if index != chosen:
                del cells[index]["metadata"]["nbgrader"]
                notes.append(N_(f"cell {index + 1} of the submission claims to be the graded "
                                f"cell {gid}, which is cell {chosen + 1}; it is shown as an "
                                "ordinary cell"))
        theirs, ours = cells[chosen]["metadata"]["nbgrader"], spec.released_meta[gid]
        edited = [k for k in GRADING_KEYS if theirs.get(k) != ours.get(k)]
        if edited:
            notes.append(N_(f"cell {chosen + 1} of the submission ({gid}): its nbgrader "
                            f"metadata was edited ({', '.join(edited)}); the instructor's is "
                            "used"))
        cells[chosen]["metadata"]["nbgrader"] = copy.deepcopy(ours)
    return notes


def _verdicts_only(result: NotebookResult, spec: AssignmentSpec) -> nbformat.NotebookNode:
    """The fallback page: each test cell as released, with its verdict."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(tr(
        "**Note from the grader:** this submission could not be shown as submitted; "
        "below are its graded tests and their results."))])
    for test in result.tests:
        check = spec.checks[test.grade_id]
        cell = nbformat.v4.new_code_cell(check.student_source)
        cell.metadata["nbgrader"] = copy.deepcopy(check.metadata)
        cell.outputs = _verdict_outputs(test.status, test.message)
        notebook.cells.append(cell)
    return notebook


def write_autograded(target: Path, submitted: Path, result: NotebookResult,
                     spec: AssignmentSpec, *, limits: Limits | None = None,
                     image_hosts: Collection[str] = ()) -> None:
    """The notebook ``generate_feedback`` turns into the student's feedback page, and
    formgrader shows. It is sanitised here, the one place the grader writes what people
    open: whatever the submission holds that could run in a browser is removed (images
    only from ``image_hosts``), and the release decides which cells are graded
    (``restore_graded_cells``). What was changed is noted at the top of the notebook and
    in ``result.message`` (so in the JSON record, written after this); the score is
    unchanged. A notebook that is still not valid after all that is replaced by the
    verdicts alone."""
    limits = limits or Limits()
    if result.status == Status.INVALID:  # not read again (it may be huge): the page says why
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
            "**This submission could not be graded:** "
            f"{_escape_markdown(result.message)}. It scores 0.")])
    else:
        notebook = _read_for_feedback(submitted, limits)
    # the page speaks the submission's language (its metadata can only choose a known one)
    with use_language(notebook_language(notebook.get("metadata"))):
        # before sanitising, while the cells' ids are the student's own
        cells = [c for c in notebook.cells if isinstance(c, dict)] \
            if isinstance(notebook.get("cells"), list) else []
        changed = restore_graded_cells(cells, spec) if result.status != Status.INVALID else []
        # the release's Colab badge and setup cell are no work of the student's, and the badge
        # is an image from the web: the page leaves them out (autograder.colab). A graded
        # cell stays, whatever its metadata claims.
        if isinstance(notebook.get("cells"), list):
            notebook.cells = [c for c in notebook.cells
                              if not is_colab_cell(c) or "nbgrader" in c.get("metadata", {})]
        # then sanitise, so that what follows reads well-formed cells whatever the JSON held
        removed = sanitize_notebook(notebook, grade_ids=set(spec.released_meta),
                                    image_hosts=image_hosts, released=spec.released_markdown)
        # (the verdicts added below are the grader's own plain-text outputs)
        verdicts = {t.grade_id: t for t in result.tests}
        for cell in notebook.cells:
            grade_id = grade_id_of(cell)
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
                if grade_id in spec.checks and grade_id in verdicts:
                    cell.source = spec.checks[grade_id].student_source
                    cell.metadata["nbgrader"] = copy.deepcopy(spec.checks[grade_id].metadata)
                    test = verdicts[grade_id]
                    cell.outputs = _verdict_outputs(test.status, test.message)
        notebook.nbformat, notebook.nbformat_minor = 4, 5
        notes = [nbformat.v4.new_markdown_cell(
            tr("**Note from the grader:** the instructor's notebook decides which cells are "
               "graded and how; this submission differed (this does not change the score):")
            + "\n\n"
            + "\n".join(f"- {_escape_markdown(tr(note))}" for note in changed))] if changed else []
        removals = numbered_notes(removed, notebook.cells, number_from=2 + len(notes))
        if removals:
            notes.insert(0, note_cell(removals))
        notebook.cells[:0] = notes
        if changed:
            result.message = "; ".join(m for m in (result.message, "graded cells as released "
                                       "(score unchanged): " + "; ".join(changed)) if m)
        if removals:
            result.message = "; ".join(m for m in (result.message, "content that could run in a "
                                       "browser was removed from the autograded notebook (score "
                                       "unchanged): " + "; ".join(removals)) if m)
        try:
            nbformat.validate(notebook)
            text = nbformat.writes(notebook)
        except Exception:  # noqa: BLE001 - still not a notebook: the verdicts alone
            text = nbformat.writes(_verdicts_only(result, spec))
    _atomic_write(target, text)
    # Copied only as small plain files: a link could point at the answer key, and
    # generate_feedback copies every file here into the feedback students receive.
    # submission_secret.txt is what an exchange's release_feedback hashes to name each
    # student's feedback; without it, feedback for exchange-collected work cannot be released.
    for side in ("timestamp.txt", "submission_secret.txt"):
        try:
            data = read_capped(submitted.parent / side, SIDE_FILE_BYTES)
            (target.parent / side).write_bytes(data)
        except (OSError, InvalidSubmission):
            pass


def write_csv(course_root: Path, assignment: str, spec: AssignmentSpec,
              unrecorded: Collection[NotebookResult] = ()) -> Path:
    """Rebuild the per-question CSV from every JSON record (so reruns never duplicate rows),
    and the results in ``unrecorded`` (graded, but their record could not be written)."""
    folder = course_root / "grades" / assignment
    questions = list(spec.checks)
    rows = [[r.student, r.status, r.score, r.max_score,
             *({t.grade_id: t.points for t in r.tests}.get(q, 0) for q in questions)]
            for r in unrecorded]
    redone = {r.student for r in unrecorded}
    for path in folder.glob("*.json"):
        data = load_record(path)
        if not isinstance(data, dict) or not isinstance(data.get("student"), str) \
                or data["student"] in redone:
            continue
        if record_path(course_root, assignment, data["student"]).name != path.name:
            continue  # not where this id's record goes: written under an older naming rule
        try:
            points = {t["grade_id"]: t["points"] for t in data["tests"]}
            rows.append([data["student"], data["status"], data["score"], data["max_score"],
                         *(points.get(q, 0) for q in questions)])
        except (KeyError, TypeError):  # a record edited by hand: its row says so
            rows.append([data["student"], "unreadable record", "", "", *([""] * len(questions))])
    rows.sort(key=lambda row: row[0])
    text = io.StringIO()
    writer = csv.writer(text)
    # ids are folder names students chose: a spreadsheet must not run one as a formula
    writer.writerow(safe_row(["student", "status", "score", "max_score", *questions]))
    writer.writerows(safe_row(row) for row in rows)  # none yet: a header-only CSV
    target = course_root / "grades" / f"{assignment}.csv"
    _atomic_write(target, text.getvalue())
    return target

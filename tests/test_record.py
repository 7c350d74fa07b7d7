"""What the grader writes for the instructor (autograder.record): the per-question CSV, the
autograded notebook (formgrader and the feedback) and the gradebook's scores.

(Record file names for odd student ids are tested in test_record_names.py.) Each test says
which broken ``record.py`` it catches.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace

import nbformat
from support.submissions import perfect_submission, with_answer

from autograder.colab import colab_role
from autograder.protocol import Status
from autograder.record import (
    load_record,
    record_path,
    save_grades,
    write_autograded,
    write_csv,
    write_record,
)
from autograder.results import NotebookResult, TestResult

A = "01_tensors_and_memory"
SPEC = SimpleNamespace(checks={"q1": None, "q2": None, "q3": None})  # write_csv reads the ids


def _result(student: str, status: Status, points: tuple[float, float, float]) -> NotebookResult:
    maxima = (1.0, 2.0, 4.0)
    tests = [TestResult(q, float(p), m, Status.PASSED if p == m else Status.FAILED)
             for q, p, m in zip(("q1", "q2", "q3"), points, maxima)]
    return NotebookResult(notebook="n.ipynb", assignment=A, tests=tests, student=student,
                          status=status)


def _csv(tmp_path: Path, unrecorded: list[NotebookResult] = ()) -> list[dict[str, str]]:
    target = write_csv(tmp_path, A, SPEC, unrecorded)
    assert target == tmp_path / "grades" / f"{A}.csv"
    with target.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == ["student", "status", "score", "max_score", "q1", "q2", "q3"]
        return list(reader)


def test_csv_columns_hold_what_their_header_says(tmp_path: Path) -> None:
    """Kills: the status and score columns (or max_score, or two questions) swapped under an
    unchanged header, in the rows from records or in those of results whose record could not
    be written; and a question's points taken from another question."""
    write_record(record_path(tmp_path, A, "bo"), _result("bo", Status.GRADED, (1, 0, 4)), "fp")
    write_record(record_path(tmp_path, A, "cy"), _result("cy", Status.TIMEOUT, (0, 2, 0)), "fp")
    unwritten = _result("al", Status.TAMPERED, (1, 2, 0))
    rows = _csv(tmp_path, [unwritten])
    assert rows == [
        {"student": "al", "status": "tampered", "score": "3.0", "max_score": "7.0",
         "q1": "1.0", "q2": "2.0", "q3": "0.0"},
        {"student": "bo", "status": "graded", "score": "5.0", "max_score": "7.0",
         "q1": "1.0", "q2": "0.0", "q3": "4.0"},
        {"student": "cy", "status": "timeout", "score": "2.0", "max_score": "7.0",
         "q1": "0.0", "q2": "2.0", "q3": "0.0"},
    ]


def test_csv_a_result_rewritten_after_its_record_replaces_the_record(tmp_path: Path) -> None:
    """Kills: a student whose record is on disk and whose new result could not be written
    getting two rows (or the old one): the row is the new result."""
    write_record(record_path(tmp_path, A, "bo"), _result("bo", Status.GRADED, (1, 2, 4)), "fp")
    rows = _csv(tmp_path, [_result("bo", Status.CRASHED, (0, 0, 0))])
    assert [(r["student"], r["status"], r["score"]) for r in rows] == [("bo", "crashed", "0.0")]


def test_csv_a_record_edited_by_hand_is_a_row_that_says_so(tmp_path: Path) -> None:
    """Kills: a record without its tests (edited by hand) stopping the CSV or passing for a
    score; a question missing from a record scoring 0, not something else; and files that
    are not records (other JSON, another student's name) making rows."""
    folder = tmp_path / "grades" / A
    write_record(record_path(tmp_path, A, "bo"), _result("bo", Status.GRADED, (1, 2, 4)), "fp")
    broken = _result("cy", Status.GRADED, (1, 2, 4)).to_json()
    del broken["tests"]
    (folder / "cy.json").write_text(json.dumps(broken))
    partial = _result("di", Status.GRADED, (1, 2, 4)).to_json()
    partial["tests"] = partial["tests"][:1]  # q2 and q3 missing
    (folder / "di.json").write_text(json.dumps(partial))
    (folder / "list.json").write_text("[1, 2]")
    (folder / "nobody.json").write_text(json.dumps({"student": 3}))
    (folder / "garbage.json").write_text("{not json")
    (folder / "ed.json").write_text(json.dumps({**partial, "student": "someone else"}))
    rows = {r["student"]: r for r in _csv(tmp_path)}
    assert sorted(rows) == ["bo", "cy", "di"]
    assert rows["cy"] == {"student": "cy", "status": "unreadable record", "score": "",
                          "max_score": "", "q1": "", "q2": "", "q3": ""}
    assert (rows["di"]["q1"], rows["di"]["q2"], rows["di"]["q3"]) == ("1.0", "0", "0")
    assert rows["bo"]["score"] == "7.0"


# --- the autograded notebook (what formgrader shows and the feedback is made from) ---------------

def _graded(tmp_path: Path, notebook, statuses: dict[str, Status] | None = None):
    """The perfect submission's file and a result for it (``statuses``: exercises not passed)."""
    from autograder.course import instructor_notebook
    from autograder.spec import load_spec

    spec = load_spec(instructor_notebook(A))
    folder = tmp_path / "submitted" / "ada" / A
    folder.mkdir(parents=True)
    path = folder / f"{A}.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    statuses = statuses or {}
    tests = [TestResult(g, 0.0 if g in statuses else c.points, c.points,
                        statuses.get(g, Status.PASSED),
                        f"{g}: 1 of 2 checks failed:\n- f(1) returned 3; expected 2"
                        if g in statuses else "All 2 checks passed.")
             for g, c in spec.checks.items()]
    result = NotebookResult(notebook=str(path), assignment=A, tests=tests, student="ada")
    return spec, path, result


def _written(tmp_path: Path, spec, path: Path, result: NotebookResult):
    target = tmp_path / "autograded" / "ada" / A / f"{A}.ipynb"
    write_autograded(target, path, result, spec)
    notebook = nbformat.read(target, as_version=4)
    nbformat.validate(notebook)
    assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5)
    return target, notebook


def _cells_by_grade_id(notebook) -> dict[str, object]:
    return {c.metadata["nbgrader"]["grade_id"]: c for c in notebook.cells
            if "nbgrader" in c.metadata}


def test_autograded_test_cells_are_the_released_ones_with_their_verdicts(tmp_path: Path) -> None:
    """Kills: a test cell kept as the student edited it (its source or nbgrader metadata), a
    verdict missing, shown as the wrong kind of output (a pass as an error, a failure as
    plain text), the student's own outputs kept, or the timestamp not copied."""
    notebook = perfect_submission(A)
    first = next(g for g in _cells_by_grade_id(notebook) if g.startswith("test_"))
    tampered = with_answer(notebook, first, "pass  # nothing to see")
    for cell in tampered.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="mine\n")]
            cell.execution_count = 5
    spec, path, result = _graded(tmp_path, tampered, {"test_bytes_for": Status.FAILED})
    (path.parent / "timestamp.txt").write_text("2026-01-02 03:04:05")
    target, written = _written(tmp_path, spec, path, result)
    assert (target.parent / "timestamp.txt").read_text() == "2026-01-02 03:04:05"
    cells = _cells_by_grade_id(written)
    for grade_id, check in spec.checks.items():
        cell = cells[grade_id]
        assert cell.source == check.student_source and "nothing to see" not in cell.source
        assert cell.metadata["nbgrader"] == spec.released_meta[grade_id]
        assert cell.execution_count is None and len(cell.outputs) == 1
        verdict = cell.outputs[0]
        if grade_id == "test_bytes_for":
            assert verdict.output_type == "error" and verdict.ename == "Grader (failed)"
            assert verdict.evalue.startswith("test_bytes_for: 1 of 2 checks failed")
            assert verdict.traceback == verdict.evalue.splitlines()
        else:
            assert verdict.output_type == "stream" and verdict.name == "stdout"
            assert verdict.text == "All 2 checks passed.\n"
    others = [c for c in written.cells if c.cell_type == "code" and c not in cells.values()]
    others += [c for g, c in cells.items() if g not in spec.checks]
    assert others and all(c.outputs == [] and c.execution_count is None for c in others)
    assert not written.cells[0].source.startswith("**Note from the grader")  # nothing to note
    assert result.message == ""


def test_a_student_who_edits_grading_metadata_is_told_and_the_release_decides(
        tmp_path: Path) -> None:
    """Kills (``restore_graded_cells``): a second cell claiming a graded id keeping its
    metadata (graded twice), edited points or grade flags kept, or the note and the record's
    message not saying so (the score is unchanged)."""
    notebook = perfect_submission(A)
    cells = [c for c in notebook.cells if "nbgrader" in c.metadata]
    test_cell = next(c for c in cells if c.metadata["nbgrader"]["grade_id"] == "test_bytes_for")
    test_cell.metadata["nbgrader"]["points"] = 100
    copy_of_test = nbformat.v4.new_code_cell("print('also me')")
    copy_of_test.metadata["nbgrader"] = dict(test_cell.metadata["nbgrader"])
    notebook.cells.insert(0, copy_of_test)
    spec, path, result = _graded(tmp_path, notebook)
    _, written = _written(tmp_path, spec, path, result)
    note = written.cells[0].source
    assert note.startswith("**Note from the grader:** the instructor's notebook decides")
    assert "cell 1 of the submission claims to be the graded cell test\\_bytes\\_for" in note
    assert "its nbgrader metadata was edited \\(points\\); the instructor's is used" in note
    graded = [c for c in written.cells if "nbgrader" in c.metadata
              and c.metadata["nbgrader"]["grade_id"] == "test_bytes_for"]
    assert len(graded) == 1 and graded[0].metadata["nbgrader"]["points"] == 2
    assert written.cells[1].source == "print('also me')"
    assert "nbgrader" not in written.cells[1].metadata
    assert result.message.startswith("graded cells as released (score unchanged): cell 1 of")
    assert result.score == 7


def test_markup_that_could_run_in_a_browser_is_removed_and_noted(tmp_path: Path) -> None:
    """Kills: the sanitised notebook not written, or its removals not noted at the top and in
    the record's message."""
    notebook = perfect_submission(A)
    notebook.cells.append(nbformat.v4.new_markdown_cell("hi <img src=x onerror=alert(1)>"))
    spec, path, result = _graded(tmp_path, notebook)
    target, written = _written(tmp_path, spec, path, result)
    assert written.cells[-1].source == "<div>\n<p>hi <img></p>\n</div>"
    assert written.cells[0].source.startswith("**Note from the grader")
    assert "the onerror attribute of" in written.cells[0].source
    assert "content that could run in a browser was removed" in result.message


def test_an_invalid_submission_gets_a_page_saying_why(tmp_path: Path) -> None:
    """Kills: an invalid notebook read again (it may be huge or hostile) instead of a page
    that says why it scores 0, with the reason shown as text, not markup."""
    spec, path, result = _graded(tmp_path, perfect_submission(A))
    path.write_text("{ not json")
    result.status, result.message = Status.INVALID, "not a notebook: <b>*bad*</b>"
    _, written = _written(tmp_path, spec, path, result)
    assert written.cells[0].source == ("**This submission could not be graded:** not a "
                                       "notebook: \\<b\\>\\*bad\\*\\</b\\>. It scores 0.")
    assert result.message == "not a notebook: <b>*bad*</b>"


def test_a_submission_gone_before_its_page_is_written_stops_nothing(tmp_path: Path) -> None:
    """Kills: a submission that can no longer be read (gone, or not JSON) stopping the batch
    instead of giving a valid, empty page (its record still holds the verdicts)."""
    for damage in ("unlink", "garbage"):
        spec, path, result = _graded(tmp_path / damage, perfect_submission(A))
        path.unlink() if damage == "unlink" else path.write_text("{ not json")
        _, written = _written(tmp_path / damage, spec, path, result)
        assert written.cells == [] and result.message == ""


class _Grade:
    def __init__(self, manual_score):
        self.manual_score, self.auto_score, self.needs_manual_grade = manual_score, None, None


class _Gradebook:
    """The few calls save_grades makes of nbgrader's Gradebook."""

    def __init__(self, manual: dict[str, float | None]):
        self.grades = {g: _Grade(score) for g, score in manual.items()}
        self.calls: list[tuple] = []
        self.db = SimpleNamespace(commit=lambda: self.calls.append(("commit",)))

    def update_or_create_student(self, student):
        self.calls.append(("student", student))

    def update_or_create_submission(self, assignment, student, **kwargs):
        self.calls.append(("submission", assignment, student, kwargs))

    def find_grade(self, grade_id, notebook_id, assignment, student):
        assert (notebook_id, assignment, student) == ("nb", A, "ada")
        return self.grades[grade_id]


def test_gradebook_gets_each_score_and_flags_what_needs_a_human(tmp_path: Path) -> None:
    """Kills (``save_grades``): scores not written or written to another exercise, a
    tampered exercise or one an instructor already graded by hand not flagged for manual
    grading, an untampered one flagged, or the timestamp dropped or not committed."""
    tests = [TestResult("q1", 1.0, 1.0, Status.PASSED), TestResult("q2", 0.0, 2.0,
                                                                   Status.TAMPERED),
             TestResult("q3", 0.5, 4.0, Status.FAILED)]
    result = NotebookResult("n", A, tests, student="ada")
    book = _Gradebook({"q1": None, "q2": None, "q3": 3.0})
    save_grades(book, result, "nb", "2026-01-02 03:04:05 UTC")
    assert [(g.auto_score, g.needs_manual_grade) for g in book.grades.values()] == [
        (1.0, False), (0.0, True), (0.5, True)]
    assert book.calls[0] == ("student", "ada")
    (_, assignment, student, kwargs) = book.calls[1]
    assert (assignment, student) == (A, "ada")
    assert kwargs["timestamp"].isoformat().startswith("2026-01-02T03:04:05")
    assert book.calls[-1] == ("commit",)
    book = _Gradebook({"q1": None, "q2": None, "q3": None})
    save_grades(book, result, "nb", None)
    assert book.calls[1] == ("submission", A, "ada", {})
    assert [g.needs_manual_grade for g in book.grades.values()] == [False, True, False]


# --- record files ---------------------------------------------------------------------------------

def test_a_record_holds_its_fingerprint_and_reads_as_indented_json(tmp_path: Path) -> None:
    """Kills: the fingerprint (what lets a rerun skip a graded submission) missing or under
    another key, and a record that is not the result's JSON, indented by 2, newline-ended."""
    result = _result("bo", Status.GRADED, (1, 2, 4))
    path = record_path(tmp_path, A, "bo")
    write_record(path, result, "abc123")
    assert load_record(path) == {**result.to_json(), "fingerprint": "abc123"}
    assert path.read_text(encoding="utf-8") == json.dumps(
        {**result.to_json(), "fingerprint": "abc123"}, indent=2) + "\n"
    assert load_record(tmp_path / "missing.json") is None
    (tmp_path / "bad.json").write_text("{")
    assert load_record(tmp_path / "bad.json") is None


def test_odd_ids_get_a_readable_part_and_the_whole_hash() -> None:
    """Kills: an empty id written as the hidden file ``.json``; a readable part that strips
    more than leading ``-``, ``.`` and spaces, or is cut at other than 100 bytes; and a hash
    of other than 32 hex digits (names must stay the same from run to run)."""
    import hashlib

    def expected(student: str, readable: str) -> str:
        digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return f"{readable}~{digest}.json"

    folder = Path("c")
    assert record_path(folder, A, "").name == expected("", "id")
    assert record_path(folder, A, "-Xavier.").name == expected("-Xavier.", "Xavier.")
    assert record_path(folder, A, " .-X\n").name == expected(" .-X\n", "X")
    long = "a" * 200 + "\n"
    assert record_path(folder, A, long).name == expected(long, "a" * 100)


def test_both_notes_head_the_page_and_number_cells_as_the_page_shows_them(
        tmp_path: Path) -> None:
    """Kills: the removal note not first, its cell numbers not counting the note cells above
    them (the reader could not find the cell), the notes' items run together, and the
    record's message losing its earlier part or its separators."""
    notebook = perfect_submission(A)
    test_cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get(
        "grade_id") == "test_bytes_for")
    test_cell.metadata["nbgrader"]["points"] = 100
    copy_of_test = nbformat.v4.new_code_cell("print('also me')")
    copy_of_test.metadata["nbgrader"] = dict(test_cell.metadata["nbgrader"])
    notebook.cells.insert(0, copy_of_test)
    # after the title, as the page shows it: it leaves out the Colab badge and setup cell
    # (cells 2 and 3 of the submission, now)
    notebook.cells.insert(4, nbformat.v4.new_markdown_cell("a <img src=x onerror=alert(1)>"))
    notebook.cells.append(nbformat.v4.new_raw_cell("<script>x</script>"))
    graded_at = notebook.cells.index(test_cell) + 1  # where the submission has it
    spec, path, result = _graded(tmp_path, notebook)
    result.message = "graded as x.ipynb"
    _, written = _written(tmp_path, spec, path, result)
    last = len(written.cells)
    assert written.cells[4].source == "<div>\n<p>a <img></p>\n</div>"  # cell 5 as shown
    assert written.cells[0].source == (
        "**Note from the grader:** it removed content that could run in a browser from this "
        "copy of the submission (this does not change the score):\n\n"
        "- cell 5: a relative URL in &lt;img src&gt;, the onerror attribute of &lt;img&gt;\n"
        f"- cell {last}: a &lt;script&gt; element")
    assert written.cells[1].source == (
        "**Note from the grader:** the instructor's notebook decides which cells are graded "
        "and how; this submission differed (this does not change the score):\n\n"
        "- cell 1 of the submission claims to be the graded cell test\\_bytes\\_for, which is "
        f"cell {graded_at}; it is shown as an ordinary cell\n"
        f"- cell {graded_at} of the submission \\(test\\_bytes\\_for\\): its nbgrader "
        "metadata was edited \\(points\\); the instructor's is used")
    assert result.message == (
        "graded as x.ipynb; graded cells as released (score unchanged): cell 1 of the "
        f"submission claims to be the graded cell test_bytes_for, which is cell {graded_at}; it "
        f"is shown as an ordinary cell; cell {graded_at} of the submission (test_bytes_for): "
        "its nbgrader metadata was edited (points); the instructor's is used; content that "
        "could run in a "
        "browser was removed from the autograded notebook (score unchanged): cell 5: a "
        f"relative URL in <img src>, the onerror attribute of <img>; cell {last}: a <script> "
        "element")
    # the graded cells carry the instructor's metadata, each a copy of its own
    graded = _cells_by_grade_id(written)
    assert graded["test_bytes_for"].metadata["nbgrader"]["points"] == 2


def test_the_page_leaves_out_the_colab_cells_even_a_forged_one(tmp_path: Path) -> None:
    """Kills: the release's badge (an image from the web) noted as removed on every page, or a
    student's cell that claims to be a Colab cell shown unsanitised."""
    notebook = perfect_submission(A)
    assert [colab_role(c) for c in notebook.cells[:2]] == ["badge", "setup"]
    forged = nbformat.v4.new_markdown_cell("<img src=x onerror=alert(1)>",
                                           metadata={"lecture": {"colab": "badge"}})
    notebook.cells.append(forged)
    spec, path, result = _graded(tmp_path, notebook)
    _, written = _written(tmp_path, spec, path, result)
    assert not any(colab_role(c) for c in written.cells)
    assert "colab" not in json.dumps(written) and "onerror" not in json.dumps(written)
    assert result.message == ""


def test_a_graded_cell_that_claims_to_be_a_colab_cell_stays_on_the_page(tmp_path: Path) -> None:
    """Kills: a student hiding a graded cell from the instructor's page by giving it the
    Colab cells' metadata."""
    notebook = perfect_submission(A)
    graded = next(c for c in notebook.cells if "nbgrader" in c.metadata
                  and c.metadata["nbgrader"].get("solution"))
    graded.metadata["lecture"] = {"colab": "setup"}
    spec, path, result = _graded(tmp_path, notebook)
    _, written = _written(tmp_path, spec, path, result)
    assert graded.metadata["nbgrader"]["grade_id"] in _cells_by_grade_id(written)

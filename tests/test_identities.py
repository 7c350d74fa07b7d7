"""Look-alike student ids and ids with hidden characters (autograder.identities)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder.identities import (
    hidden_characters,
    identity_warnings,
    is_hidden,
    look_alike_groups,
    look_alike_key,
    printable,
)

NFC, NFD = "Jos\u00e9", "Jose\u0301"


@pytest.mark.parametrize("twin", [
    "alice\u200b", "al\u200bice", "\u200balice", "alice\u200c", "alice\u200d",
    "alice\u2060", "\ufeffalice", "ali\u00adce",  # zero-width, word joiner, BOM, soft hyphen
    "\u202ealice", "alice\u2066", "alice\u200e",  # bidi override, isolate, mark
    "ALICE", "Alice", "\uff41\uff4c\uff49\uff43\uff45",  # case, full-width
    "alice ", " alice", "alice\n", "alice\t", "\u00a0alice",  # white space and controls
])
def test_look_alike_of_alice(twin: str) -> None:
    assert look_alike_key(twin) == look_alike_key("alice")
    assert look_alike_groups(["alice", twin, "bob"]) == [sorted(["alice", twin])]


def test_normal_forms_and_compatibility_forms_look_alike() -> None:
    assert NFC != NFD and look_alike_groups([NFC, NFD]) == [sorted([NFC, NFD])]
    assert look_alike_groups(["JOSÉ", NFD]) == [sorted(["JOSÉ", NFD])]
    assert look_alike_groups(["ﬁona", "fiona"]) == [["fiona", "ﬁona"]]  # ligature
    assert look_alike_groups(["straße", "STRASSE"]) == [["STRASSE", "straße"]]  # case fold
    assert look_alike_groups(["ana maria", "ana  maria", "ana\u3000maria"]) == \
        [["ana  maria", "ana maria", "ana\u3000maria"]]


@pytest.mark.parametrize("other", [
    "Jose", "alicia", "alice2", "al ice", "Ольга", "李小龙",
    "\u0430lice",  # Cyrillic a: a confusable, out of this module's reach (see its docstring)
])
def test_different_ids_are_not_grouped(other: str) -> None:
    assert look_alike_groups(["alice", NFC, other]) == []


def test_groups_are_sorted_and_hold_each_id_once() -> None:
    ids = ["b", "B", "a", "A\u200b", "c", "b", "Ａ"]
    assert look_alike_groups(ids) == [["A\u200b", "a", "Ａ"], ["B", "b"]]
    assert look_alike_groups([]) == []
    assert look_alike_groups(iter(["x", "X"])) == [["X", "x"]]  # any iterable


@pytest.mark.parametrize(("student", "found"), [
    ("alice", []),
    (NFC, []), (NFD, []), ("李小龙", []), ("Ана Мария", []), ("O'Brien, Jr.", []),
    ("alice\nbob", ["U+000A LINE FEED"]),
    ("\talice", ["U+0009 TAB"]),
    ("a\x1b[31mred", ["U+001B ESCAPE"]),
    ("evil\u202egnp.exe", ["U+202E RIGHT-TO-LEFT OVERRIDE"]),
    ("al\u200bi\u200bce", ["U+200B ZERO WIDTH SPACE"]),  # each character once
    ("\ufeffx\u00ad", ["U+FEFF ZERO WIDTH NO-BREAK SPACE", "U+00AD SOFT HYPHEN"]),
    ("bad\udcff", ["U+DCFF (a byte that is not UTF-8)"]),
    ("x\u2028y", ["U+2028 LINE SEPARATOR"]),
    ("x\x85", ["U+0085 control character"]),
    (" alice", ["white space at the start"]),
    ("alice\u00a0", ["white space at the end"]),
    ("alice\r", ["U+000D CARRIAGE RETURN"]),  # a hidden character, not counted twice
])
def test_hidden_characters(student: str, found: list[str]) -> None:
    assert hidden_characters(student) == found


def test_printable_spells_out_what_hides() -> None:
    assert printable("alice") == '"alice"'
    assert printable(NFD) == f'"{NFD}"'  # a combining accent shows: it is kept
    assert printable("a\nb\u202ec\x1b") == '"a\\u000ab\\u202ec\\u001b"'
    assert printable("a\U000e0041") == '"a\\U000e0041"'  # a tag character
    assert printable("a\\u000a") == '"a\\\\u000a"'  # a literal backslash cannot pose as one
    printable("bad\udcff").encode("utf-8")  # a lone surrogate would not print


@given(st.text(), st.text())
def test_printable_is_one_to_one_and_shows_no_hidden_character(a: str, b: str) -> None:
    assert (printable(a) == printable(b)) == (a == b)
    assert not any(is_hidden(char) for char in printable(a))


def test_identity_warnings() -> None:
    lines = identity_warnings(["alice", "alice\u200b", "bob", "bob\n", "carol", NFC, NFD])
    assert lines == [
        'student id "alice\\u200b" holds characters a listing does not show: '
        "U+200B ZERO WIDTH SPACE",
        'student id "bob\\u000a" holds characters a listing does not show: U+000A LINE FEED',
        f'student ids that look alike but are graded as different students: "{NFD}", "{NFC}"',
        'student ids that look alike but are graded as different students: "alice", '
        '"alice\\u200b"',
        'student ids that look alike but are graded as different students: "bob", '
        '"bob\\u000a"',
    ]
    assert identity_warnings(["s01", "s02", "José"]) == []

"""Student ids that look alike, and ids that hide characters: worth a warning, never a merge.

A student id is the name of a folder under ``submitted/``, so anyone who can put a folder
there chooses it. Two folders can look the same to an instructor and still be two students
to the grader (two rows in the CSV, two gradebook entries), for example:

- ``José`` typed on two machines: one precomposed ``é`` (NFC), one ``e`` + combining accent
  (NFD);
- ``alice`` and ``alice`` + a zero-width space, a byte-order mark or a soft hyphen;
- ``ALICE``, ``alice`` and full-width ``ａｌｉｃｅ``;
- ``ana maria``, ``ana  maria`` and ``ana maria `` (runs of white space, a trailing space).

:func:`look_alike_groups` finds such ids: those whose :func:`look_alike_key` is equal, that
is, equal after removing invisible characters (Unicode's default-ignorable code points,
format characters such as bidi controls, and control characters), compatibility caseless
matching (NFKC and case folding, as Unicode's identifier matching does) and collapsing white
space. It does not know letters from different scripts that share a glyph (Latin ``a`` and
Cyrillic ``а``): that needs Unicode's confusables table, which the standard library lacks.

:func:`hidden_characters` tells, for one id, the characters in it that a listing does not
show or that change how it shows (newline, tab, escape, bidi overrides, zero-width
characters, bytes that were not UTF-8, white space at either end); :func:`printable` writes
an id with those spelled out, so that a warning cannot itself hide or reorder anything on a
terminal or in a log. Some of these characters belong in real names (a zero-width
non-joiner is part of many Persian names, a variation selector of many emoji), which is why
they are reported, and ids are never changed or merged here.

Pure functions; trusts nothing, imports only the standard library.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters a renderer
# shows as nothing when it has no glyph for them. Not in ``unicodedata``, so listed here.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
# control, format, line and paragraph separators, and lone surrogates (a file name's bytes
# that were not UTF-8, as Python decodes them)
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
CONTROL_NAMES = {"\t": "TAB", "\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\x1b": "ESCAPE"}


def is_hidden(char: str) -> bool:
    """Whether a listing would show this character as nothing, or as something else."""
    point = ord(char)
    return (unicodedata.category(char) in HIDDEN_CATEGORIES
            or any(start <= point <= end for start, end in DEFAULT_IGNORABLE))


def _caseless(text: str) -> str:
    # Unicode's compatibility caseless match (section 3.13), which folds NFC and NFD, full-
    # width and ligature forms, and case: NFKD(casefold(NFKD(casefold(NFD(text)))))
    text = unicodedata.normalize("NFD", text)
    text = unicodedata.normalize("NFKD", text.casefold())
    return unicodedata.normalize("NFKD", text.casefold())


def look_alike_key(student: str) -> str:
    """What an id looks like: two ids with the same key read the same to a person."""
    visible = "".join(char for char in student if not is_hidden(char))
    key = "".join(char for char in _caseless(visible) if not is_hidden(char))
    return unicodedata.normalize("NFC", " ".join(key.split()))  # NFC: shorter, same meaning


def look_alike_groups(students: Iterable[str]) -> list[list[str]]:
    """Groups (two or more ids each, sorted) of the given distinct ids that look alike."""
    by_key: dict[str, set[str]] = defaultdict(set)
    for student in students:
        by_key[look_alike_key(student)].add(student)
    return sorted(sorted(group) for group in by_key.values() if len(group) > 1)


def _describe(char: str) -> str:
    point = ord(char)
    if unicodedata.category(char) == "Cs":
        return f"U+{point:04X} (a byte that is not UTF-8)"
    name = unicodedata.name(char, "") or CONTROL_NAMES.get(char, "control character")
    return f"U+{point:04X} {name}"


def hidden_characters(student: str) -> list[str]:
    """What in one id a listing would not show: each hidden character once, in order, as
    ``U+200B ZERO WIDTH SPACE``, and white space at the start or end. Empty: nothing."""
    found = list(dict.fromkeys(_describe(char) for char in student if is_hidden(char)))
    if student[:1].isspace() and not is_hidden(student[0]):
        found.append("white space at the start")
    if student[-1:].isspace() and not is_hidden(student[-1]):
        found.append("white space at the end")
    return found


def printable(student: str) -> str:
    """The id with every hidden character written as ``\\uXXXX`` (and ``\\`` as ``\\\\``), in
    quotes: safe to print, and two different ids never print the same."""
    out = []
    for char in student:
        if char == "\\":
            out.append("\\\\")
        elif is_hidden(char):
            point = ord(char)
            out.append(f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def identity_warnings(students: Iterable[str]) -> list[str]:
    """One line per id with hidden characters and per group of look-alike ids, for the
    instructor; empty when there is nothing to say."""
    students = sorted(set(students))
    lines = [f"student id {printable(s)} holds characters a listing does not show: "
             + ", ".join(hidden) for s in students if (hidden := hidden_characters(s))]
    lines += ["student ids that look alike but are graded as different students: "
              + ", ".join(printable(s) for s in group) for group in look_alike_groups(students)]
    return lines

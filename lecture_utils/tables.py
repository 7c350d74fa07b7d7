"""Aligned plain-text tables: the one printer behind ``timing.compare``, ``EstimateTable`` and
the grader's result table.

Trusts its callers; imports only the standard library.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font: a CJK character (East Asian wide or
    full-width) takes two, so Chinese headers line up with the numbers under them."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int, side: str) -> str:
    space = " " * (width - display_width(text))
    return text + space if side == "l" else space + text


def text_table(rows: Sequence[Sequence[str]], align: str, *, rule: bool = False,
               min_widths: Sequence[int] = ()) -> str:
    """``rows`` (the header first) as columns two spaces apart, each aligned as ``align``
    says per column (``"l"`` or ``"r"``) and at least as wide as ``min_widths`` says (first
    columns first); ``rule`` adds a dashed line under the header. No line ends in spaces."""
    widths = [max([display_width(row[col]) for row in rows]
                  + list(min_widths[col:col + 1])) for col in range(len(align))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(_pad(cell, width, side)
                         for cell, width, side in zip(cells, widths, align, strict=True)).rstrip()

    lines = [line(row) for row in rows]
    if rule:
        lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)

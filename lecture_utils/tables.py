"""Aligned plain-text tables: the one printer behind ``timing.compare``, ``EstimateTable`` and
the grader's result table.

Trusts its callers; imports only the standard library.
"""

from __future__ import annotations

from collections.abc import Sequence


def text_table(rows: Sequence[Sequence[str]], align: str, *, rule: bool = False) -> str:
    """``rows`` (the header first) as columns two spaces apart, each aligned as ``align``
    says per column (``"l"`` or ``"r"``); ``rule`` adds a dashed line under the header.
    No line ends in spaces."""
    widths = [max(len(row[col]) for row in rows) for col in range(len(align))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(cell.ljust(width) if side == "l" else cell.rjust(width)
                         for cell, width, side in zip(cells, widths, align, strict=True)).rstrip()

    lines = [line(row) for row in rows]
    if rule:
        lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)

"""A graded notebook as plain data: per-test records, a text table and a JSON document.

Each test keeps its cases (``CaseResult``): which passed, why not, and the student's value
as a short, bounded text, so that ``python -m autograder stats`` can count what a class got
wrong. A case keeps a value only when it failed with one, never the expected value (a
passing value is as good as the expected one, and a hidden case's must not reach anyone).

Trusts its inputs (the grader made them), except the students' values, which are only ever
turned into bounded text here; imports ``autograder.protocol`` for the statuses and
``lecture_utils.tables`` for the table.
"""

from __future__ import annotations

import ast
import json
import math
import reprlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autograder.protocol import Status
from lecture_utils.i18n import ENGLISH, current_language, tr, tr_format
from lecture_utils.tables import text_table

VALUE_CHARS = 80  # the longest value text a record keeps
# per-case statuses beyond protocol.Status's passed | failed | timeout | out of memory
CASE_ERROR = "error"  # the student's code raised, or returned what checks cannot compare
CASE_NOT_COMPARABLE = "not comparable"  # the comparison itself failed on the value

_SHORT = reprlib.Repr()  # a few levels, items and characters of a value, whatever its size
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring = 3, 6, 6, 60
_SHORT.maxother = 60
CUT = "…"  # ends every value text that is not the whole value (never valid Python there)
_NAMES = {"nan": math.nan, "inf": math.inf}  # what repr writes for floats with no literal


class _TooLong(Exception):
    pass


def _exact(value: Any, budget: int) -> str:
    """``repr(value)`` if it has at most ``budget`` characters, else ``_TooLong``; gives up
    as soon as the budget is spent, so a huge or deep value costs no more than a short one."""
    if isinstance(value, str):
        if len(value) > budget:
            raise _TooLong
        text = repr(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > 4 * budget:  # more digits than fit (and repr may raise)
            raise _TooLong
        text = repr(value)
    elif value is None or isinstance(value, (bool, float)):
        text = repr(value)
    elif isinstance(value, list):
        parts, used = [], 2
        for item in value:
            parts.append(_exact(item, budget - used))
            used += len(parts[-1]) + 2
        text = "[" + ", ".join(parts) + "]"
    elif isinstance(value, dict):
        parts, used = [], 2
        for key, item in value.items():
            key_text = _exact(key, budget - used)
            parts.append(f"{key_text}: {_exact(item, budget - used - len(key_text) - 2)}")
            used += len(parts[-1]) + 2
        text = "{" + ", ".join(parts) + "}"
    else:  # not plain JSON data: the protocol lets no such value through
        raise _TooLong
    if len(text) > budget:
        raise _TooLong
    return text


def short_value(value: Any, limit: int = VALUE_CHARS) -> str:
    """``value`` (plain JSON data from a student's code) as at most ``limit`` characters:
    its whole ``repr`` when that fits (``read_value`` reads it back), else a shortened form
    (``reprlib``'s, cut to the limit) that ends with ``…`` and reads back as nothing."""
    try:
        return _exact(value, limit)
    except (_TooLong, RecursionError):
        pass
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4000:
        digits = int(value.bit_length() * math.log10(2)) + 1  # repr of 10**5000 raises
        return f"an integer of about {digits} digits{CUT}"
    try:
        text = _SHORT.repr(value)
    except Exception:  # noqa: BLE001 - whatever it is, it is named by its type
        text = f"a {type(value).__name__}"
    return text[: limit - 1] + CUT


def read_value(text: str) -> Any:
    """The value a ``short_value`` text stands for, when it is the whole value; ValueError
    when it is a shortened one (or not a value at all). Reads literals only (``ast``), with
    ``nan`` and ``inf`` as repr writes them."""
    if text.endswith(CUT):
        raise ValueError("a shortened value")
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError("not a value") from None

    def build(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and node.value is not Ellipsis:
            return node.value
        if isinstance(node, ast.Name) and node.id in _NAMES:
            return _NAMES[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = build(node.operand)
            if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                return -inner
        if isinstance(node, ast.List):
            return [build(item) for item in node.elts]
        if isinstance(node, ast.Dict) and None not in node.keys:
            return {build(k): build(v) for k, v in zip(node.keys, node.values)}
        raise ValueError("not a plain value")

    try:
        return build(tree)
    except RecursionError:
        raise ValueError("too deep") from None


@dataclass
class CaseResult:
    """One check case of an exercise, as a record keeps it."""

    index: int  # its position in the exercise's test cell, from 0
    hidden: bool
    passed: bool
    status: str  # passed | failed | error | not comparable | timeout | out of memory
    value: str | None = None  # short_value of a wrong value; None if it passed or raised

    @classmethod
    def from_json(cls, data: Any) -> CaseResult | None:
        """A case read back from a record, or None if it has another shape."""
        if not isinstance(data, dict):
            return None
        index, hidden, passed = data.get("index"), data.get("hidden"), data.get("passed")
        status, value = data.get("status"), data.get("value")
        if (not isinstance(index, int) or isinstance(index, bool) or index < 0
                or not isinstance(hidden, bool) or not isinstance(passed, bool)
                or not isinstance(status, str) or not (value is None or isinstance(value, str))):
            return None
        if value is not None and len(value) > VALUE_CHARS:  # a record edited by hand
            value = value[: VALUE_CHARS - 1] + CUT
        return cls(index, hidden, passed, status, value)


@dataclass
class TestResult:
    grade_id: str
    points: float
    max_points: float
    status: Status  # passed | failed | timeout | out of memory | crashed | tampered | ...
    message: str = ""
    cases: list[CaseResult] = field(default_factory=list)  # empty: not judged case by case


def cases_of(test: Any) -> list[CaseResult]:
    """The cases of one test of a JSON record; none for a record written before cases were
    kept, and only the well-formed ones of a record edited by hand."""
    raw = test.get("cases") if isinstance(test, dict) else None
    if not isinstance(raw, list):
        return []
    return [case for case in map(CaseResult.from_json, raw) if case is not None]


@dataclass
class NotebookResult:
    notebook: str
    assignment: str
    tests: list[TestResult] = field(default_factory=list)
    student: str = ""
    # graded | tampered | timeout | out of memory | crashed | invalid notebook
    status: Status = Status.GRADED
    message: str = ""
    final: bool = True  # False: not the submission's fault (its worker died); a rerun retries

    @property
    def score(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_points for t in self.tests)

    def to_json(self) -> dict:
        return {
            "notebook": self.notebook,
            "assignment": self.assignment,
            "student": self.student,
            "status": self.status,
            "message": self.message,
            "score": self.score,
            "max_score": self.max_score,
            "tests": [asdict(t) for t in self.tests],
        }

    def write_json(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    def table(self, width: int = 72) -> str:
        """Aligned text: exercise, points, status, and the first line of the message; in the
        current language (``lecture_utils.i18n``), grade ids and numbers as they are."""
        rows = [(tr("exercise"), tr("points"), tr("status"), tr("message"))]
        for t in self.tests:
            summary = summarize(t.message)
            if len(summary) > width:
                summary = summary[: width - 1] + "…"
            rows.append((t.grade_id, f"{_num(t.points)}/{_num(t.max_points)}",
                         status_text(t.status), summary))
        lines = [text_table(rows, "llll", rule=True)]
        if self.message:
            lines.append(tr_format("status: {status} ({reason})", status=status_text(self.status),
                                   reason=shown_message(self.message)))
        elif self.status != Status.GRADED:
            lines.append(tr_format("status: {status}", status=status_text(self.status)))
        lines.append(tr_format("score: {score}",
                               score=f"{_num(self.score)}/{_num(self.max_score)}"))
        return "\n".join(line.rstrip() for line in lines)

    def details(self) -> str:
        """The full message of every exercise that did not pass (the table shows one line)."""
        blocks = []
        for t in self.tests:
            if t.status != Status.PASSED and t.message.strip():
                body = "\n".join("  " + line for line in t.message.strip().splitlines())
                blocks.append(f"{t.grade_id} ({t.status}):\n{body}")
        return "\n\n".join(blocks)


def status_text(status: str) -> str:
    """A status as a reader sees it: the record's value in the current language."""
    shown = {Status.PASSED: tr("passed"), Status.FAILED: tr("failed"),
             Status.TIMEOUT: tr("timeout"), Status.OUT_OF_MEMORY: tr("out of memory"),
             Status.CRASHED: tr("crashed"), Status.MISSING: tr("missing"),
             Status.TAMPERED: tr("tampered"), Status.INVALID: tr("invalid notebook"),
             Status.GRADED: tr("graded"), Status.GRADER_ERROR: tr("grader error")}
    return shown.get(status, str(status))


def shown_message(message: str) -> str:
    """A submission's message in the current language. The record keeps it in English
    (the reasons of the grader's steps, joined by "; "), each reason an ``N_`` text that
    ``tr`` knows; a reason it does not know is shown as it is."""
    if current_language() == ENGLISH:
        return message
    parts, shown, start = message.split("; "), [], 0
    while start < len(parts):
        # a reason may hold "; " itself: the longest run of parts (a few) that tr knows is one
        for end in range(min(len(parts), start + 4), start, -1):
            text = "; ".join(parts[start:end])
            translated = tr(text)
            if translated != text or end == start + 1:
                break
        shown.append(translated)
        start = end
    return tr("; ").join(shown)


def summarize(message: str) -> str:
    """One line for the table: the first failed check of a checks report, else the first line."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    failed = [line[2:] for line in lines if line.startswith("- ")]
    if failed:
        more = tr_format(" (+{count} more)", count=len(failed) - 1) if len(failed) > 1 else ""
        return failed[0] + more
    return lines[0]


def _num(x: float) -> str:
    return f"{x:g}"

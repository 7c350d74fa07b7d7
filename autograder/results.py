"""A graded notebook as plain data: per-test records, a text table and a JSON document.

Trusts its inputs (the grader made them); imports ``autograder.protocol`` for the statuses
and ``lecture_utils.tables`` for the table.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from autograder.protocol import Status
from lecture_utils.tables import text_table


@dataclass
class TestResult:
    grade_id: str
    points: float
    max_points: float
    status: Status  # passed | failed | timeout | out of memory | crashed | tampered | ...
    message: str = ""


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
        """Aligned text: exercise, points, status, and the first line of the message."""
        rows = [("exercise", "points", "status", "message")]
        for t in self.tests:
            summary = summarize(t.message)
            if len(summary) > width:
                summary = summary[: width - 1] + "…"
            rows.append((t.grade_id, f"{_num(t.points)}/{_num(t.max_points)}", t.status, summary))
        lines = [text_table(rows, "llll", rule=True)]
        if self.status != Status.GRADED or self.message:
            lines.append(f"status: {self.status}" + (f" ({self.message})" if self.message else ""))
        lines.append(f"score: {_num(self.score)}/{_num(self.max_score)}")
        return "\n".join(line.rstrip() for line in lines)

    def details(self) -> str:
        """The full message of every exercise that did not pass (the table shows one line)."""
        blocks = []
        for t in self.tests:
            if t.status != Status.PASSED and t.message.strip():
                body = "\n".join("  " + line for line in t.message.strip().splitlines())
                blocks.append(f"{t.grade_id} ({t.status}):\n{body}")
        return "\n\n".join(blocks)


def summarize(message: str) -> str:
    """One line for the table: the first failed check of a checks report, else the first line."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    failed = [line[2:] for line in lines if line.startswith("- ")]
    if failed:
        more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
        return failed[0] + more
    return lines[0]


def _num(x: float) -> str:
    return f"{x:g}"

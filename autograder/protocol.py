"""What the grader and the sandbox say to each other, and the statuses it leads to.

Trusts nothing it parses: every ``from_wire`` checks the shape of what arrived and answers
None (or raises ValueError) for anything else, since the sandbox side holds student code.
Imports only the standard library and ``autograder.limits``: the runner inside the sandbox
imports it too.

On the wire (JSON lines, never pickle):

- grader -> zygote, one line per submission: ``{"steps": [step, ...]}``, each step
  ``{"cell": SOURCE}`` (``RunCell``) or ``{"cases": GRADE_ID, "calls": [EXPR, ...]}``
  (``EvaluateCases``);
- child -> zygote, one line per finished step, at once (so results survive a later crash):
  ``{"cell": i, "error", "seconds", "timeout", "oom"}``, ``{"case": GRADE_ID, "call": j,
  "outcome": {"value": V} | {"error": TEXT}, "timeout", "oom"}``, then ``{"done": true}``;
  or ``{"fatal": TEXT}`` when the child itself broke;
- zygote -> grader: ``{"ready": true, ...}`` once, then one ``Report`` per request.

The ``timeout`` and ``oom`` flags are facts the child observed (its alarm fired, an
allocation failed); statuses are decided from them, never from error text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from autograder.limits import Limits

__all__ = ["CaseOutcome", "CellOutcome", "EvaluateCases", "Limits", "Report", "RunCell",
           "Status", "Step"]


class Status(StrEnum):
    """Every status the grader writes; the values are what records and the CSV hold."""

    # a sandbox run (Report.status)
    OK = "ok"
    TIMEOUT = "timeout"
    OUT_OF_MEMORY = "out of memory"
    CRASHED = "crashed"
    # an exercise (TestResult.status) may also be one of the last three, or:
    PASSED = "passed"
    FAILED = "failed"
    MISSING = "missing"  # stock nbgrader's result for a deleted test cell
    # an exercise or a whole submission (NotebookResult.status)
    TAMPERED = "tampered"
    INVALID = "invalid notebook"
    # a submission that was run and judged
    GRADED = "graded"
    # a submission the grader itself failed on (a bug, or a wait given up); not final
    GRADER_ERROR = "grader error"


RUN_STATUSES = frozenset({Status.OK, Status.TIMEOUT, Status.OUT_OF_MEMORY, Status.CRASHED})


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _flags_ok(data: dict[str, Any]) -> bool:
    return isinstance(data.get("timeout"), bool) and isinstance(data.get("oom"), bool)


# --------------------------------------------------------------------------- steps


@dataclass(frozen=True)
class RunCell:
    """Run a notebook code cell (magics allowed) in the namespace built so far."""

    source: str

    def to_wire(self) -> dict[str, Any]:
        return {"cell": self.source}


@dataclass(frozen=True)
class EvaluateCases:
    """Evaluate each expression of an exercise's checks, in order, in that namespace."""

    grade_id: str
    calls: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"cases": self.grade_id, "calls": list(self.calls)}


Step = RunCell | EvaluateCases


def check_steps(steps: Any) -> None:
    """Refuse anything but a list of steps (a grader bug, caught before the sandbox)."""
    if not isinstance(steps, list):
        raise TypeError("steps must be a list of RunCell / EvaluateCases")
    for number, step in enumerate(steps):
        if isinstance(step, RunCell) and isinstance(step.source, str):
            continue
        if (isinstance(step, EvaluateCases) and isinstance(step.grade_id, str)
                and isinstance(step.calls, tuple)
                and all(isinstance(call, str) for call in step.calls)):
            continue
        raise ValueError(f"step {number} is neither a RunCell nor an EvaluateCases: "
                         f"{step!r:.200}")


def step_from_wire(data: Any) -> Step:
    """A step from its JSON form; ValueError if it has another shape."""
    if isinstance(data, dict) and set(data) == {"cell"} and isinstance(data["cell"], str):
        return RunCell(data["cell"])
    if (isinstance(data, dict) and set(data) == {"cases", "calls"}
            and isinstance(data["cases"], str) and isinstance(data["calls"], list)
            and all(isinstance(call, str) for call in data["calls"])):
        return EvaluateCases(data["cases"], tuple(data["calls"]))
    raise ValueError(f"not a step: {data!r:.200}")


# --------------------------------------------------------------------------- outcomes


@dataclass
class CellOutcome:
    """How cell ``index`` (the RunCell steps numbered from 0) went."""

    index: int
    error: str | None
    seconds: float
    timeout: bool = False  # its alarm fired
    oom: bool = False  # it ran out of memory

    def to_wire(self) -> dict[str, Any]:
        return {"cell": self.index, "error": self.error, "seconds": self.seconds,
                "timeout": self.timeout, "oom": self.oom}

    @classmethod
    def from_wire(cls, data: Any) -> CellOutcome | None:
        if (not isinstance(data, dict) or set(data) != {"cell", "error", "seconds", "timeout",
                                                        "oom"}
                or not isinstance(data["cell"], int) or isinstance(data["cell"], bool)
                or not (data["error"] is None or isinstance(data["error"], str))
                or not _is_number(data["seconds"]) or not _flags_ok(data)):
            return None
        return cls(data["cell"], data["error"], data["seconds"], data["timeout"], data["oom"])


@dataclass
class CaseOutcome:
    """One evaluated expression: a plain JSON value, or the error it raised."""

    value: Any = None  # meaningful only when error is None
    error: str | None = None
    timeout: bool = False  # it ran past the cell limit
    oom: bool = False  # it ran out of memory

    def plain(self) -> dict[str, Any]:
        return {"value": self.value} if self.error is None else {"error": self.error}

    def to_wire(self) -> dict[str, Any]:
        return {**self.plain(), "timeout": self.timeout, "oom": self.oom}

    @classmethod
    def from_plain(cls, data: Any, timeout: bool, oom: bool) -> CaseOutcome | None:
        if not isinstance(data, dict) or len(data) != 1:
            return None
        if "value" in data:
            return cls(value=data["value"], timeout=timeout, oom=oom)
        if isinstance(data.get("error"), str):
            return cls(error=data["error"], timeout=timeout, oom=oom)
        return None

    @classmethod
    def from_wire(cls, data: Any) -> CaseOutcome | None:
        if not isinstance(data, dict) or not _flags_ok(data):
            return None
        rest = {k: v for k, v in data.items() if k not in ("timeout", "oom")}
        return cls.from_plain(rest, data["timeout"], data["oom"])


def case_message(grade_id: str, number: int, outcome: CaseOutcome) -> dict[str, Any]:
    """The child's line for case ``number`` of ``grade_id``."""
    return {"case": grade_id, "call": number, "outcome": outcome.plain(),
            "timeout": outcome.timeout, "oom": outcome.oom}


def case_from_child(data: Any, grade_id: str, number: int) -> CaseOutcome | None:
    """The outcome in a child's case line, if it is exactly the one expected next."""
    if (not isinstance(data, dict) or set(data) != {"case", "call", "outcome", "timeout", "oom"}
            or data["case"] != grade_id or data["call"] != number or not _flags_ok(data)):
        return None
    return CaseOutcome.from_plain(data["outcome"], data["timeout"], data["oom"])


# --------------------------------------------------------------------------- the report


@dataclass
class Report:
    """What one submission's run came to. Cases never evaluated (the child died first) are
    absent from ``cases``."""

    status: Status = Status.OK
    message: str = ""  # "" or why, e.g. "cell 3 ran past 30 s", "killed by SIGSEGV"
    cells: list[CellOutcome] = field(default_factory=list)
    cases: dict[str, list[CaseOutcome]] = field(default_factory=dict)
    seconds: float = 0.0  # measured by the grader, not sent

    def to_wire(self) -> dict[str, Any]:
        return {"status": str(self.status), "message": self.message,
                "cells": [c.to_wire() for c in self.cells],
                "cases": {g: [o.to_wire() for o in outcomes] for g, outcomes in self.cases.items()}}

    @classmethod
    def from_wire(cls, data: Any) -> Report | None:
        """The zygote's report, or None if it has any other shape."""
        if not isinstance(data, dict) or set(data) != {"status", "message", "cells", "cases"}:
            return None
        if data["status"] not in RUN_STATUSES or not isinstance(data["message"], str):
            return None
        if not isinstance(data["cells"], list) or not isinstance(data["cases"], dict):
            return None
        cells = [CellOutcome.from_wire(cell) for cell in data["cells"]]
        cases: dict[str, list[CaseOutcome]] = {}
        for grade_id, outcomes in data["cases"].items():
            if not isinstance(outcomes, list):
                return None
            cases[grade_id] = [CaseOutcome.from_wire(outcome) for outcome in outcomes]
            if None in cases[grade_id]:
                return None
        if None in cells:
            return None
        return cls(Status(data["status"]), data["message"], cells, cases)  # type: ignore[arg-type]

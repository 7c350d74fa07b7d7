"""The zygote's check of what the child sends, and the report it makes of it.

Everything the child sends is treated as data from the student (the student's code runs in
that process and can write to the pipe): it is size-capped, must arrive in the order of the
steps and have the shape ``autograder.protocol`` defines, or the submission is "crashed".
Imports only the standard library, ``autograder.protocol`` (with ``autograder.limits``) and
``lecture_utils.i18n``: a report's reasons are English, marked with ``N_`` so that the grader
shows them translated (``tr`` matches them against their f-string templates).
"""

from __future__ import annotations

import json
import os
import signal
from typing import Any

from autograder.limits import ERROR_CHARS, LINE_BYTES
from autograder.protocol import (
    CaseOutcome,
    CellOutcome,
    Limits,
    Report,
    RunCell,
    Status,
    Step,
    case_from_child,
)
from lecture_utils.i18n import N_

Verdict = tuple[Status, str]
# (each reason a whole sentence, so that it translates whole)
TOO_LONG = N_("sent malformed results (a result line was too long)")
OUT_OF_ORDER = N_("sent malformed results (results out of order)")


def gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


class Collector:
    """Takes the child's bytes, checks each line against the steps, and builds the report."""

    def __init__(self, steps: list[Step], limits: Limits) -> None:
        self.limits = limits
        # ("cell", i), ("case", grade_id, j), ... ("done",): the lines expected, in order
        self.expected: list[tuple[Any, ...]] = []
        index = 0
        for step in steps:
            if isinstance(step, RunCell):
                self.expected.append(("cell", index))
                index += 1
            else:
                self.expected += [("case", step.grade_id, j) for j in range(len(step.calls))]
        self.expected.append(("done",))
        self.position = 0
        self.received = 0
        self.buffer = bytearray()
        self.cells: list[CellOutcome] = []
        self.cases: dict[str, list[CaseOutcome]] = {}
        self.timeout: str | None = None
        self.oom: str | None = None
        self.fatal: str | None = None
        self.done = False

    def take(self, chunk: bytes) -> Verdict | None:
        """Take bytes from the pipe; a verdict if they break the rules, else None."""
        self.received += len(chunk)
        if self.received > self.limits.output_bytes:
            return Status.CRASHED, N_(f"sent more than {self.limits.output_bytes} bytes of "
                                      "results")
        self.buffer.extend(chunk)
        while (end := self.buffer.find(b"\n")) >= 0:
            problem = self.feed(bytes(self.buffer[:end]))
            del self.buffer[:end + 1]
            if problem:
                return Status.CRASHED, problem
        if len(self.buffer) > LINE_BYTES:
            return Status.CRASHED, TOO_LONG
        return None

    def feed(self, line: bytes) -> str | None:
        """Take one line; return why it is not acceptable (the report's reason), or None."""
        if len(line) > LINE_BYTES:
            return TOO_LONG
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return N_("sent malformed results (a result line was not JSON)")
        if not isinstance(message, dict):
            return N_("sent malformed results (a result line was not an object)")
        if "fatal" in message:
            self.fatal = str(message["fatal"])[:ERROR_CHARS]
            return None
        if self.position >= len(self.expected):
            return N_("sent malformed results (more results than steps)")
        expected = self.expected[self.position]
        if expected[0] == "done":
            if message != {"done": True}:
                return OUT_OF_ORDER
            self.done = True
        elif expected[0] == "cell":
            cell = CellOutcome.from_wire(message)
            if cell is None or cell.index != expected[1]:
                return OUT_OF_ORDER
            self.cells.append(cell)
            self._note_limits(cell.index, None, cell.timeout, cell.oom)
        else:
            _, grade_id, number = expected
            outcome = case_from_child(message, grade_id, number)
            if outcome is None:
                return OUT_OF_ORDER
            if number == 0:
                self.cases[grade_id] = []
            self.cases[grade_id].append(outcome)
            self._note_limits(None, grade_id, outcome.timeout, outcome.oom)
        self.position += 1
        return None

    def _note_limits(self, cell: int | None, grade_id: str | None, timeout: bool,
                     oom: bool) -> None:
        """Remember the first step (a cell, or a check of ``grade_id``) that ran out of time or
        memory, for the report; one whole sentence for each, so each translates whole."""
        seconds, memory = f"{self.limits.cell_seconds:g}", gib(self.limits.memory_bytes)
        if timeout and self.timeout is None:
            self.timeout = (N_(f"cell {cell} ran past {seconds} s") if cell is not None else
                            N_(f"a check of {grade_id} ran past {seconds} s"))
        if oom and self.oom is None:
            self.oom = (N_(f"cell {cell} ran out of memory (limit {memory})") if cell is not None
                        else N_(f"a check of {grade_id} ran out of memory (limit {memory})"))

    def report(self, verdict: Verdict | None, wait_status: int | None, usage: Any) -> Report:
        status, message = verdict or self._status(wait_status, usage)
        return Report(status, message, self.cells, self.cases)

    def _status(self, wait_status: int | None, usage: Any) -> Verdict:
        """The run's status from how the child ended and what it reported."""
        limits = self.limits
        if wait_status is not None and os.WIFSIGNALED(wait_status):
            number = os.WTERMSIG(wait_status)
            cpu = (usage.ru_utime + usage.ru_stime) if usage is not None else 0.0
            rss = (usage.ru_maxrss * 1024) if usage is not None else 0
            if number == signal.SIGXCPU or (number == signal.SIGKILL
                                             and cpu >= limits.cpu_seconds):
                return Status.TIMEOUT, N_(f"used more than {limits.cpu_seconds:g} s of CPU "
                                          "time")
            if number == signal.SIGKILL and (self.oom or rss >= 0.5 * limits.memory_bytes):
                return Status.OUT_OF_MEMORY, N_(f"used more than {gib(limits.memory_bytes)}")
            if self.oom:
                return Status.OUT_OF_MEMORY, self.oom
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return Status.CRASHED, N_(f"killed by {name}")
        if not self.done:
            if self.fatal:
                return Status.CRASHED, N_(f"the sandbox runner failed: {self.fatal}")
            if self.oom:
                return Status.OUT_OF_MEMORY, self.oom
            code = os.WEXITSTATUS(wait_status) if wait_status is not None else -1
            return Status.CRASHED, N_(f"exited with status {code} before finishing")
        if self.timeout:
            return Status.TIMEOUT, self.timeout
        if self.oom:
            return Status.OUT_OF_MEMORY, self.oom
        return Status.OK, ""

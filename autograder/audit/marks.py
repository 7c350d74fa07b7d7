"""What an instructor tells the audit about one exercise, written in its solution cell.

Two kinds of comment line, between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (so a
release strips them with the solution and students never see them)::

    # audit-probe: tensor_bytes(torch.zeros(3, 5, dtype=torch.int8))
    # audit-equivalent: drop-call: s = x.float().sum() -> s = x.sum() -- sums of ints are exact

A probe is an extra expression on which a mutant that passes every check is compared with
the solution; an equivalence mark names a mutant by the key the audit prints and says why
it computes the same function. ``# audit-equivalent: line: CODE -- reason`` marks every
surviving mutant of that line of code at once (a branch only a GPU takes, say). The audit
also makes probes of its own from the checks' calls, each number in them moved a little
(``generated_probes``).

Trusts the instructor notebook; imports ``autograder.audit.mutants`` (for the solution
region) and ``autograder.spec``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from autograder.audit.mutants import joined, solution_lines, squash
from autograder.spec import GradedCheck, parse

_MARK = re.compile(r"^\s*#\s*audit-(probe|equivalent)\s*:\s*(.*?)\s*$")
_EQUIVALENT = re.compile(r"^(.*?)\s+--\s+(.+)$")
GENERATED_PROBES = 32  # most probes made from one exercise's checks


@dataclass(frozen=True)
class Probe:
    call: str
    rel: float  # tolerance when the solution's value is compared with the mutant's
    abs: float


@dataclass
class Marks:
    probes: list[str] = field(default_factory=list)
    equivalent: dict[str, str] = field(default_factory=dict)  # mutant key -> reason
    lines: dict[str, str] = field(default_factory=dict)  # a line of code -> reason
    problems: list[str] = field(default_factory=list)  # marks that cannot be used


def read_marks(source: str) -> Marks:
    """The audit comments of a solution cell; problems for malformed ones and for ones
    outside the solution region (a release would hand those to students)."""
    marks, region = Marks(), solution_lines(source)
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARK.match(line)
        if not match:
            continue
        kind, text = match.groups()
        if number not in region:
            marks.problems.append(
                f"line {number}: audit comments belong between {'### BEGIN SOLUTION'} and "
                "### END SOLUTION, which a release removes; this one would reach students")
            continue
        if kind == "probe":
            try:
                ast.parse(text, mode="eval")
            except SyntaxError:
                marks.problems.append(f"line {number}: the probe is not a Python expression: "
                                      f"{text}")
                continue
            marks.probes.append(text)
            continue
        pair = _EQUIVALENT.match(text)
        if not pair:
            marks.problems.append(f"line {number}: write '# audit-equivalent: KEY -- reason' "
                                  "(the key as the audit prints it, then why it is harmless)")
            continue
        key, reason = squash(pair.group(1)), pair.group(2)
        if key.startswith("line:"):
            marks.lines[squash(key.removeprefix("line:"))] = reason
        else:
            marks.equivalent[key] = reason
    return marks


def mark_for(marks: Marks, key: str, removed: list[str]) -> tuple[str, str] | None:
    """The mark that covers a mutant (its key, or the line it changes): (mark, reason)."""
    if squash(key) in marks.equivalent:
        return squash(key), marks.equivalent[squash(key)]
    line = joined(removed)
    if line in marks.lines:
        return f"line: {line}", marks.lines[line]
    return None


def _moved(value: object) -> list[object]:
    """A number moved a little each way, as the probes move it."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [v for v in (value + 1, value * 2, value - 1) if v != value and v > 0] \
            if value > 0 else [value + 1]
    if isinstance(value, float):
        return [value * 2, value / 2, value + 1] if value else [1.0]
    return []


def generated_probes(check: GradedCheck, limit: int = GENERATED_PROBES) -> list[Probe]:
    """Calls like the checks', with one number in each moved: the cases take turns, and
    within a case every number is moved once before any is moved again; at most ``limit``."""
    per_case: list[list[Probe]] = []
    for case in check.cases:
        try:
            tree = parse(case.call)
        except SyntaxError:
            continue
        constants = [node for node in ast.walk(tree) if isinstance(node, ast.Constant)
                     and isinstance(node.value, int | float)]
        # every number moved once before any is moved twice
        moves = [(rank, node, value) for node in constants
                 for rank, value in enumerate(_moved(node.value))]
        moves.sort(key=lambda move: move[0])  # stable: numbers stay in order within a rank
        probes = []
        for _, node, value in moves:
            original, node.value = node.value, value
            probes.append(Probe(ast.unparse(tree), case.rel, case.abs))
            node.value = original
        per_case.append(probes)
    chosen: list[Probe] = []
    seen = {case.call for case in check.cases}
    while len(chosen) < limit and any(per_case):
        for probes in per_case:
            if probes and len(chosen) < limit:
                probe = probes.pop(0)
                if probe.call not in seen:
                    seen.add(probe.call)
                    chosen.append(probe)
    return chosen


def declared_probes(marks: Marks, check: GradedCheck) -> list[Probe]:
    """The instructor's probes, compared at the check's tightest tolerance."""
    rel = min(case.rel for case in check.cases)
    abs_tol = min(case.abs for case in check.cases)
    return [Probe(call, rel, abs_tol) for call in marks.probes]

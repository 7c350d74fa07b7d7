"""Seed hints (known wrong values, each with a message) from the wrong answers in tests/answers.

Every WRONG answer of ``tests/answers/<assignment>.py`` is graded as the audit grades known
answers (``autograder.audit.runner``: one warm worker, each answer a replacement solution
cell). Each case of the exercise's test that an answer fails with a value becomes a hint: that
value, with the comment above the answer (the misconception it names) as the message. Kept
only: short plain values (no lone bools or None: every wrong bool is the same value), one hint per
distinct value (answers that share a value have their comments joined), none that a RIGHT
answer also produces, none an existing hint already covers, and none that
``autograder.spec.check_hints`` rejects (a hidden case's hint must not show its call or its
expected value).

    .venv/bin/python scripts/seed_hints.py 00_napkin_math           # print the hints
    .venv/bin/python scripts/seed_hints.py 00_napkin_math --write   # into the solution notebook

``--write`` adds ``hints=((value, "message"), ...)`` to the Case literals of the solution
notebook's test cells (nbformat, the rest of the cell untouched); rerun the notebook and
release it afterwards (scripts/run_solutions.py). Trusts the repository: the answers are
instructor code, run in the audit's worker under its limits.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import nbformat

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.audit.runner import NotebookAudit  # noqa: E402
from autograder.course import instructor_notebook  # noqa: E402
from autograder.notebook import nbgrader_meta  # noqa: E402
from autograder.protocol import CaseOutcome  # noqa: E402
from autograder.spec import (  # noqa: E402
    TEST_CELL_WIDTH,
    AssignmentSpec,
    SpecError,
    check_hints,
    load_spec,
    parse_cases,
)
from lecture_utils.checks import Case, Outcome, hint_for, judge  # noqa: E402

ANSWERS = REPO / "tests" / "answers"
MAX_ITEMS, MAX_CHARS = 8, 80  # a hint's value is read in a test cell: a few items at most
LINE = TEST_CELL_WIDTH


@dataclass
class GradedAnswers:
    """What one exercise's known answers gave on its test's cases, answer by answer."""

    solution: str  # the solution cell's grade_id
    test: str  # its test cell's grade_id
    wrong: list[list[CaseOutcome]] = field(default_factory=list)
    right: list[list[CaseOutcome]] = field(default_factory=list)


@dataclass(frozen=True)
class Hint:
    """A new hint: which case it belongs to, and the wrong value with its message."""

    test: str  # the test cell's grade_id
    index: int  # the case's position in the cell
    hidden: bool
    value: Any
    message: str


class _AnswerGrader(NotebookAudit):
    """The audit's warm worker and grading, for the known answers only (no mutants)."""

    def _exercise(self, worker: Any, exercise: Any) -> GradedAnswers:  # type: ignore[override]
        graded = GradedAnswers(exercise.solution, exercise.test)
        for kind, sources in self.answers.get(exercise.solution, {}).items():
            for source in sources:
                _, report = self._grade(worker, source, exercise)
                getattr(graded, kind).append(report.cases.get(exercise.test, []))
        return graded


def grade_answers(assignment: str, *, sandbox: bool) -> list[GradedAnswers]:
    """Every known answer of ``assignment`` graded against its exercise's test cases."""
    return _AnswerGrader(instructor_notebook(assignment), answers=ANSWERS,
                         sandbox=sandbox).run()  # type: ignore[return-value]


def answer_comments(answers_file: Path) -> dict[str, list[str]]:
    """``{solution grade_id: [comment above each WRONG answer, in order]}`` ("" if none)."""
    source = answers_file.read_text(encoding="utf-8")
    lines = source.splitlines()
    comments: dict[str, list[str]] = {}
    for node in ast.parse(source).body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) else None)
        if getattr(target, "id", None) != "WRONG" or not isinstance(node.value, ast.Dict):
            continue
        for key, answers in zip(node.value.keys, node.value.values):
            if not isinstance(key, ast.Constant) or not isinstance(answers, ast.List):
                continue
            comments[key.value] = [_comment_above(lines, answer.lineno) for answer in answers.elts]
    return comments


def _comment_above(lines: list[str], lineno: int) -> str:
    """The comment lines right above line ``lineno`` (1-based), joined into one sentence."""
    above: list[str] = []
    for line in reversed(lines[:lineno - 1]):
        if not line.strip().startswith("#"):
            break
        above.insert(0, line.strip().removeprefix("#").strip())
    return " ".join(above)


def short_plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` can be a hint: a short plain value, readable in a test cell (lists
    of lists at most, a few items each)."""
    if value is None or isinstance(value, bool):
        return depth > 0  # a lone bool or None is what every wrong answer of its case returns
    if isinstance(value, int):
        return len(repr(value)) <= 24
    if isinstance(value, float):
        return math.isfinite(value)  # nan and inf are not literals ast.literal_eval reads
    if isinstance(value, str):
        return len(value) <= 40 and value.isprintable() and (depth > 0 or value != "")
    if isinstance(value, list):
        return depth < 2 and len(value) <= MAX_ITEMS and len(repr(value)) <= MAX_CHARS and all(
            short_plain(item, depth + 1) for item in value)
    return False


def _has_float(value: Any) -> bool:
    """Whether ``value`` is or holds a float (which an ``integer=True`` case refuses)."""
    if isinstance(value, list):
        return any(_has_float(item) for item in value)
    return isinstance(value, float)


def _same(case: Case, value: Any, other: Any) -> bool:
    """Whether ``value`` matches ``other`` within the case's own tolerance."""
    return judge(replace(case, expect=other, hints=()), Outcome(value=value)) is None


def _shortest(case: Case, value: Any) -> Any:
    """``value`` with its floats written in as few digits as still match it within the case's
    tolerance (12435257.7059, not 12435257.705912078)."""
    if isinstance(value, list):
        return [_shortest(case, item) for item in value]
    if not isinstance(value, float):
        return value
    for digits in range(1, 18):
        rounded = float(f"{value:.{digits}g}")
        if _same(case, value, rounded):
            return rounded
    return value


def collect_hints(spec: AssignmentSpec, graded: list[GradedAnswers],
                  comments: dict[str, list[str]]) -> tuple[list[Hint], list[str]]:
    """The new hints, and a note for each candidate left out and why."""
    hints: list[Hint] = []
    notes: list[str] = []
    for exercise in graded:
        check = spec.checks[exercise.test]
        messages = comments.get(exercise.solution, [])
        if len(messages) != len(exercise.wrong):  # WRONG built by code: comments unknowable
            notes.append(f"{exercise.test}: {len(exercise.wrong)} WRONG answers graded but "
                         f"{len(messages)} found written out in the answers file")
            continue
        for index, (case, hidden) in enumerate(zip(check.cases, check.hidden)):
            where = f"{exercise.test} case {index}"
            right = [o[index].value for o in exercise.right
                     if index < len(o) and o[index].error is None]
            found: list[tuple[Any, list[str]]] = []  # value, the comments of its answers
            for number, outcomes in enumerate(exercise.wrong):
                if index >= len(outcomes) or outcomes[index].error is not None:
                    continue
                value = outcomes[index].value
                if judge(case, Outcome(value=value)) is None:
                    continue  # this answer passes this case
                comment = messages[number]
                if not comment:
                    notes.append(f"{where}: WRONG answer {number} has no comment above it")
                elif isinstance(value, bool) or value is None:
                    continue  # not a sign of any one mistake: quietly no hint
                elif case.integer and _has_float(value):
                    continue  # the integer check's own message names this slip
                elif not short_plain(value):
                    notes.append(f"{where}: {str(value)[:60]!r} is not a short plain value")
                elif any(_same(case, value, r) for r in right):
                    notes.append(f"{where}: {value!r} is also a right answer's value")
                elif hint_for(case, value) is None:
                    same = next((f for f in found if _same(case, value, f[0])), None)
                    if same is None:
                        found.append((value, [comment]))
                    elif comment not in same[1]:
                        same[1].append(comment)
            for value, said in found:
                if len(said) > 1:  # a hint names one mistake: the author writes this one
                    notes.append(f"{where}: {value!r} is returned by {len(said)} WRONG answers "
                                 f"({' | '.join(said)}): write one message for it by hand")
                    continue
                hint = Hint(exercise.test, index, hidden, _shortest(case, value), said[0])
                try:
                    check_hints(replace(case, hints=((value, hint.message),)), hidden, where)
                except SpecError as problem:
                    notes.append(str(problem))
                    continue
                hints.append(hint)
    return hints, notes


def _literal(value: Any, *, in_list: bool = False) -> str:
    """``value`` as Python source (json's strings are Python string literals too); large and
    tiny floats in exponent form (1.6e11, not 160000000000.0), whole floats in a list as
    integers (the comparison takes 2 for 2.0)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v, in_list=True) for v in value) + "]"
    if isinstance(value, float) and in_list and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, float) and value and not 1e-4 <= abs(value) < 1e6:
        for digits in range(17):
            written = f"{value:.{digits}e}"
            if float(written) == value:
                mantissa, exponent = written.split("e")
                return f"{mantissa}e{int(exponent)}"
    return repr(value)


def _hint_source(value: Any, message: str, column: int) -> str:
    """One ``(value, "message")`` pair starting at ``column``, its message cut into adjacent
    string literals so that no line passes column LINE (on a line of its own after a long
    value)."""
    head = f"({_literal(value)}, "
    if len(head) > 30:
        head = head.rstrip() + "\n" + " " * (column + 1)
    start = len(head.rsplit("\n", 1)[-1]) + (0 if "\n" in head else column)
    width = max(20, LINE - start - 7)  # two quotes and ")))," after the last piece
    pieces, piece = [], ""
    for word in message.split(" "):
        if piece and len(piece) + len(word) + 1 > width:
            pieces.append(piece + " ")
            piece = word
        else:
            piece = f"{piece} {word}" if piece else word
    pieces.append(piece)
    return head + ("\n" + " " * start).join(_literal(p) for p in pieces) + ")"


def _column(line: str, byte_offset: int) -> int:
    """ast's UTF-8 byte offset on ``line`` as a character offset."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8"))


def with_hints(source: str, new: dict[int, list[tuple[Any, str]]]) -> str:
    """A test cell's source with hints added to its ``index``-th Case literals."""
    calls = sorted((n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
                    and getattr(n.func, "id", None) == "Case"), key=lambda n: n.lineno)
    lines = source.split("\n")
    edits = []  # (line, column, end line, end column, text), 0-based lines
    for index, pairs in new.items():
        node = calls[index]
        first = node.args[0]
        indent = " " * _column(lines[first.lineno - 1], first.col_offset)
        existing = next((k for k in node.keywords if k.arg == "hints"), None)
        old = list(ast.literal_eval(existing.value)) if existing else []
        column = len(indent) + len("hints=(")
        items = [_hint_source(v, m, column) for v, m in [*old, *pairs]]
        text = "hints=(" + f",\n{' ' * column}".join(items) + ("," if len(items) == 1 else "")
        text += ")"
        if existing is not None:
            value = existing.value
            start = (value.lineno - 1, _column(lines[value.lineno - 1], value.col_offset))
            end = (value.end_lineno - 1, _column(lines[value.end_lineno - 1],
                                                value.end_col_offset))
            edits.append((*start, *end, text.removeprefix("hints=")))
        else:
            last = max([*node.args, *(k.value for k in node.keywords)],
                       key=lambda n: (n.end_lineno, n.end_col_offset))
            at = (last.end_lineno - 1, _column(lines[last.end_lineno - 1], last.end_col_offset))
            edits.append((*at, *at, f",\n{indent}{text}"))
    for line, column, end_line, end_column, text in sorted(edits, reverse=True):
        joined = lines[line][:column] + text + lines[end_line][end_column:]
        lines[line:end_line + 1] = joined.split("\n")
    return "\n".join(lines)


def write_hints(path: Path, hints: list[Hint]) -> int:
    """Add ``hints`` to the test cells of the notebook at ``path``; the cells changed."""
    notebook = nbformat.read(path, as_version=4)
    changed = 0
    for cell in notebook.cells:
        test = nbgrader_meta(cell).get("grade_id")
        new: dict[int, list[tuple[Any, str]]] = {}
        for hint in hints:
            if hint.test == test:
                new.setdefault(hint.index, []).append((hint.value, hint.message))
        if not new:
            continue
        source = with_hints(cell.source, new)
        cases, _ = parse_cases(source, f"{path}, {test}")  # it must read back as data
        for index, pairs in new.items():
            assert all(pair in cases[index].hints for pair in pairs), (test, index)
        cell.source = source
        changed += 1
    nbformat.write(notebook, path)
    return changed


def main() -> None:
    from autograder.sandbox.bwrap import sandbox_available

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="+", metavar="ASSIGNMENT")
    parser.add_argument("--write", action="store_true",
                        help="add the hints to the solution notebook's test cells")
    args = parser.parse_args()
    sandboxed, _ = sandbox_available()
    for assignment in args.assignments:
        path = instructor_notebook(assignment)
        spec = load_spec(path)
        graded = grade_answers(assignment, sandbox=sandboxed)
        hints, notes = collect_hints(spec, graded, answer_comments(ANSWERS / f"{assignment}.py"))
        print(f"{assignment}: {len(hints)} new hint(s)")
        for hint in hints:
            kind = "hidden" if hint.hidden else "visible"
            print(f"  {hint.test} case {hint.index} ({kind}): {_literal(hint.value)} "
                  f"-> {hint.message}")
        for note in notes:
            print(f"  left out: {note}")
        if args.write and hints:
            print(f"  wrote {write_hints(path, hints)} test cell(s) of {path}")


if __name__ == "__main__":
    main()

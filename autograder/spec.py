"""An assignment's graded checks, read from the instructor notebook as data.

Each graded test cell holds a ``check([...])`` call whose list is ``Case(...)`` literals
(``lecture_utils.checks``). They are parsed here with ``ast`` and never executed, so the
grader can judge a submission from the plain values its code returns, outside the sandbox,
and the cases' expected values never reach student code. A case's hints (known wrong values
with a message each) are checked here: each value must fail its case, and a hidden case's
messages must not show its call or expected value.

The released markdown (the prose a student's copy keeps as the instructor wrote it) is the
English and every translated edition's (``autograder.translate``): a Chinese submission's prose
is the course's, not the student's.

Trusts the instructor notebook (still, nothing in it is executed) and the repository's
translation catalogs. Imports ``nbformat``, ``autograder.notebook``, ``autograder.translate``
(when loading a spec) and ``lecture_utils.checks``.
"""

from __future__ import annotations

import ast
import hashlib
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.notebook import nbgrader_meta
from lecture_utils.checks import Case, Outcome, judge

BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
# Unchanged instructor cells that import or only define things are cheap and may be needed
# by a solution, so the grader runs them. Other instructor cells (demos, timings, plots) are
# skipped unless the student changed them.
_IMPORTS = (ast.Import, ast.ImportFrom)
_DEFINITIONS = (*_IMPORTS, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# CPython 3.11-3.12 track the AST constructor's recursion depth per interpreter, not per
# thread, so two threads parsing at once can fail with "SystemError: AST constructor
# recursion depth mismatch" (python/cpython#106905); grade plans in several threads.
_PARSING = threading.Lock()


def parse(source: str) -> ast.Module:
    """``ast.parse``, one thread at a time."""
    with _PARSING:
        return ast.parse(source)
# the nbgrader metadata that says how a cell is graded (a release adds others: checksum...)
GRADING_KEYS = ("grade", "grade_id", "locked", "points", "solution", "task")
# a test cell's lines fit a JupyterLab cell at the default width: wider ones run past its edge
TEST_CELL_WIDTH = 88


class SpecError(ValueError):
    """The instructor notebook's test cells are not in the expected data-only form."""


@dataclass(frozen=True)
class GradedCheck:
    grade_id: str
    points: float
    cases: tuple[Case, ...]
    hidden: tuple[bool, ...]  # per case: was it between the hidden-tests markers?
    student_source: str  # the test cell as released to students (hidden tests removed)
    metadata: dict  # the instructor's nbgrader metadata of the cell (points, grade_id, ...)


@dataclass
class AssignmentSpec:
    name: str
    checks: dict[str, GradedCheck] = field(default_factory=dict)
    solution_ids: set[str] = field(default_factory=set)
    instructor_cells: dict[str, str] = field(default_factory=dict)  # cell id → source
    # every nbgrader cell of the release: grade_id → its cell id and its nbgrader metadata
    # (which cells are graded, their points and locks: the instructor's, never a student's)
    released_ids: dict[str, str] = field(default_factory=dict)
    released_meta: dict[str, dict] = field(default_factory=dict)
    released_markdown: set[str] = field(default_factory=set)  # sources, as released
    fingerprint: str = ""

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.checks.values())


def strip_hidden(source: str) -> str:
    """The source nbgrader releases: lines between the hidden-test markers removed."""
    kept, hidden = [], False
    for line in source.splitlines():
        marker = line.strip()
        if marker == BEGIN_HIDDEN:
            hidden = True
        elif marker == END_HIDDEN:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


def normalise(source: str) -> str:
    """Compare sources ignoring trailing whitespace, which editors change freely."""
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _hidden_lines(source: str) -> set[int]:
    lines, hidden = set(), False
    for number, line in enumerate(source.splitlines(), start=1):
        marker = line.strip()
        if marker in (BEGIN_HIDDEN, END_HIDDEN):
            hidden = marker == BEGIN_HIDDEN
        elif hidden:
            lines.add(number)
    return lines


def _spellings(value: object) -> set[str]:
    """How a message could write ``value``: as Python shows it and as ``%g`` does."""
    if value is None or isinstance(value, bool):
        return set()  # True, False and None are words: a hint may well use them
    if isinstance(value, (int, float)):
        found = {repr(value), str(value), f"{value:.6g}", f"{value:g}"}
        return found | {s.replace("e+", "e") for s in found}
    if isinstance(value, (list, tuple)):
        # a list's short items (0, 1, 2...) are ordinary words of a message; its longer ones
        # and the whole list are not
        items = {s for item in value for s in _spellings(item) if len(s) > 2}
        return {repr(list(value)), repr(tuple(value))} | items
    return {str(value), repr(value)}


def _mentions(message: str, spelling: str) -> bool:
    """Whether ``spelling`` stands on its own in ``message`` (6, not the 6 of 16 or x6)."""
    return re.search(rf"(?<![\w.]){re.escape(spelling)}(?!\w|\.\d)", message) is not None


# "X; or: Y": messages of several wrong answers that share a value, joined (a student who made
# one mistake reads a list of others).
_ALTERNATIVES = re.compile(r";\s*or:")


def check_hints(case: Case, hidden: bool, where: str) -> None:
    """A case's hints are (wrong value, message) pairs whose values fail the case; a hidden
    case's messages name neither its call nor its expected value (students read them)."""
    if not isinstance(case.hints, (tuple, list)):
        raise SpecError(f"{where}: hints must be a tuple of (wrong value, message) pairs")
    for hint in case.hints:
        if not (isinstance(hint, (tuple, list)) and len(hint) == 2
                and isinstance(hint[1], str) and hint[1].strip()):
            raise SpecError(f"{where}: each hint must be a (wrong value, message) pair, "
                            f"not {hint!r}")
        wrong, message = hint
        if _ALTERNATIVES.search(message):
            raise SpecError(f"{where}: the hint {message!r} lists alternatives; a hint names "
                            "one mistake (or says plainly what the check compared)")
        if judge(case, Outcome(value=wrong)) is None:
            raise SpecError(f"{where}: the hint value {wrong!r} passes the case, so its "
                            "message would never be shown")
        if hidden:
            shown = [s for s in {case.call, *_spellings(case.expect)} if _mentions(message, s)]
            if shown:
                raise SpecError(f"{where}: the hint {message!r} of a hidden case shows "
                                f"{shown[0]!r}, its call or expected value: reword it")


def parse_cases(source: str, where: str) -> tuple[tuple[Case, ...], tuple[bool, ...]]:
    """The Case literals of a test cell, and which of them are hidden."""
    try:
        tree = parse(source)
    except SyntaxError as error:
        raise SpecError(f"{where}: test cell is not valid Python: {error}") from None
    hidden_lines = _hidden_lines(source)
    cases = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Case":
            try:
                args = [ast.literal_eval(a) for a in node.args]
                kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            except ValueError:
                raise SpecError(
                    f"{where}: line {node.lineno}: Case arguments must be literals so the "
                    "grader can read them as data") from None
            case = Case(*args, **kwargs)
            check_hints(case, node.lineno in hidden_lines, f"{where}: line {node.lineno}")
            cases.append((node.lineno, case))
    if not cases:
        raise SpecError(f"{where}: test cell has no Case(...) literals")
    cases.sort(key=lambda pair: pair[0])
    return (tuple(c for _, c in cases), tuple(line in hidden_lines for line, _ in cases))


def needed_for_grading(source: str) -> bool:
    """Whether an unchanged instructor cell must run before the solutions: it imports
    something, or it only defines functions and classes."""
    try:
        body = parse(source).body
    except SyntaxError:  # IPython magics: demo cells such as %%gpu_only
        return False
    return any(isinstance(stmt, _IMPORTS) for stmt in body) or \
        all(isinstance(stmt, _DEFINITIONS) for stmt in body)


def translated_markdown(notebook: nbformat.NotebookNode, name: str) -> set[str]:
    """The released markdown of ``notebook`` in each translated language (its catalogs
    ``translations/<language>/<name>.po``); a cell with no current translation is the
    English one, already released."""
    from autograder.translate import translated_languages
    from autograder.translate.build import translate_notebook

    found: set[str] = set()
    for language in translated_languages():
        translated, _ = translate_notebook(notebook, language, name)
        found |= {cell.source for cell in translated.cells
                  if cell.cell_type == "markdown" and not nbgrader_meta(cell).get("solution")}
    return found


def load_spec(instructor_notebook: Path) -> AssignmentSpec:
    """Read an instructor notebook into the data the grader needs."""
    raw = instructor_notebook.read_bytes()
    notebook = nbformat.reads(raw.decode("utf-8"), as_version=4)
    spec = AssignmentSpec(name=instructor_notebook.stem,
                          fingerprint=hashlib.sha256(raw).hexdigest())
    for index, cell in enumerate(notebook.cells):
        meta = nbgrader_meta(cell)
        grade_id = meta.get("grade_id")
        if grade_id:
            spec.released_ids[grade_id] = cell.get("id", "")
            spec.released_meta[grade_id] = dict(meta)
        if cell.cell_type == "markdown" and not meta.get("solution"):
            spec.released_markdown.add(cell.source)
        if cell.cell_type != "code":
            continue
        if meta.get("grade") and not meta.get("solution"):
            where = f"{instructor_notebook}, cell {index} ({grade_id})"
            cases, hidden = parse_cases(cell.source, where)
            spec.checks[grade_id] = GradedCheck(
                grade_id=grade_id, points=float(meta.get("points", 0)), cases=cases,
                hidden=hidden, student_source=strip_hidden(cell.source), metadata=dict(meta))
        elif meta.get("solution"):
            spec.solution_ids.add(grade_id)
        elif cell.get("id"):
            spec.instructor_cells[cell.id] = cell.source
    spec.released_markdown |= translated_markdown(notebook, spec.name)
    return spec

"""``python -m autograder audit``: the mutants it plants, the marks it reads, and what it
reports for exercises whose tests are weak, strong, or hold an equivalent mutant.

Fixture notebooks are built here from a solution and a test cell, each named by what it
holds; they are graded through the real command, in a real (sandboxed where possible)
worker.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.audit.marks import generated_probes, read_marks
from autograder.audit.mutants import mutants_of, solution_lines
from autograder.spec import GradedCheck
from lecture_utils.checks import Case

# -- the mutants


def _keys(source: str) -> set[str]:
    return {m.key for m in mutants_of(source)}


AREA = ("def area(w, h):\n"
        "    ### BEGIN SOLUTION\n"
        "    return w * h\n"
        "    ### END SOLUTION\n")


def test_mutants_are_the_slips_a_student_makes():
    keys = _keys(AREA)
    assert "swap-op: return w * h -> return w / h" in keys  # mutmut's operator
    assert "drop-operand: return w * h -> return w" in keys  # a factor left out
    assert "drop-operand: return w * h -> return h" in keys


def test_only_the_solution_region_is_mutated():
    source = ("def scale(x, k=2):\n"
              "    y = x * 3\n"
              "    ### BEGIN SOLUTION\n"
              "    return y + k\n"
              "    ### END SOLUTION\n")
    assert solution_lines(source) == {4}
    mutants = mutants_of(source)
    assert mutants and all(m.line == 4 for m in mutants)
    assert all(m.source.splitlines()[:3] == source.splitlines()[:3] for m in mutants)


@pytest.mark.parametrize("source, key", [
    ("x = 1\n### BEGIN SOLUTION\ny = 8 * x\n### END SOLUTION\n",
     "number-other-way: y = 8 * x -> y = 16 * x"),
    ("### BEGIN SOLUTION\ny = abs(x - 1)\n### END SOLUTION\n",
     "drop-call: y = abs(x - 1) -> y = (x - 1)"),
    ("### BEGIN SOLUTION\ny = x.float().sum()\n### END SOLUTION\n",
     "drop-call: y = x.float().sum() -> y = x.sum()"),
    ("### BEGIN SOLUTION\ny = torch.zeros(3, dtype=torch.bfloat16)\n### END SOLUTION\n",
     "change-dtype: y = torch.zeros(3, dtype=torch.bfloat16) -> "
     "y = torch.zeros(3, dtype=torch.float16)"),
    ("### BEGIN SOLUTION\ny = x.sum(dim=0)\n### END SOLUTION\n",
     "drop-keyword: y = x.sum(dim=0) -> y = x.sum()"),
    ("### BEGIN SOLUTION\ny = pow(a, b)\n### END SOLUTION\n",
     "swap-arguments: y = pow(a, b) -> y = pow(b, a)"),
    ("### BEGIN SOLUTION\nfor i in range(n):\n    t += i\n### END SOLUTION\n",
     "change-range: for i in range(n): -> for i in range(n - 1):"),
    ("### BEGIN SOLUTION\nfor i in range(n):\n    t += i\n### END SOLUTION\n",
     "drop-statement: t += i -> pass"),
    ("### BEGIN SOLUTION\nif a < b:\n    a = b\n### END SOLUTION\n",
     "turn-comparison: if a < b: -> if a > b:"),
    ("def f(xs):\n    ### BEGIN SOLUTION\n    t = 0\n    for x in xs:\n        t += x\n"
     "    return t\n    ### END SOLUTION\n",
     "return-in-loop: return t -> return t (indented differently)"),
    ("def f(xs):\n    ### BEGIN SOLUTION\n    t = 0\n    for x in xs:\n        t += x\n"
     "    return t\n    ### END SOLUTION\n",
     "loop-times: t += x -> t += x / break"),
])
def test_each_student_operator(source, key):
    assert key in _keys(source)


def test_mutants_that_compile_to_the_same_code_are_made_once():
    mutants = mutants_of(AREA)
    assert len({m.source for m in mutants}) == len(mutants)
    assert all(m.source != AREA for m in mutants)


# -- the marks


def test_marks_are_read_from_the_solution_region_only():
    source = ("# audit-probe: area(1, 1)\n"
              "def area(w, h):\n"
              "    ### BEGIN SOLUTION\n"
              "    # audit-probe: area(3, 7)\n"
              "    # audit-equivalent: drop-call: return float(w * h) -> return (w * h) -- "
              "ints and floats compare equal\n"
              "    # audit-equivalent: no reason given\n"
              "    return float(w * h)\n"
              "    ### END SOLUTION\n")
    marks = read_marks(source)
    assert marks.probes == ["area(3, 7)"]
    assert marks.equivalent == {
        "drop-call: return float(w * h) -> return (w * h)": "ints and floats compare equal"}
    assert len(marks.problems) == 2
    assert "would reach students" in marks.problems[0]
    assert "KEY -- reason" in marks.problems[1]


def test_generated_probes_move_each_number_of_every_case():
    check = GradedCheck("test_area", 1, (Case("area(2, 2)", 4), Case("area(0.5, 4)", 2.0)),
                        (False, True), "", {})
    calls = [p.call for p in generated_probes(check)]
    assert {"area(3, 2)", "area(4, 2)", "area(2, 3)", "area(1.0, 4)", "area(0.25, 4)",
            "area(0.5, 5)"} <= set(calls)
    assert "area(2, 2)" not in calls  # the checks themselves are not probes
    assert calls.index("area(1.0, 4)") < 3  # cases take turns: the hidden one is not starved
    assert len(generated_probes(check, limit=3)) == 3


# -- the command, on fixture notebooks


def _cell(kind: str, source: str, grade_id: str, points: int = 0) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": kind == "test", "grade_id": grade_id, "locked": kind == "test",
        "points": points, "schema_version": 3, "solution": kind == "solution",
        "task": False}
    if kind == "solution":
        del cell.metadata["nbgrader"]["points"]
    return cell


def _notebook(folder: Path, name: str, solution: str, cases: str,
              grade_id: str = "area") -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("from lecture_utils.checks import Case, check"),
        _cell("solution", solution, grade_id),
        _cell("test", f"check([\n{cases}\n])", f"test_{grade_id}", points=2),
    ]
    path = folder / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


def _audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "audit", *args],
                          capture_output=True, text=True, timeout=300)


COUNTDOWN = ("def countdown(n):\n"
             "    ### BEGIN SOLUTION\n"
             "    count = 0\n"
             "    while n > 0:\n"
             "        n -= 1\n"
             "        count += 1\n"
             "    return count\n"
             "    ### END SOLUTION\n")
UNIT_SQUARE = '    Case("area(1, 1)", 1, "a unit square"),'
STRONG = UNIT_SQUARE + '\n    Case("area(3, 5)", 15, "w times h, not w plus h"),\n' \
    '    Case("area(2, 7)", 14, "not w to the power h"),'


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    """One audit of every fixture notebook (a worker start is the slow part): the run, and
    each notebook's exercise as the JSON report gives it."""
    folder = tmp_path_factory.mktemp("audit")
    _notebook(folder, "weak_unit_square_check", AREA, UNIT_SQUARE)
    _notebook(folder, "strong_three_checks", AREA, STRONG)
    float_area = AREA.replace("return w * h", "return float(w * h)")
    _notebook(folder, "equivalent_float_unmarked", float_area, STRONG)
    marked = float_area.replace(
        "    return float",
        "    # audit-equivalent: drop-call: return float(w * h) -> return (w * h) -- "
        "an int and a float of the same value compare equal\n    return float")
    _notebook(folder, "equivalent_float_marked", marked, STRONG)
    stale = AREA.replace("    return", "    # audit-equivalent: swap-op: return w * h -> "
                         "return w / h -- a wrong mark\n    return")
    _notebook(folder, "stale_mark", stale, STRONG)
    _notebook(folder, "countdown_loop", COUNTDOWN, '    Case("countdown(3)", 3, "three steps"),',
              grade_id="countdown")
    answers = folder / "answers"
    answers.mkdir()
    (answers / "strong_three_checks.py").write_text(
        'WRONG = {"area": ["def area(w, h):\\n    return 2 * (w + h)\\n",\n'
        '                  "def area(w, h):\\n    return w * w\\n"]}\n'
        'RIGHT = {"area": ["def area(w, h):\\n    return h * w\\n"]}\n')
    report = folder / "audit.json"
    run = _audit(*sorted(str(p) for p in folder.glob("*.ipynb")), "--answers", str(answers),
                 "--json", str(report), "--cell-timeout", "1")
    exercises = json.loads(report.read_text())["exercises"]
    return run, {e["notebook"]: e for e in exercises}


def _verdicts(exercise: dict) -> dict[str, dict]:
    return {m["key"]: m for m in exercise["mutants"]}


@pytest.mark.slow
def test_a_weak_check_is_reported_with_its_survivor_and_the_input_that_tells(audited):
    run, exercises = audited
    exercise = exercises["weak_unit_square_check"]
    verdicts = _verdicts(exercise)
    # on a 1 by 1 square, w / h, w and h all give 1, as w * h does
    for key in ("swap-op: return w * h -> return w / h", "drop-operand: return w * h -> return w",
                "drop-operand: return w * h -> return h"):
        assert verdicts[key]["verdict"] == "survived", verdicts[key]
        assert key in run.stdout  # listed for the instructor, with what to do
    # each is shown with a probe (a case's input, moved) on which it differs from w * h
    assert "area(1, 2): the solution gives 2; the mutant returned 0.5" in \
        verdicts["swap-op: return w * h -> return w / h"]["detail"]
    assert "area(1, 2): the solution gives 2; the mutant returned 1" in \
        verdicts["drop-operand: return w * h -> return w"]["detail"]
    assert exercise["passed"] is False and exercise["score"] == 0
    assert run.returncode == 1, run.stderr  # an unmarked survivor fails the audit


@pytest.mark.slow
def test_strong_checks_kill_every_mutant_and_grade_the_known_answers(audited):
    run, exercises = audited
    exercise = exercises["strong_three_checks"]
    assert exercise["passed"] is True and exercise["score"] == 1
    assert [(a["kind"], a["ok"]) for a in exercise["answers"]] == \
        [("wrong", True), ("wrong", True), ("right", True)]
    row = next(line for line in run.stdout.splitlines() if "strong_three_checks" in line)
    assert row.split()[-3:] == ["100%", "3/3", "ok"], row


@pytest.mark.slow
def test_an_equivalent_mutant_is_recognised_and_a_marked_one_passes(audited):
    _, exercises = audited
    unmarked, marked = exercises["equivalent_float_unmarked"], \
        exercises["equivalent_float_marked"]
    key = "drop-call: return float(w * h) -> return (w * h)"
    assert _verdicts(unmarked)[key]["verdict"] == "likely equivalent"
    assert unmarked["passed"] is False
    found = _verdicts(marked)[key]
    assert found["verdict"] == "equivalent"
    assert found["reason"] == "an int and a float of the same value compare equal"
    assert marked["passed"] is True and marked["score"] == 1


@pytest.mark.slow
def test_a_mark_naming_no_survivor_fails_the_audit(audited):
    run, exercises = audited
    assert exercises["stale_mark"]["passed"] is False
    assert any("names no surviving mutant" in p for p in exercises["stale_mark"]["problems"])
    assert "names no surviving mutant" in run.stdout


@pytest.mark.slow
def test_a_mutant_that_never_ends_is_stopped_and_counts_as_killed(audited):
    _, exercises = audited
    verdicts = _verdicts(exercises["countdown_loop"])
    endless = verdicts["swap-op: n -= 1 -> n += 1"]
    assert endless["verdict"] == "killed"
    assert endless["detail"].startswith("timeout:") and "timed out after 1 s" in \
        endless["detail"], endless


def test_a_path_that_is_no_notebook_exits_2(tmp_path):
    run = _audit(str(tmp_path / "missing.ipynb"))
    assert run.returncode == 2
    assert "neither an instructor notebook" in run.stderr

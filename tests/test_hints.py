"""Hints: a case's known wrong values, each with the message a student who returns it reads.

The student's ``check`` (visible cases), the grader's message (``judge_exercise``: the test
cell's output, the record and the feedback) and the release all carry them; a hidden case's
hint never shows its call or expected value.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest
from giveaways import hidden_giveaways
from support.submissions import perfect_submission

from autograder.course import RELEASE, assignments, instructor_notebook
from autograder.judge import judge_exercise
from autograder.notebook import read_notebook
from autograder.protocol import CaseOutcome, Report, Status
from autograder.record import load_record, write_autograded, write_record
from autograder.results import NotebookResult
from autograder.spec import (
    AssignmentSpec,
    GradedCheck,
    SpecError,
    load_spec,
    parse_cases,
    strip_hidden,
)
from lecture_utils.checks import Case, CheckFailed, check

FLOPS = Case("flops(1, 1)", 6.0, "2 forward + 4 backward",
             hints=((2.0, "forward pass only"), (4.0, "no weight gradients")))


def _failures(cases: list[Case], **functions) -> list[str]:
    with pytest.raises(CheckFailed) as raised:
        check(cases, dict(functions))
    return raised.value.failures


# --- the student's check ------------------------------------------------------------------------

def test_check_tells_the_hint_of_a_known_wrong_value_instead_of_the_comparison():
    """Kills: the hint ignored (the generic "expected 6" shown), the first hint told for the
    second's value, or the case's reason dropped."""
    assert _failures([FLOPS], flops=lambda n, d: 2 * n * d) == [
        "flops(1, 1) returned 2: forward pass only  [2 forward + 4 backward]"]
    assert _failures([FLOPS], flops=lambda n, d: 4 * n * d) == [
        "flops(1, 1) returned 4: no weight gradients  [2 forward + 4 backward]"]


def test_check_tells_the_comparison_for_a_value_no_hint_names():
    """Kills: a hint told for any wrong value, or for a value only near a known wrong one
    (outside the case's tolerance), or for an error."""
    assert _failures([FLOPS], flops=lambda n, d: 12 * n * d) == [
        "flops(1, 1) returned 12; expected 6 (2× too large)  [2 forward + 4 backward]"]
    assert _failures([FLOPS], flops=lambda n, d: 2.001 * n * d) == [
        "flops(1, 1) returned 2.001; expected 6  [2 forward + 4 backward]"]

    def broken(n, d):
        raise ValueError("2.0")

    assert _failures([FLOPS], flops=broken) == [
        "flops(1, 1) raised ValueError: 2.0  [2 forward + 4 backward]"]


def test_a_hint_matches_within_the_case_tolerance_and_passing_still_passes(capsys):
    loose = Case("f()", 1.0, rel=1e-3, hints=((0.5, "halved"),))
    assert _failures([loose], f=lambda: 0.5004) == ["f() returned 0.5004: halved"]
    check([loose], {"f": lambda: 1.0004})
    assert capsys.readouterr().out == "All 1 checks passed.\n"


def test_the_released_test_cell_tells_a_student_the_hint():
    """The test cell as students get it (notebooks/), run as the notebook runs it, with a
    forward-only training_flops. Kills: hints missing from the release, or check() in the
    notebook not using them."""
    assignment = "00_napkin_math"
    cell = next(c.source for c in read_notebook(RELEASE / assignment / f"{assignment}.ipynb").cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "test_training_flops")
    namespace = {"Case": Case, "check": check, "training_flops": lambda n, d: 2 * n * d}
    with pytest.raises(CheckFailed) as raised:
        exec(cell, namespace)  # noqa: S102 - the released cell, as the notebook runs it
    assert raised.value.failures[1] == ("training_flops(1, 1) returned 2: forward pass only  "
                                        "[6 FLOPs per parameter per token: 2 forward + 4 "
                                        "backward; 2 alone counts only the forward pass]")
    assert all(": forward pass only  [" in f for f in raised.value.failures)


# --- reading hints from a test cell -------------------------------------------------------------

CELL = '''check([
    Case("flops(1, 1)", 6.0, "2 forward + 4 backward",
         hints=((2.0, "forward pass only; 6.0 is 2 + 4"),)),
    ### BEGIN HIDDEN TESTS
    Case("flops(3, 7)", 126.0, "integer inputs",
         hints=((42.0, "forward pass only"), (84, "no weight gradients"))),
    Case("shape()", [512, 3], hints=(([3, 512], "rows and columns swapped: 3 before 2"),)),
    ### END HIDDEN TESTS
])'''


def test_hints_are_read_as_data_and_survive_the_release():
    """Kills: hints dropped by the parser, or lost from a visible case when the hidden ones
    are stripped (what ``python -m autograder release`` gives students)."""
    cases, hidden = parse_cases(CELL, "nb")
    assert hidden == (False, True, True)
    assert cases[0].hints == ((2.0, "forward pass only; 6.0 is 2 + 4"),)
    assert cases[1].hints == ((42.0, "forward pass only"), (84, "no weight gradients"))
    released, released_hidden = parse_cases(strip_hidden(CELL), "release")
    assert released == cases[:1] and released_hidden == (False,)
    assert "42.0" not in strip_hidden(CELL) and "swapped" not in strip_hidden(CELL)


@pytest.mark.parametrize(("hint", "problem"), [
    ('(126.0, "right after all")', "passes the case"),
    ('(126.00000000001, "within the tolerance")', "passes the case"),
    ('(42.0, "the answer is 126")', "shows '126'"),
    ('(42.0, "flops(3, 7) should be 6 times 21")', "shows 'flops"),
    ('(42.0, "126.0 expected")', "shows '126"),
    ('(42.0, "")', "pair"),
    ('(42.0,)', "pair"),
    ('(42.0, 7)', "pair"),
    ('(42.0, "forward only; or: counted twice")', "lists alternatives"),
])
def test_a_hint_that_never_shows_or_gives_a_hidden_value_away_is_rejected(hint, problem):
    """Kills: a hint whose value passes (its message could never be read), a hidden case's
    hint quoting its expected value or its call, reaching students, and a hint that lists
    several mistakes for one value."""
    source = ('check([Case("f()", 1, "x"),\n### BEGIN HIDDEN TESTS\n'
              f'Case("flops(3, 7)", 126.0, hints=({hint},)),\n### END HIDDEN TESTS\n])')
    with pytest.raises(SpecError, match=re.escape(problem)):
        parse_cases(source, "nb")


def test_hints_must_be_a_tuple_of_pairs():
    with pytest.raises(SpecError, match="must be a tuple"):
        parse_cases('check([Case("f()", 1, hints="2 means doubled")])', "nb")


def test_what_a_hidden_hint_may_say():
    """A hidden hint may use numbers that are not its expected value (12.6, 1260, 2126, the
    short items of an expected list), and a visible hint may quote its own expected value."""
    fine = ('check([Case("g()", 6, hints=((2, "6, not 2"),)),\n### BEGIN HIDDEN TESTS\n'
            'Case("flops(3, 7)", 126.0, hints=((42.0, "not 12.6, 1260 or 2126"),)),\n'
            'Case("shape()", [512, 3], hints=(([3, 512], "3 before 2"),)),\n'
            '### END HIDDEN TESTS\n])')
    assert len(parse_cases(fine, "nb")[0]) == 3
    with pytest.raises(SpecError, match="shows '512'"):
        parse_cases(fine.replace("3 before 2", "512 first"), "nb")


# --- the grader's message -----------------------------------------------------------------------

def _spec(source: str = CELL) -> AssignmentSpec:
    cases, hidden = parse_cases(source, "nb")
    return AssignmentSpec("nb", checks={"t": GradedCheck("t", 1.0, cases, hidden,
                                                         strip_hidden(source), {})})


def _message(values: list) -> str:
    outcomes = [CaseOutcome(value=v) for v in values]
    return judge_exercise(_spec(), "t", outcomes, Report(Status.OK)).message


def test_the_grader_tells_hints_for_visible_and_hidden_cases():
    """Kills: the grader's message without the hint (visible or hidden), a hidden case's hint
    told with its number missing or wrong, or the hint of a case that passed."""
    assert _message([2.0, 42.0, [3, 512]]) == (
        "3 of 3 checks failed:\n"
        "- flops(1, 1) returned 2: forward pass only; 6.0 is 2 + 4  [2 forward + 4 backward]\n"
        "- hidden check 1 failed: forward pass only  [integer inputs]\n"
        "- hidden check 2 failed: rows and columns swapped: 3 before 2")
    assert _message([6.0, 84, [512, 3]]) == (
        "1 of 3 checks failed:\n- hidden check 1 failed: no weight gradients  [integer inputs]")


def test_a_hidden_case_without_a_matching_hint_says_only_that_it_failed():
    """Kills: an error or an unhinted value on a hidden case told anything beyond its
    number and reason (the comparison would quote the expected value)."""
    outcomes = [CaseOutcome(value=6.0), CaseOutcome(error="raised ValueError: 42.0"),
                CaseOutcome(value=[1, 2])]
    message = judge_exercise(_spec(), "t", outcomes, Report(Status.OK)).message
    assert message == ("2 of 3 checks failed:\n- hidden check 1 failed  [integer inputs]\n"
                       "- hidden check 2 failed")


# --- the course's own hints ---------------------------------------------------------------------

@pytest.mark.parametrize("assignment", assignments())
def test_every_hint_of_the_course_is_told_and_gives_no_hidden_value_away(assignment):
    """Answering each hinted case with its hint's value: the grader tells that hint (a
    visible case with its call, a hidden one by its number) and no hidden call or expected
    value appears anywhere in the message. Kills: hints lost between the notebook and the
    grader, and a hidden hint or comparison leaking what it checks."""
    spec = load_spec(instructor_notebook(assignment))
    giveaways = hidden_giveaways(spec)
    for grade_id, check_ in spec.checks.items():
        numbers = [sum(check_.hidden[:i + 1]) for i in range(len(check_.cases))]
        for index, case in enumerate(check_.cases):
            for wrong, message in case.hints:
                values = [c.expect for c in check_.cases]
                values[index] = wrong
                result = judge_exercise(spec, grade_id, [CaseOutcome(value=v) for v in values],
                                        Report(Status.OK))
                told = (re.escape(f"hidden check {numbers[index]} failed: {message}")
                        if check_.hidden[index] else
                        f"{re.escape(case.call)} returned [^\n]*: {re.escape(message)}")
                assert re.search(f"^- {told}(  \\[|$)", result.message, re.M), result.message
                assert [g for g in giveaways if g in result.message] == [], (grade_id, index)


@pytest.mark.parametrize("assignment", assignments())
def test_the_release_keeps_every_visible_hint_and_no_hidden_one(assignment):
    """What students get (notebooks/, from ``python -m autograder release``): each visible
    case with its hints, no hidden case. Kills: a release that drops hints, or that leaves
    a hidden case's hint (its wrong value, its message) in a student's notebook."""
    spec = load_spec(instructor_notebook(assignment))
    released = {c.metadata["nbgrader"]["grade_id"]: c.source
                for c in read_notebook(RELEASE / assignment / f"{assignment}.ipynb").cells
                if c.metadata.get("nbgrader", {}).get("grade")}
    shown = 0
    for grade_id, check_ in spec.checks.items():
        cases, hidden = parse_cases(released[grade_id], grade_id)
        visible = [c for c, h in zip(check_.cases, check_.hidden) if not h]
        assert not any(hidden) and [c.hints for c in cases] == [c.hints for c in visible]
        shown += sum(len(c.hints) for c in cases)
    assert shown > 0  # every notebook has hints seeded from tests/answers


# --- the feedback a student reads after grading -------------------------------------------------

def test_the_feedback_and_the_record_tell_the_hint_and_keep_hidden_values_out(tmp_path):
    """The autograded notebook (formgrader's page and nbgrader's feedback) shows each test
    cell's message as its output, and the grade record keeps it: a student who forgot the
    backward pass reads the hints there. Kills: the hint lost on the way from the judge to
    the page or the record, and a hidden value reaching either."""
    assignment = "00_napkin_math"
    spec = load_spec(instructor_notebook(assignment))
    forward_only = {  # what training_flops = 2·N·D returns on each case
        g: [c.hints[0][0] if c.hints and g == "test_training_flops" else c.expect
            for c in check_.cases] for g, check_ in spec.checks.items()}
    tests = [judge_exercise(spec, g, [CaseOutcome(value=v) for v in values], Report(Status.OK))
             for g, values in forward_only.items()]
    folder = tmp_path / "submitted" / "ada" / assignment
    folder.mkdir(parents=True)
    submitted = folder / f"{assignment}.ipynb"
    submitted.write_text(nbformat.writes(perfect_submission(assignment)), encoding="utf-8")
    result = NotebookResult(notebook=str(submitted), assignment=assignment, tests=tests,
                            student="ada")
    target = tmp_path / "autograded" / "ada" / assignment / f"{assignment}.ipynb"
    write_autograded(target, submitted, result, spec)
    output = next(c for c in nbformat.read(target, as_version=4).cells
                  if c.metadata.get("nbgrader", {}).get("grade_id") == "test_training_flops"
                  ).outputs[0]
    record = tmp_path / "ada.json"
    write_record(record, result, spec.fingerprint)
    saved = next(t for t in load_record(record)["tests"]
                 if t["grade_id"] == "test_training_flops")["message"]
    giveaways = hidden_giveaways(spec)
    for shown in (output.evalue, "\n".join(output.traceback), saved):
        assert "- training_flops(1, 1) returned 2: forward pass only  [" in shown
        assert "- hidden check 1 failed: forward pass only  [integer inputs" in shown
        assert "expected" not in shown  # every failure here is a known one: no comparison
        assert [g for g in giveaways if g in shown] == []


# --- scripts/seed_hints.py ----------------------------------------------------------------------

def _seed_hints():
    """The script as a module (scripts/ is not a package)."""
    if "seed_hints" not in sys.modules:
        loader = importlib.util.spec_from_file_location(
            "seed_hints", Path(__file__).parent.parent / "scripts" / "seed_hints.py")
        module = importlib.util.module_from_spec(loader)
        sys.modules["seed_hints"] = module  # dataclasses look their module up there
        loader.loader.exec_module(module)
    return sys.modules["seed_hints"]


def test_each_wrong_answer_is_named_by_the_comment_above_it(tmp_path):
    answers = tmp_path / "nb.py"
    answers.write_text('''WRONG: dict[str, list[str]] = {
    "f": [
        # forward pass only:
        # the backward is missing
        "def f(n):\\n    return 2 * n\\n",
        "def f(n):\\n    return 0\\n",
        # hours, not days
        _HEAD + "    return 1\\n",
    ],
}
RIGHT = {"f": [
    # not a wrong answer
    "def f(n):\\n    return 6 * n\\n"]}
''')
    assert _seed_hints().answer_comments(answers) == {
        "f": ["forward pass only: the backward is missing", "", "hours, not days"]}


SEED_CELL = '''check([
    Case("f(1)", 6.0, "6 × n"),
    Case("g()", [1, 2],
         hints=(([2, 1], "reversed"),)),
    ### BEGIN HIDDEN TESTS
    Case("f(7)", 42.0, "seven"),
    Case("ok()", True),
    ### END HIDDEN TESTS
])'''


def _graded(wrong: list[list], right: list[list]):
    seed = _seed_hints()
    return [seed.GradedAnswers("f", "t", [[CaseOutcome(value=v) for v in answer]
                                          for answer in wrong],
                               [[CaseOutcome(value=v) for v in answer] for answer in right])]


def test_hints_are_collected_one_per_distinct_wrong_value():
    """Kills: a hint per answer rather than per value (two answers with one value give no
    hint, and a note to write one by hand: a hint names one mistake), a passing value, a
    lone bool, a value a right answer also gives, a value an existing hint covers, or a
    hidden hint that shows its expected value becoming a hint."""
    seed = _seed_hints()
    spec = _spec(SEED_CELL)
    wrong = [[2.0, [1, 2], 14.0, False],  # forward only
             [2.0000000000001, [2, 1], 14.0, False],  # the same value, another comment
             [4.0, [3, 3], 42.5, True],  # only on f(1) and g(): 42.5 would name 42
             [7.0, [1, 2], 42.0, True]]  # a value a right answer gives too
    right = [[6.0, [1, 2], 42.0, True], [7.0, [1, 2], 42.0, True]]
    comments = {"f": ["forward pass only", "counted 2 per token", "no 42 here", "odd"]}
    hints, notes = seed.collect_hints(spec, _graded(wrong, right), comments)
    assert [(h.test, h.index, h.hidden, h.value, h.message) for h in hints] == [
        ("t", 0, False, 4.0, "no 42 here"),
        ("t", 1, False, [3, 3], "no 42 here")]
    # two mistakes, one value: no list of alternatives; the author writes one message
    shared = [n for n in notes if "returned by 2 WRONG answers" in n]
    assert [n.split(":")[0] for n in shared] == ["t case 0", "t case 2"]
    assert all("forward pass only | counted 2 per token" in n for n in shared)
    assert any("7.0 is also a right answer's value" in n for n in notes)
    assert any("shows '42'" in n for n in notes)
    # answers added by code have no comment to read: nothing is guessed for any of them
    hints, notes = seed.collect_hints(spec, _graded(wrong, right), {"f": comments["f"][:3]})
    assert hints == [] and notes == ["t: 4 WRONG answers graded but 3 found written out in "
                                     "the answers file"]


def test_no_hint_is_seeded_for_a_float_in_an_integer_case():
    """Kills: seeding a hint that can never show (a float never matches a hint of an
    ``integer=True`` case: the integer check's own message tells that slip)."""
    seed = _seed_hints()
    spec = _spec('check([Case("f(1)", 6, "6 × n", integer=True)])')
    hints, notes = seed.collect_hints(spec, _graded([[6.0], [12]], [[6]]),
                                      {"f": ["float division", "doubled"]})
    assert [(h.value, h.message) for h in hints] == [(12, "doubled")] and notes == []


def test_hints_are_written_into_the_cell_and_read_back_as_data():
    """Kills: hints added to the wrong case (counting cases in another order than the
    spec does), an existing hint lost when another is added, columns counted in bytes
    (the × before), lines past 100 characters, or a cell that no longer parses."""
    seed = _seed_hints()
    long = ("a long explanation of the slip, " * 5).strip()
    source = seed.with_hints(SEED_CELL, {0: [(2.0, "forward pass only"), (1.6e11, long)],
                                         1: [([3, 3], "doubled")], 2: [(14.0, "seven × 2")]})
    cases, hidden = parse_cases(source, "written")
    assert hidden == (False, False, True, True)
    assert [c.hints for c in cases] == [
        ((2.0, "forward pass only"), (1.6e11, long)),
        (([2, 1], "reversed"), ([3, 3], "doubled")),
        ((14.0, "seven × 2"),), ()]
    assert [c.call for c in cases] == ["f(1)", "g()", "f(7)", "ok()"]
    assert max(len(line) for line in source.splitlines()) <= 100
    assert "1.6e11" in source and '"6 × n",\n         hints=((2.0, ' in source

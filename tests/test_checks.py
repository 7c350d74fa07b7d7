import math
import pickle
import re

import nbformat
import numpy as np
import pytest
import torch
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from lecture_utils.checks import (
    CASE_ERRORS,
    TIMED_OUT,
    Case,
    CheckFailed,
    Outcome,
    check,
    evaluate,
    failure_report,
    hint_for,
    judge,
    localized_error,
    to_plain,
)
from lecture_utils.i18n import use_language

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _namespace(**functions):
    return {"torch": torch, **functions}


def test_plain_values():
    assert to_plain(np.int64(3)) == 3 and type(to_plain(np.int64(3))) is int
    assert to_plain(np.float32(0.5)) == 0.5
    assert to_plain(np.bool_(True)) is True
    assert to_plain(torch.tensor(7)) == 7
    assert to_plain(torch.Size([2, 3])) == [2, 3]
    assert to_plain((1, (2, 3))) == [1, [2, 3]]
    assert to_plain(torch.float32) == "torch.float32"
    assert to_plain({"a": torch.tensor([1.0, 2.0])}) == {"a": [1.0, 2.0]}


def test_correct_answers_written_differently_all_pass():
    ways = [
        lambda x: x.numel() * x.element_size(),
        lambda x: x.nelement() * x.element_size(),
        lambda x: x.nbytes,
        lambda x: torch.tensor(x.numel() * x.element_size()),  # a 0-d tensor is fine
        lambda x: float(x.numel() * x.element_size()),  # so is an integral float
        lambda x: np.int64(x.numel() * x.element_size()),
    ]
    for way in ways:
        check([Case("f(torch.zeros(4, 8))", 128)], _namespace(f=way))


def test_failure_lists_every_failed_case_with_its_reason():
    namespace = _namespace(f=lambda n, d: 2 * n * d)
    with pytest.raises(AssertionError) as raised:
        check([Case("f(70e9, 15e12)", 6.3e24, "the lecture's run"),
               Case("f(1, 1)", 6, "six per parameter per token"),
               Case("f(0, 5)", 0)], namespace)
    text = str(raised.value)
    assert text.startswith("2 of 3 checks failed:")
    assert "f(70e9, 15e12) returned 2.1e+24; expected 6.3e+24 (3× too small)" in text
    assert "[the lecture's run]" in text
    assert "f(1, 1) returned 2; expected 6 (3× too small)  [six per parameter per token]" in text


def test_telltale_factor_for_bits_versus_bytes():
    message = judge(Case("f()", 128), Outcome(value=1024))
    assert message == "f() returned 1024; expected 128 (8× too large)"


def test_not_implemented_and_errors_are_reported_not_raised():
    def stub(*_):
        raise NotImplementedError()

    assert "is not implemented yet" in judge(Case("f()", 1), evaluate(Case("f()", 1),
                                                                     _namespace(f=stub)))
    outcome = evaluate(Case("f()", 1), _namespace(f=lambda: 1 / 0))
    assert outcome.error == "raised ZeroDivisionError: division by zero"
    assert "NameError" in evaluate(Case("missing()", 1), _namespace()).error


def test_bool_expectations_reject_integers_and_vice_versa():
    assert judge(Case("f()", True), Outcome(value=1)) is not None
    assert judge(Case("f()", True), Outcome(value=True)) is None
    assert judge(Case("f()", 1), Outcome(value=True)) is not None


def test_tolerances():
    assert judge(Case("f()", 143.9, rel=1e-3), Outcome(value=143.88)) is None
    assert judge(Case("f()", 143.9), Outcome(value=143.88)) is not None
    assert judge(Case("f()", 0.0, abs=1e-12), Outcome(value=1e-13)) is None
    assert judge(Case("f()", float("nan")), Outcome(value=float("nan"))) is None


def test_sequences_compare_item_by_item():
    assert judge(Case("f()", [4, 1]), Outcome(value=[4, 1])) is None
    assert "item 1: returned 2; expected 1" in judge(Case("f()", (4, 1)), Outcome(value=[4, 2]))
    assert "expected 2 items" in judge(Case("f()", (4, 1)), Outcome(value=[4, 1, 1]))


def test_unplain_results_are_explained():
    outcome = evaluate(Case("f()", 1), _namespace(f=lambda: object()))
    assert outcome.error == "returned a object, which the checks cannot compare"


def test_passing_prints_a_summary(capsys):
    check([Case("1 + 1", 2)], {})
    assert capsys.readouterr().out == "All 1 checks passed.\n"


def test_check_defaults_to_the_callers_globals():
    global helper_for_this_test

    def helper_for_this_test():
        return 5

    check([Case("helper_for_this_test()", 5)])


# --- how a failed check shows ------------------------------------------------------------------

FAILING = [Case("f(1)", 2, "doubling"), Case("f(2)", 4), Case("f(3)", 3)]
FAILURES = ["f(1) returned 1; expected 2 (2× too small)  [doubling]",
            "f(2) returned 2; expected 4 (2× too small)"]


def test_failed_check_is_an_assertion_error_carrying_the_whole_report():
    with pytest.raises(AssertionError) as raised:  # what nbgrader, pytest and asserts expect
        check(FAILING, _namespace(f=lambda x: x))
    error = raised.value
    assert type(error) is CheckFailed
    assert str(error) == failure_report(FAILURES, 3)
    assert (error.failures, error.total) == (FAILURES, 3)
    copied = pickle.loads(pickle.dumps(error))
    assert (type(copied), str(copied), copied.failures) == (CheckFailed, str(error), FAILURES)


def test_failed_check_renders_as_its_failure_list():
    error = CheckFailed(FAILURES, 3)
    lines = error._render_traceback_()
    assert lines[0] == "\x1b[0;31mCheckFailed: 2 of 3 checks failed:\x1b[0m"
    assert [_ANSI.sub("", line) for line in lines] == [
        "CheckFailed: 2 of 3 checks failed:",
        "- f(1) returned 1; expected 2 (2× too small)  [doubling]",
        "- f(2) returned 2; expected 4 (2× too small)",
    ]


@pytest.mark.slow
def test_a_kernel_shows_the_failure_list_without_the_checkers_frames(tmp_path):
    notebook = new_notebook(cells=[
        new_code_cell("from lecture_utils.checks import Case, check\n"
                      "def f(x):\n    return x"),
        new_code_cell('check([Case("f(1)", 2, "doubling"), Case("f(2)", 4), Case("f(3)", 3)])'),
        # Control: an error raised inside checks.py by other means names the file, so the
        # assertion below would notice the checker's frames if they were shown.
        new_code_cell("check(None)"),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                       "display_name": "Python 3"}
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    def error(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
        [output] = [o for o in cell.outputs if o.output_type == "error"]
        return output

    failed, control = error(notebook.cells[1]), error(notebook.cells[2])
    shown = _ANSI.sub("", "\n".join(failed.traceback))
    assert shown == "\n".join(["CheckFailed: 2 of 3 checks failed:",
                               *(f"- {line}" for line in FAILURES)])
    assert "checks.py" not in shown
    assert (failed.ename, failed.evalue) == ("CheckFailed", failure_report(FAILURES, 3))
    assert control.ename == "TypeError"
    assert "checks.py" in _ANSI.sub("", "\n".join(control.traceback))


# --- comparisons a broken grader would get wrong ------------------------------------------------
# Each test names the mutants of lecture_utils/checks.py it kills; tests/test_grader_mutants.py
# says how to plant one in a copy and run a test against it.


def test_default_tolerance_rejects_a_small_slip_and_accepts_float32():
    """Kills: ``DEFAULT_REL = 1e-4`` (or any default above ~1e-5): a result off by 10 ppm, e.g.
    a rounded constant, would pass a case written without an explicit ``rel``; and a default
    below float32's rounding (1e-9 once), which failed right answers computed in float32."""
    assert judge(Case("f()", 6.3e24), Outcome(value=6.3e24 * (1 + 1e-5))) is not None
    assert judge(Case("f()", 143.9265938), Outcome(value=143.93)) is not None
    assert judge(Case("f()", 0.5), Outcome(value=round(0.5123, 2))) is not None
    # float noise from another formula order still passes
    assert judge(Case("f()", 6.3e24), Outcome(value=6 * 70e9 * 15e12)) is None
    assert judge(Case("f()", 0.1 + 0.2), Outcome(value=0.3)) is None
    # and so does the same formula in float32 (the two answers a review found scored 0)
    mfu32 = float(torch.tensor(53.6e12) / 1.0 / 67e12)
    assert mfu32 != 0.8 and judge(Case("f()", 0.8), Outcome(value=mfu32)) is None
    intensity32 = (torch.tensor(2 * 1024**3) / torch.tensor(3 * 1024**2 * 2)).item()
    assert judge(Case("f()", 2 * 1024**3 / (3 * 1024**2 * 2)),
                 Outcome(value=intensity32)) is None


def test_an_integer_expected_value_is_exact_unless_the_case_gives_a_tolerance():
    """Kills: ints judged at the float tolerance (``int(2.0 * m * k * n)`` is off by 22 at
    3**39 and passed), ``exact=True`` ignored for floats, and the sign of zero lost."""
    true_count = 2 * 3**39
    rounded = int(2.0 * 3**13 * 3**13 * 3**13)
    assert rounded != true_count
    message = judge(Case("f()", true_count), Outcome(value=rounded))
    assert message == (f"f() returned {rounded}; expected exactly {true_count} "
                       "(this result must be exact: rounded through a float?)")
    assert judge(Case("f()", 1_000_000), Outcome(value=1_000_001)) is not None
    assert judge(Case("f()", 128), Outcome(value=128.0)) is None  # equal in value
    assert judge(Case("f()", [4, 1]), Outcome(value=[4, 1.0])) is None
    assert judge(Case("f()", [4, 1]), Outcome(value=[4, 1 + 1e-9])) is not None
    # a tolerance the case gives wins over exactness
    assert judge(Case("f()", 1000, rel=0.01), Outcome(value=1005)) is None
    assert judge(Case("f()", 1000, exact=False), Outcome(value=1000.0001)) is None
    # a float made exact: no rounding, and -0.0 is not 0.0
    assert judge(Case("f()", 0.1, exact=True), Outcome(value=0.1 + 1e-18)) is None  # same float
    assert judge(Case("f()", 0.1, exact=True), Outcome(value=0.10000000000000002)) == (
        "f() returned 0.10000000000000002; expected exactly 0.1 (this result must be exact: "
        "rounded through a float?)")
    assert judge(Case("f()", -0.0, exact=True), Outcome(value=-0.0)) is None
    assert judge(Case("f()", -0.0, exact=True), Outcome(value=0.0)) == (
        "f() returned 0; expected exactly -0: the sign of zero counts here")
    assert judge(Case("f()", -0.0), Outcome(value=0.0)) is None  # not exact: equal


def test_an_integer_case_takes_any_whole_number_type_and_no_float():
    """Kills: ``integer=True`` ignored (a float byte count passing), or judged on the raw
    value's type (``isinstance(x, int)`` in a case's call failed NumPy ints and 0-d integer
    tensors, which are right answers)."""
    import numpy as np

    case = Case("f()", 48, integer=True)
    for right in (48, np.int64(48), torch.tensor(48), np.int32(48)):
        assert judge(case, evaluate(case, {"f": lambda r=right: r})) is None, right
    message = judge(case, evaluate(case, {"f": lambda: 48.0}))
    assert message == ("f() returned 48.0, a float; expected an int, 48: a count or a size is "
                       "a whole number, so keep its arithmetic in integers")
    assert judge(case, evaluate(case, {"f": lambda: torch.tensor(48.0)})) is not None
    strides = Case("f()", [3, 1], integer=True)
    assert judge(strides, evaluate(strides, {"f": lambda: (3, 1)})) is None
    assert judge(strides, evaluate(strides, {"f": lambda: torch.tensor([3, 1])})) is None
    assert "item 1: " in judge(strides, evaluate(strides, {"f": lambda: [3, 1.0]}))


def test_a_mismatch_shows_the_digits_where_the_values_differ():
    """Kills: values printed with a fixed 6 digits (``returned 0.8; expected 0.8``)."""
    assert judge(Case("f()", 0.8, rel=1e-12), Outcome(value=0.800000011920929)) == (
        "f() returned 0.80000001; expected 0.8")
    assert judge(Case("f()", 341.3333333333333, rel=1e-12), Outcome(value=341.33334)) == (
        "f() returned 341.33334; expected 341.33333")


def test_a_result_of_another_type_is_told_what_to_return():
    """Kills: NumPy arrays reaching ``ndarray.item()`` inside the checker (a ValueError the
    student never raised), and a one-element tensor where a number is asked for compared
    without saying what to return."""
    import numpy as np

    case = Case("f()", [[1, 2], [3, 4]])
    assert evaluate(case, {"f": lambda: np.array([[1, 2], [3, 4]])}) == Outcome(
        value=[[1, 2], [3, 4]])
    assert judge(case, evaluate(case, {"f": lambda: np.array([[1, 2], [3, 4]])})) is None
    assert evaluate(Case("f()", "torch.int64"), {"f": lambda: np.dtype("int64")}) == Outcome(
        value="int64")
    for scalar in (np.float32(0.5), np.int64(3), torch.tensor(0.5), np.bool_(True)):
        assert evaluate(Case("f()", 1), {"f": lambda s=scalar: s}).error is None, scalar
    message = judge(Case("f()", 0.8), Outcome(value=[0.8]))
    assert message == ("f() returned [0.8], a list or tensor; expected one number, 0.8: "
                       "return a Python number (float(x), int(x) or x.item())")


def test_nan_expectation_accepts_only_nan():
    """Kills: ``if math.isnan(expect): return None`` (a nan case passed by any number)."""
    nan = float("nan")
    for got in (0.0, 1.0, -1.0, float("inf"), 1e300, 7):
        message = judge(Case("f()", nan), Outcome(value=got))
        assert message is not None and "expected nan" in message, got
    assert judge(Case("f()", [1.0, nan]), Outcome(value=[1.0, 2.0])) is not None
    assert judge(Case("f()", [1.0, nan]), Outcome(value=[1.0, nan])) is None
    assert judge(Case("f()", 1.0), Outcome(value=nan)) is not None  # nor nan a number


def test_tensors_keep_their_shape():
    """Kills: ``to_plain`` flattening tensors (``.flatten().tolist()``) or reducing them
    (``.sum().item()``): a transposed or reshaped result would then pass."""
    assert to_plain(torch.tensor([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    assert to_plain(torch.arange(8).reshape(2, 2, 2)) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    assert to_plain(torch.zeros(2, 0)) == [[], []]
    assert to_plain((torch.ones(1, 2), torch.tensor(3))) == [[[1.0, 1.0]], 3]
    case = Case("f()", [[1, 2], [3, 4]])
    assert judge(case, evaluate(case, {"f": lambda: torch.tensor([[1, 2], [3, 4]])})) is None
    for wrong in (torch.tensor([[1, 3], [2, 4]]), torch.tensor([1, 2, 3, 4]),
                  torch.tensor([[4, 3], [2, 1]])):
        assert judge(case, evaluate(case, {"f": lambda w=wrong: w})) is not None, wrong


# --- what a failure says, value by value ----------------------------------------------------------

def _says(got, expect) -> str | None:
    return judge(Case("f()", expect), Outcome(value=got))


@pytest.mark.parametrize("got, expect, message", [
    (1, True, "f() returned 1 (int); expected a bool, True"),
    ("x", 2, "f() returned 'x'; expected a number, 2"),
    (2.5, "2.5", "f() returned 2.5; expected '2.5'"),
    (3.0, float("nan"), "f() returned 3; expected nan"),
    ([1], [1, 2], "f() returned [1]; expected 2 items: [1, 2]"),
    ("a", "b", "f() returned 'a'; expected 'b'"),
    (2**99, 3, "f() returned 633825300114114700748351602688; expected 3"),
    (2**101, 3, "f() returned an integer of about 31 digits; expected 3"),
    (10**400, 3, "f() returned an integer of about 401 digits; expected 3"),
    (10**400, 1.5, "f() returned an integer of about 401 digits; expected 1.5"),
    (-(10**400), 1.5, "f() returned an integer of about 401 digits; expected 1.5"),
    (10**400, float("nan"), "f() returned an integer of about 401 digits; expected nan"),
    (6.0, 2.0, "f() returned 6; expected 2 (3× too large)"),
    (6.0 * (1 + 1e-7), 2.0, "f() returned 6; expected 2 (3× too large)"),
    (2.0, 2000.0, "f() returned 2; expected 2000 (1000× too small)"),
    (6.1, 2.0, "f() returned 6.1; expected 2"),
    (0.0, 2.0, "f() returned 0; expected 2"),
    (2.0, 0.0, "f() returned 2; expected 0"),
    (-6.0, 2.0, "f() returned -6; expected 2"),
])
def test_a_wrong_value_is_described_exactly(got, expect, message) -> None:
    """Kills: a message that misdescribes the value (its type, its size, its digits), a wrong
    or missing factor hint (or one for a ratio that is not a telltale factor), and an integer
    too large for a float crashing the check (``_as_float``'s ``copysign`` overflowed: a
    real bug, fixed) instead of failing it."""
    assert _says(got, expect) == message


def test_huge_integers_against_floats_fail_by_sign_without_crashing() -> None:
    """Kills: a huge integer compared with a float taken as matching it, or raising."""
    assert _says(10**400, math.inf) is None  # as large as a float gets, with its sign
    assert _says(-(10**400), -math.inf) is None
    assert _says(-(10**400), math.inf) is not None
    assert _says(10**400, 10**400) is None  # exact, however large (isnan overflowed too)


def test_an_unfinished_exercise_says_it_is_not_implemented_yet() -> None:
    """Kills: the explanation a student sees for an unfinished exercise changed."""

    def unfinished():
        raise NotImplementedError

    assert evaluate(Case("f()", 1), {"f": unfinished}) == Outcome(
        error="is not implemented yet (it raised NotImplementedError)")


def test_hint_for_matches_a_known_wrong_value_within_the_case_tolerance():
    case = Case("flops(2, 3, 4)", 48.0, "2mkn",
                hints=((24, "forgot the factor of 2"), ([1, 2], "a list")))
    assert hint_for(case, 24) == "forgot the factor of 2"
    assert hint_for(case, 24 * (1 + 1e-7)) == "forgot the factor of 2"
    assert hint_for(case, 24 * (1 + 1e-5)) is None
    assert hint_for(case, [1, 2]) == "a list"
    assert hint_for(case, 48) is None
    assert hint_for(Case("f()", 1), 24) is None
    # an exact case matches its hints exactly too
    exact = Case("f()", 48, hints=((24, "forgot the factor of 2"),))
    assert hint_for(exact, 24.0) == "forgot the factor of 2"
    assert hint_for(exact, 24 * (1 + 1e-7)) is None


# Every error text a case can come back with: ``evaluate`` here, or the sandbox's child
# (autograder/sandbox/child.py: a timeout, a skipped case, a value too large or not sendable,
# an exception that escaped evaluate), each with the English it has always had and the values
# (names, the student's own text) that stay as they are in any language.
CASE_ERROR_FORMS = [
    ("is not implemented yet (it raised NotImplementedError)", "NotImplementedError"),
    ("returned a Linear, which the checks cannot compare", "Linear"),
    ("raised ZeroDivisionError: division by zero", "ZeroDivisionError division by zero"),
    ("raised KeyError: ", "KeyError"),  # evaluate: an exception with an empty message
    ("raised KeyboardInterrupt", "KeyboardInterrupt"),  # child: escaped, no message
    ("raised ValueError: line one\nline two", "ValueError line one line two"),
    ("timed out after 10 s", ""),
    ("timed out after 0.5 s", ""),
    ("skipped: an earlier check of this exercise timed out", ""),
    ("returned a value too large to grade", ""),
    ("returned a value that cannot be sent back (ValueError: Out of range float values are "
     "not JSON compliant)", "ValueError Out of range float values are not JSON compliant"),
]


@pytest.mark.parametrize(("english", "values"), CASE_ERROR_FORMS)
def test_every_case_error_is_shown_in_the_readers_language(english: str, values: str) -> None:
    case = Case("f(2)", 4, "the reason")
    with use_language("en"):
        assert localized_error(english) == english
        assert judge(case, Outcome(error=english)) == f"f(2) {english}  [the reason]"
    with use_language("zh-CN"):
        chinese = localized_error(english)
        shown = judge(case, Outcome(error=english))
    assert chinese != english and re.search(r"[\u4e00-\u9fff]", chinese)
    # no English word is left but the values the text carries
    assert set(re.findall(r"[A-Za-z]+", chinese)) <= set(values.split())
    assert shown.startswith("f(2) " + chinese)


def test_the_child_and_evaluate_make_their_errors_from_the_named_templates() -> None:
    from autograder.sandbox.child import _raised

    assert _raised(KeyboardInterrupt()) == "raised KeyboardInterrupt"
    assert _raised(ValueError("bad: worse")) == "raised ValueError: bad: worse"
    assert TIMED_OUT.format(seconds="10") == "timed out after 10 s"
    assert evaluate(Case("{}[1]", None), {}).error == "raised KeyError: 1"
    assert evaluate(Case("torch.nn.Linear(1, 1)", None), _namespace()).error == \
        "returned a Linear, which the checks cannot compare"
    every = [english for english, _ in CASE_ERROR_FORMS]
    for template in CASE_ERRORS:  # each template has a form above, so each is tested
        assert any(_parses_as(template, english) for english in every), template


def _parses_as(template: str, english: str) -> bool:
    literal = re.split(r"\{\w+\}", template)
    return english.startswith(literal[0]) and english.endswith(literal[-1]) and \
        all(piece in english for piece in literal)


def test_an_error_that_fits_no_template_is_shown_as_it_is() -> None:
    odd = "raised a b: c"  # an exception class the student named "a b"
    with use_language("zh-CN"):
        assert localized_error(odd) == odd

"""Records keep each case's verdict and the student's wrong value (bounded), never an expected
value; records written before cases were kept still load."""

from __future__ import annotations

import json
import math
import time

import pytest

import autograder.judge
from autograder.judge import judge_exercise
from autograder.protocol import CaseOutcome, Report, Status
from autograder.record import load_record, write_record
from autograder.results import (
    CUT,
    VALUE_CHARS,
    CaseResult,
    NotebookResult,
    TestResult,
    cases_of,
    read_value,
    short_value,
)
from autograder.spec import AssignmentSpec, GradedCheck, parse_cases, strip_hidden

SOURCE = '''check([
    Case("f(1)", 2, "doubles"),
    ### BEGIN HIDDEN TESTS
    Case("f(0.5)", 424242.5, "halves"),
    Case("g('x')", "hidden-answer-string"),
    Case("h()", [31337, 27182]),
    ### END HIDDEN TESTS
])'''
SECRETS = ["424242", "hidden-answer-string", "31337", "27182", "f(0.5)", "g('x')", "h()"]
RIGHT = [2, 424242.5, "hidden-answer-string", [31337, 27182]]


@pytest.fixture
def spec() -> AssignmentSpec:
    cases, hidden = parse_cases(SOURCE, "t")
    return AssignmentSpec("a", checks={"t": GradedCheck("t", 1.0, cases, hidden,
                                                        strip_hidden(SOURCE), {})})


def _values(*values: object) -> list[CaseOutcome]:
    return [CaseOutcome(value=v) for v in values]


def test_each_case_keeps_its_verdict_and_only_a_wrong_value(spec):
    result = judge_exercise(spec, "t", _values(3, RIGHT[1], "nope", [1, 2]), Report())
    assert result.cases == [
        CaseResult(0, False, False, "failed", "3"),
        CaseResult(1, True, True, "passed", None),  # right: its value would be the answer
        CaseResult(2, True, False, "failed", "'nope'"),
        CaseResult(3, True, False, "failed", "[1, 2]"),
    ]


def test_no_record_of_any_verdict_holds_a_hidden_call_or_expected_value(spec, tmp_path):
    """Right, wrong, raised and cut-off answers, through the JSON a record is written as."""
    runs = [_values(*RIGHT), _values(0, 0, 0, 0), _values(*RIGHT[:1], 1.0, "x", [1, 27]),
            [CaseOutcome(error="raised ValueError: own-error-text")] * 4,
            _values(*RIGHT[:2])]
    tests = [judge_exercise(spec, "t", outcomes, Report()) for outcomes in runs]
    assert [len(t.cases) for t in tests] == [4, 4, 4, 4, 0]  # the last never finished
    result = NotebookResult("n.ipynb", "a", tests)
    write_record(tmp_path / "r.json", result, "fp")
    text = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert [s for s in SECRETS if s in text] == []
    # an error's text is the student's own; the visible message quotes it, the cases do not
    cases = [test["cases"] for test in json.loads(text)["tests"]]
    assert "own-error-text" in text and "own-error-text" not in json.dumps(cases)
    assert json.loads(text)["tests"][2]["cases"][3]["value"] == "[1, 27]"


def test_errors_timeouts_and_uncomparable_values_keep_no_value(spec, monkeypatch):
    outcomes = [CaseOutcome(error="raised ZeroDivisionError: division by zero"),
                CaseOutcome(error="timed out", timeout=True),
                CaseOutcome(error="MemoryError", oom=True), CaseOutcome(value=5)]
    result = judge_exercise(spec, "t", outcomes, Report())
    assert [(c.status, c.value) for c in result.cases] == [
        ("error", None), ("timeout", None), ("out of memory", None), ("failed", "5")]
    real = autograder.judge.judge

    def comparison_raises(case, outcome):
        if case.call == "f(1)":
            raise OverflowError("int too large")
        return real(case, outcome)

    monkeypatch.setattr(autograder.judge, "judge", comparison_raises)
    odd = judge_exercise(spec, "t", _values(10**30, *RIGHT[1:]), Report())
    assert odd.cases[0] == CaseResult(0, False, False, "not comparable", str(10**30))


DEEP: list = []
for _ in range(10_000):
    DEEP = [DEEP]


@pytest.mark.parametrize("value", [
    10**100_000,  # str() of it raises
    10**400,
    "x" * 5_000_000,
    DEEP,
    [list(range(1000))] * 1000,
    {str(i): i for i in range(10_000)},
    "<script>alert(1)</script>" * 10,
], ids=["long-int", "big-int", "huge-string", "deep-list", "wide-list", "wide-dict", "markup"])
def test_a_hostile_value_is_kept_short_quickly_and_never_reads_back(value):
    started = time.perf_counter()
    text = short_value(value)
    assert time.perf_counter() - started < 0.5
    assert 0 < len(text) <= VALUE_CHARS and text.endswith(CUT)
    with pytest.raises(ValueError):
        read_value(text)


@pytest.mark.parametrize("value", [
    0, -3, 2.5, -1e-300, 6.3e24, True, None, "", "it's \"quoted\"", [1, [2.0, "x"]],
    {"a": [1, None]}, 2**150, "x" * 70,
])
def test_a_short_value_is_its_whole_repr_and_reads_back_exactly(value):
    text = short_value(value)
    assert text == repr(value)
    assert read_value(text) == value and type(read_value(text)) is type(value)


def test_floats_without_a_literal_and_invisible_characters():
    assert short_value(math.inf) == "inf" and read_value("-inf") == -math.inf
    assert math.isnan(read_value(short_value(math.nan)))
    assert read_value(short_value([1.0, math.inf])) == [1.0, math.inf]
    # control and bidi characters are escaped: the text shows what the value holds
    assert short_value("a\u202eb\x1b[31m\n") == "'a\\u202eb\\x1b[31m\\n'"
    for text in ["__import__('os')", "f(1)", "[...]", "x", "1 +", "{1, 2}", "-'a'"]:
        with pytest.raises(ValueError):
            read_value(text)


def test_records_written_before_cases_were_kept_still_load(tmp_path):
    old = {"grade_id": "t", "points": 1.0, "max_points": 1.0, "status": "passed",
           "message": "All 4 checks passed."}
    assert cases_of(old) == []
    assert cases_of({**old, "cases": "edited by hand"}) == []
    mixed = [{"index": 0, "hidden": False, "passed": False, "status": "failed", "value": "3"},
             {"index": True, "hidden": False, "passed": True, "status": "passed"},
             {"index": 1, "hidden": "no", "passed": True, "status": "passed"},
             {"index": 2, "hidden": True, "passed": False, "status": "failed", "value": 3},
             "not a case"]
    assert cases_of({**old, "cases": mixed}) == [CaseResult(0, False, False, "failed", "3")]
    long = {"index": 0, "hidden": False, "passed": False, "status": "failed", "value": "9" * 500}
    assert cases_of({**old, "cases": [long]})[0].value == "9" * (VALUE_CHARS - 1) + CUT
    # a record round-trips with its cases
    test = TestResult("t", 0.0, 1.0, Status.FAILED, "x", [CaseResult(0, False, False,
                                                                     "failed", "3")])
    write_record(tmp_path / "r.json", NotebookResult("n", "a", [test]), "fp")
    assert cases_of(load_record(tmp_path / "r.json")["tests"][0]) == test.cases

"""What a class's grade records say, as numbers: per exercise, per check case, per wrong value.

- ``read_records`` loads ``grades/<assignment>/*.json`` (the ones ``grade`` wrote; a record
  from before cases were kept counts for the exercise scores only);
- ``question_stats``: per exercise n, mean, median, SD (of this class: the population
  formula), share of full and of zero marks, and item-rest discrimination: the Pearson
  correlation of the exercise's score with the total of the *other* exercises (with three
  or four exercises a notebook, a total that includes the item correlates with it by
  construction);
- ``check_stats``: per case its pass rate, over the submissions whose case was judged;
- ``wrong_values``: per case the most common wrong values, with counts, and whether one of
  the case's hints (``lecture_utils.checks.hint_for``) covers each.

Nothing here keeps a student id. Trusts the answer key (``spec``); a record's fields are
checked for type before use (records are the grader's, but a person may have edited one),
and its values are the students' and only ever counted, never evaluated (``read_value``).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.protocol import Status
from autograder.record import load_record, record_path
from autograder.results import CASE_ERROR, CaseResult, cases_of, read_value
from autograder.spec import AssignmentSpec
from lecture_utils.checks import hint_for

# the grader's own failures: not the student's score, so left out of every statistic
LEFT_OUT = frozenset({Status.GRADER_ERROR})
# how a failed case that kept no value is listed among the wrong values
NO_VALUE = {CASE_ERROR: "(raised an error)", Status.TIMEOUT: "(ran out of time)",
            Status.OUT_OF_MEMORY: "(ran out of memory)"}


@dataclass
class ClassRecord:
    """One submission as statistics need it: points and cases per exercise, no id."""

    points: dict[str, float] = field(default_factory=dict)
    cases: dict[str, list[CaseResult]] = field(default_factory=dict)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def record_of(data: Any) -> ClassRecord | None:
    """A record's scores and cases, or None for one that is not a usable record."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) \
            or data.get("status") in LEFT_OUT:
        return None
    record = ClassRecord()
    for test in data["tests"]:
        if not isinstance(test, dict) or not isinstance(test.get("grade_id"), str):
            return None
        points = _number(test.get("points"))
        if points is None:
            return None
        record.points[test["grade_id"]] = points
        record.cases[test["grade_id"]] = cases_of(test)
    return record


def record_files(course_root: Path, assignment: str) -> list[Path]:
    return sorted((course_root / "grades" / assignment).glob("*.json"))


def read_records(course_root: Path, assignment: str, paths: Iterable[Path],
                 ) -> tuple[list[ClassRecord], int]:
    """The usable records among ``paths``, and how many were not usable. A record counts
    only where ``grade`` writes its student's record (``write_csv``'s rule: one written
    under an older naming rule is a stale copy)."""
    records, unusable = [], 0
    for path in paths:
        data = load_record(path)
        record = record_of(data)
        if record is None or not isinstance(data.get("student"), str) \
                or record_path(course_root, assignment, data["student"]).name != path.name:
            unusable += 1
            continue
        records.append(record)
    return records, unusable


# --------------------------------------------------------------------------- exercises


@dataclass(frozen=True)
class QuestionStats:
    grade_id: str
    max_points: float
    n: int
    mean: float | None
    median: float | None
    sd: float | None
    full: float | None  # share of submissions with full marks, 0..1
    zero: float | None
    discrimination: float | None  # item-rest Pearson r; None where undefined

    @property
    def difficulty(self) -> float | None:
        """The mean as a share of the maximum (1: everyone scored everything)."""
        if self.mean is None or not self.max_points:
            return None
        return self.mean / self.max_points


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r, or None when either side does not vary (or there are < 2 pairs)."""
    if len(xs) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def question_stats(spec: AssignmentSpec, records: list[ClassRecord]) -> list[QuestionStats]:
    """One row per exercise of ``spec``, in notebook order; an exercise a record lacks
    scores 0 there (as in the grade CSV)."""
    ids = list(spec.checks)
    scores = {g: [r.points.get(g, 0.0) for r in records] for g in ids}
    totals = [sum(r.points.get(g, 0.0) for g in ids) for r in records]
    rows = []
    for g in ids:
        xs, top = scores[g], spec.checks[g].points
        if not xs:
            rows.append(QuestionStats(g, top, 0, None, None, None, None, None, None))
            continue
        rest = [total - x for total, x in zip(totals, xs)]
        rows.append(QuestionStats(
            g, top, len(xs), statistics.fmean(xs), statistics.median(xs),
            statistics.pstdev(xs), sum(x >= top for x in xs) / len(xs),
            sum(x == 0 for x in xs) / len(xs),
            pearson(xs, rest) if len(ids) > 1 else None))
    return rows


# --------------------------------------------------------------------------- check cases


@dataclass(frozen=True)
class CaseKey:
    grade_id: str
    index: int


@dataclass(frozen=True)
class CheckStats:
    grade_id: str
    index: int
    hidden: bool
    label: str  # the call of a visible case; "hidden check N" for a hidden one
    why: str
    n: int  # submissions whose case was judged
    passed: int

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.n if self.n else None


def case_labels(spec: AssignmentSpec) -> dict[CaseKey, tuple[bool, str, str]]:
    """Per case: hidden, its label and its why. A hidden case is named as students see it
    ("hidden check 2"), so that the report can be shared without giving it away."""
    labels = {}
    for g, check in spec.checks.items():
        hidden_number = 0
        for index, (case, hidden) in enumerate(zip(check.cases, check.hidden)):
            hidden_number += hidden
            label = f"hidden check {hidden_number}" if hidden else case.call
            labels[CaseKey(g, index)] = (hidden, label, case.why)
    return labels


def _judged(records: list[ClassRecord], spec: AssignmentSpec,
            ) -> Iterator[tuple[CaseKey, CaseResult]]:
    """Every case of every record that belongs to the spec (a record graded under an older
    answer key may have cases the key no longer has: those are skipped)."""
    for record in records:
        for g, cases in record.cases.items():
            if g not in spec.checks:
                continue
            for case in cases:
                if case.index < len(spec.checks[g].cases):
                    yield CaseKey(g, case.index), case


def check_stats(spec: AssignmentSpec, records: list[ClassRecord]) -> list[CheckStats]:
    judged, passed = Counter(), Counter()
    for key, case in _judged(records, spec):
        judged[key] += 1
        passed[key] += case.passed
    return [CheckStats(key.grade_id, key.index, hidden, label, why, judged[key], passed[key])
            for key, (hidden, label, why) in case_labels(spec).items()]


# --------------------------------------------------------------------------- wrong values


@dataclass(frozen=True)
class WrongValue:
    grade_id: str
    index: int
    hidden: bool
    label: str
    value: str  # as the record keeps it (bounded text), or a NO_VALUE phrase
    count: int
    share: float  # of this case's failures
    hint: str | None  # the message of the hint that covers it, if one does
    checkable: bool  # False: a shortened value or no value, which no hint can be tested on


def hint_covering(spec: AssignmentSpec, key: CaseKey, text: str,
                  ) -> tuple[str | None, bool]:
    """The hint message that covers a wrong value's text, and whether it could be tested."""
    try:
        value = read_value(text)
    except ValueError:
        return None, False
    return hint_for(spec.checks[key.grade_id].cases[key.index], value), True


def wrong_values(spec: AssignmentSpec, records: list[ClassRecord],
                 top: int = 10) -> list[WrongValue]:
    """Per case, its ``top`` most common wrong values (ties: by text), most common first."""
    counts: dict[CaseKey, Counter] = {}
    for key, case in _judged(records, spec):
        if case.passed:
            continue
        text = case.value if case.value is not None else NO_VALUE.get(case.status)
        if text is None:  # an uncomparable value recorded without text: nothing to count
            continue
        counts.setdefault(key, Counter())[text] += 1
    rows = []
    labels = case_labels(spec)
    for key in labels:
        if key not in counts:
            continue
        hidden, label, _ = labels[key]
        failures = sum(counts[key].values())
        common = sorted(counts[key].items(), key=lambda item: (-item[1], item[0]))[:top]
        for text, count in common:
            hint, checkable = hint_covering(spec, key, text) if text not in NO_VALUE.values() \
                else (None, False)
            rows.append(WrongValue(key.grade_id, key.index, hidden, label, text, count,
                                   count / failures, hint, checkable))
    return rows


TODO_FROM = 2  # submissions: a wrong value given once is not yet a pattern


def instructor_todo(wrong: list[WrongValue]) -> list[WrongValue]:
    """The common wrong values no hint covers yet, most common first: where a hint would
    help the next class."""
    todo = [w for w in wrong if w.hint is None and w.checkable and w.count >= TODO_FROM]
    return sorted(todo, key=lambda w: -w.count)

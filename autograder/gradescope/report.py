"""A graded notebook as Gradescope's ``results.json``, and what each student sees when.

Gradescope's format and visibility rules are its "Autograder Specifications"
(https://gradescope-autograders.readthedocs.io/en/latest/specs/; also
github.com/gradescope/autograder_samples, docs/specs.md, read 2026-12-06): per test ``score``,
``max_score``, ``status``, ``name``, ``number``, ``output``, ``output_format`` and
``visibility`` (``hidden``, ``after_due_date``, ``after_published`` or ``visible``); while any
test is hidden from students they do not see the total score.

One test per exercise, scored and worded exactly as ``check`` does (``results.TestResult``).
An exercise with hidden checks is shown only with ``hidden_visibility`` (after the grades are
published, by default), since its score tells whether a hidden check failed; beside it, a
visible test worth nothing gives the verdict on its visible checks alone, so nobody reads
"100%" before the due date that hidden checks later lower. Messages never show a hidden
check's call or expected value (``autograder.judge`` writes them so). The top-level
``output`` says only what is visible; the full table goes to stdout, which Gradescope shows
to instructors only (``stdout_visibility`` hidden).

Student text reaches ``output`` (a notebook's file name, an exception's message, a wrong
value): it is shown as text (``output_format`` text, Gradescope's ``<pre>``), never as HTML or
Markdown, and ``clean`` escapes what Gradescope must not receive: control characters (NUL
is refused by PostgreSQL text and jsonb), lone surrogates (a file name that is not UTF-8;
they have no UTF-8 form) and bidirectional overrides (they reorder what the reader sees).
Imports ``autograder.results``.
"""

from __future__ import annotations

import re
from typing import Any

from autograder.protocol import Status
from autograder.results import NotebookResult, TestResult, status_text

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
DEFAULT_HIDDEN_VISIBILITY = "after_published"
GRADER_ERROR_TEST = "grader error"
# C0 and C1 controls but tab and newline, lone surrogates, bidirectional embeddings/overrides
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
GRADER_ERROR_OUTPUT = (
    "The autograder itself failed while grading this submission; this is not your fault and "
    "this score is not final. Your instructor sees the details and will regrade it.")


def _test(number: str, name: str, output: str, visibility: str, *, score: float | None = None,
          max_score: float | None = None, passed: bool) -> dict[str, Any]:
    test: dict[str, Any] = {"name": name, "number": number, "status":
                            "passed" if passed else "failed", "output": output,
                            "output_format": "text", "visibility": visibility}
    if score is not None:
        test["score"], test["max_score"] = score, max_score
    return test


def _output(test: TestResult) -> str:
    return f"{status_text(test.status)}: {test.message}".strip() if test.message else \
        status_text(test.status)


def results_json(result: NotebookResult, hidden: dict[str, tuple[bool, ...]],
                 visible_only: dict[str, TestResult], hidden_visibility: str,
                 seconds: float) -> dict[str, Any]:
    """``results.json`` for a judged notebook. ``hidden`` maps each exercise to its cases'
    hidden flags; ``visible_only`` holds, for exercises with hidden checks and some visible
    ones, the judgement of their visible checks alone."""
    tests = []
    for number, test in enumerate(result.tests, start=1):
        has_hidden = any(hidden.get(test.grade_id, ()))
        tests.append(_test(str(number), test.grade_id, _output(test),
                           hidden_visibility if has_hidden else "visible",
                           score=test.points, max_score=test.max_points,
                           passed=test.status == Status.PASSED))
        if not has_hidden or hidden_visibility == "visible":  # its verdict is shown now
            continue
        public = visible_only.get(test.grade_id)
        if public is None:
            text = ("All of this exercise's checks are hidden; its result is shown when "
                    "grades are published.")
            tests.append(_test(f"{number}.1", f"{test.grade_id} (visible checks)", text,
                               "visible", passed=True))
        else:
            text = (_output(public) + "\nThis exercise also has hidden checks; its score is "
                    "shown when grades are published.")
            tests.append(_test(f"{number}.1", f"{test.grade_id} (visible checks)", text,
                               "visible", passed=public.status == Status.PASSED))
    lines = [f"Graded {result.notebook}."]
    if result.status != Status.GRADED:
        lines.append(f"Status: {status_text(result.status)}"
                     + (f" ({result.message})" if result.message else ""))
    elif result.message:
        lines.append(result.message)
    if any(t["visibility"] != "visible" for t in tests):
        lines.append("Exercises with hidden checks, and so the total, are shown when grades "
                     "are published.")
    return {"execution_time": round(seconds), "output": "\n".join(lines),
            "output_format": "text", "stdout_visibility": "hidden", "tests": tests}


def submission_problem(message: str, max_score: float, seconds: float) -> dict[str, Any]:
    """One failed, visible test for a submission that could not be graded at all (no
    notebook, several, a file that is not one): scores 0 of the whole, says why."""
    return {"execution_time": round(seconds), "output": message, "output_format": "text",
            "stdout_visibility": "hidden",
            "tests": [_test("1", "submission", message, "visible", score=0.0,
                            max_score=max_score, passed=False)]}


def grader_error(max_score: float, seconds: float) -> dict[str, Any]:
    """What students see when the grader fails: a visible test, no details (stdout has them)."""
    return {"execution_time": round(seconds), "output": GRADER_ERROR_OUTPUT,
            "output_format": "text", "stdout_visibility": "hidden",
            "tests": [_test("1", GRADER_ERROR_TEST, GRADER_ERROR_OUTPUT, "visible", score=0.0,
                            max_score=max_score, passed=False)]}


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
        code -= 0xDC00
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(data: Any) -> Any:
    """``data`` with every string's unsafe characters written as escapes (``\\x00``,
    ``\\ud800``, ``\\xff`` for a byte of a name that is not UTF-8): what results.json may
    carry of student text."""
    if isinstance(data, str):
        return _UNSAFE.sub(_escape, data)
    if isinstance(data, dict):
        return {clean(key): clean(value) for key, value in data.items()}
    if isinstance(data, list):
        return [clean(item) for item in data]
    return data

"""The grader's own words in a Chinese submission's feedback: why an exercise was not graded
(the sandbox's and the worker's reasons), the tampered reasons and the status line of the
table, and the verdict outputs and notes of the autograded notebook. Their English, which the
records keep, stays exactly as it was. No sandbox is started."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import nbformat
import pytest

from autograder.course import instructor_notebook
from autograder.judge import judge_exercise, judge_submission
from autograder.limits import Limits
from autograder.plan import Plan
from autograder.protocol import Report, RunCell, Status
from autograder.record import _verdict_outputs, write_autograded
from autograder.results import NotebookResult, TestResult
from autograder.sandbox.collector import Collector
from autograder.spec import load_spec
from autograder.translate.build import release_dir
from lecture_utils.i18n import messages, use_language

ZH = "zh-CN"
A = "00_napkin_math"
G = "test_training_flops"


@pytest.fixture(scope="module")
def spec():
    return load_spec(instructor_notebook(A))


def _english_words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]+", text))


def _has_chinese(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


# Why a run stopped, as sandbox/collector.py and sandbox/worker.py write it (English, in the
# records), with the words of its values, which stay as they are in any language.
RUN_REASONS = [
    ("cell 3 ran past 30 s", ""),
    ("a check of test_training_flops ran past 30 s", "test_training_flops"),
    ("cell 0 ran out of memory (limit 3.0 GiB)", "GiB"),
    ("a check of test_training_flops ran out of memory (limit 3.0 GiB)",
     "test_training_flops GiB"),
    ("used more than 180 s of CPU time", "CPU"),
    ("used more than 3.0 GiB", "GiB"),
    ("killed by SIGSEGV", "SIGSEGV"),
    ("exited with status 3 before finishing", ""),
    ("the sandbox runner failed: RuntimeError: boom", "RuntimeError boom"),
    ("sent more than 1048576 bytes of results", ""),
    ("sent malformed results (a result line was too long)", ""),
    ("sent malformed results (a result line was not JSON)", "JSON"),
    ("sent malformed results (a result line was not an object)", "JSON"),
    ("sent malformed results (more results than steps)", ""),
    ("sent malformed results (results out of order)", ""),
    ("the sandbox stopped answering: the submission ran past 180 s", ""),
    ("the sandbox worker died while running this submission", ""),
    ("the sandbox sent a malformed report", ""),
]


@pytest.mark.parametrize(("english", "values"), RUN_REASONS)
def test_why_an_exercise_was_not_graded_is_in_the_readers_language(spec, english, values):
    report = Report(Status.CRASHED, english)
    result = NotebookResult("n.ipynb", A, status=Status.CRASHED, message=english)
    with use_language("en"):
        assert judge_exercise(spec, G, None, report).message == f"not graded: {english}"
        assert result.table().splitlines()[-2] == f"status: crashed ({english})"
    with use_language(ZH):
        shown = judge_exercise(spec, G, None, report).message
        status_line = result.table().splitlines()[-2]
    for text in (shown, status_line):
        assert _has_chinese(text.split("：", 1)[1])  # the reason, not just its "not graded:"
        assert _english_words(text) <= _english_words(values), text
    assert "(" not in status_line and ")" not in status_line


def test_the_collector_writes_its_reasons_as_before() -> None:
    """The English of the reasons above is what the collector makes (the records and
    tests/test_sandbox.py read it)."""
    limits = Limits()
    collector = Collector([RunCell("1")], limits)
    collector._note_limits(3, None, True, True)
    assert collector.timeout == "cell 3 ran past 30 s"
    assert collector.oom == "cell 3 ran out of memory (limit 3.0 GiB)"
    collector = Collector([RunCell("1")], limits)
    collector._note_limits(None, "test_x", True, False)
    assert collector.timeout == "a check of test_x ran past 30 s"
    assert collector._status(int(signal.SIGSEGV), None) == (Status.CRASHED, "killed by SIGSEGV")
    assert collector._status(3 << 8, None) == (Status.CRASHED,
                                               "exited with status 3 before finishing")
    assert Collector([RunCell("1")], limits).take(b"not json\n") == (
        Status.CRASHED, "sent malformed results (a result line was not JSON)")
    assert Collector([RunCell("1")], limits).take(b"[]\n") == (
        Status.CRASHED, "sent malformed results (a result line was not an object)")


def test_a_notebook_that_stopped_early_says_so_in_chinese(spec):
    with use_language(ZH):
        shown = judge_exercise(spec, G, None, Report(Status.CRASHED, "")).message
    assert shown == "未评分：" + messages(ZH)["the notebook stopped before this test ran"]


def test_the_tampered_reasons_are_in_the_readers_language(spec):
    plan = Plan(tampered={G: "its test cell was edited"})
    with use_language("en"):
        _, status, english = judge_submission(spec, plan, Report(Status.OK))
        table = NotebookResult("n.ipynb", A, status=status, message=english).table()
    assert english == f"{G}: its test cell was edited"
    assert table.splitlines()[-2] == f"status: tampered ({G}: its test cell was edited)"
    with use_language(ZH):
        _, status, chinese = judge_submission(spec, plan, Report(Status.OK))
        line = NotebookResult("n.ipynb", A, status=status, message=chinese).table().splitlines()
    assert chinese == f"{G}: " + messages(ZH)["its test cell was edited"]
    assert line[-2].startswith("状态：") and "（" in line[-2] and "(" not in line[-2]
    assert _english_words(line[-2]) <= {"test", "training", "flops"}


def test_the_verdicts_name_the_grader_and_status_in_the_readers_language():
    with use_language("en"):
        assert _verdict_outputs(Status.TIMEOUT, "x")[0].ename == "Grader (timeout)"
        assert _verdict_outputs(Status.OUT_OF_MEMORY, "x")[0].ename == "Grader (out of memory)"
    with use_language(ZH):
        ename = _verdict_outputs(Status.TIMEOUT, "x")[0].ename
    assert _has_chinese(ename) and not _english_words(ename) and "(" not in ename


def test_a_chinese_submissions_autograded_notebook_notes_and_verdicts_are_chinese(
        spec, tmp_path: Path):
    """Kills: the notes and verdicts of the feedback page in English for a Chinese submission
    (or in Chinese for an English one)."""
    released = nbformat.read(release_dir(ZH) / A / f"{A}.ipynb", as_version=4)
    graded = next(c for c in released.cells if c.metadata.get("nbgrader", {}).get("grade_id") == G)
    graded.metadata["nbgrader"]["points"] = 100  # the student edited the graded cell's points
    path = tmp_path / f"{A}.ipynb"
    path.write_text(nbformat.writes(released), encoding="utf-8")
    tests = [TestResult(g, 0.0, c.points, Status.TIMEOUT, "x") for g, c in spec.checks.items()]
    target = tmp_path / "autograded" / f"{A}.ipynb"
    for language, note_start, ename in (
            (ZH, "**评分程序的说明**：", "评分程序（超时）"),
            ("en", "**Note from the grader:** the instructor's notebook", "Grader (timeout)")):
        if language == "en":
            released.metadata["lecture"] = {"language": "en"}
            path.write_text(nbformat.writes(released), encoding="utf-8")
        result = NotebookResult(str(path), A, tests=tests, student="ada")
        write_autograded(target, path, result, spec)
        written = nbformat.read(target, as_version=4)
        notes = [c.source for c in written.cells[:2] if c.cell_type == "markdown"
                 and "nbgrader" not in c.metadata]
        note = next(n for n in notes if n.startswith(note_start))
        verdicts = {c.outputs[0].ename for c in written.cells
                    if c.cell_type == "code" and c.outputs and c.outputs[0].output_type == "error"}
        assert verdicts == {ename}
        if language == ZH:
            assert _english_words(note) <= {"nbgrader", "points", "test", "training", "flops",
                                               "notebook"}  # kept English, as in the notebooks

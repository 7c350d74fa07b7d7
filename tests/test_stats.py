"""``python -m autograder stats``: class statistics from synthetic records whose numbers are
known in closed form (means, SDs, item-rest correlations, pass rates, wrong-value counts)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
import time
from pathlib import Path

from autograder.cli import main
from autograder.course import NBGRADER_CONFIG, instructor_notebook
from autograder.protocol import Status
from autograder.record import record_path, write_record
from autograder.results import CaseResult, NotebookResult, TestResult
from autograder.spec import AssignmentSpec, GradedCheck, parse_cases, strip_hidden
from autograder.spreadsheet import original_cell
from autograder.stats import write_stats

A = "synthetic"
Q1 = '''check([
    Case("double(2)", 4, "doubles", hints=((2, "you returned the input; multiply by 2"),)),
    ### BEGIN HIDDEN TESTS
    Case("double(-7)", -14, "negative numbers"),
    ### END HIDDEN TESTS
])'''
Q2 = 'check([Case("f()", 1.0), Case("g()", [1, 2])])'
Q3 = 'check([Case("h()", "ok", "says ok")])'


def _spec() -> AssignmentSpec:
    checks = {}
    for grade_id, source, points in (("q1", Q1, 1.0), ("q2", Q2, 2.0), ("q3", Q3, 1.0)):
        cases, hidden = parse_cases(source, grade_id)
        checks[grade_id] = GradedCheck(grade_id, points, cases, hidden, strip_hidden(source),
                                       {})
    return AssignmentSpec(A, checks=checks)


def _passed(n: int, hidden: tuple[bool, ...] = ()) -> list[CaseResult]:
    return [CaseResult(i, (hidden + (False,) * n)[i], True, "passed") for i in range(n)]


def _write(root: Path, student: str, points: dict[str, float],
           cases: dict[str, list[CaseResult]] | None = None, status: str = "graded",
           keep_cases: bool = True) -> Path:
    spec = _spec()
    tests = [TestResult(g, points.get(g, 0.0), c.points,
                        Status.PASSED if points.get(g, 0.0) == c.points else Status.FAILED,
                        "", (cases or {}).get(g, []))
             for g, c in spec.checks.items()]
    result = NotebookResult(f"{A}.ipynb", A, tests, student=student, status=Status(status))
    path = record_path(root, A, student)
    write_record(path, result, "fp")
    if not keep_cases:  # a record from before cases were kept
        data = json.loads(path.read_text(encoding="utf-8"))
        for test in data["tests"]:
            del test["cases"]
        path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


# four students:       q1  q2  q3   total   rest of q1 (= q2 + q3)
SCORES = {"ada":      (1, 2, 1),  # 4     3
          "bo":       (1, 0, 1),  # 2     1
          "cy":       (0, 2, 0),  # 2     2
          "di":       (0, 0, 0)}  # 0     0


def test_exercise_statistics_in_closed_form(tmp_path):
    """q1 and q3 = (1, 1, 0, 0): mean 0.5, median 0.5, SD 0.5, 50% full and zero; their rest
    score (3, 1, 2, 0) gives r = 1/sqrt(5). q2 = (2, 0, 2, 0) against its rest (2, 2, 0, 0):
    r = 0, where the correlation with the total including q2 would be 1/sqrt(2)."""
    for student, (a, b, c) in SCORES.items():
        _write(tmp_path, student, {"q1": a, "q2": b, "q3": c})
    run = write_stats(tmp_path, A, _spec(), plots=False)
    assert (run.records, run.unusable) == (4, 0)
    rows = {r["exercise"]: r for r in _csv(tmp_path / "stats" / A / "questions.csv")}
    assert list(rows) == ["q1", "q2", "q3"]
    for q in ("q1", "q3"):
        assert {k: float(v) for k, v in rows[q].items() if k != "exercise"} == {
            "max_points": 1.0, "n": 4, "mean": 0.5, "median": 0.5, "sd": 0.5, "pct_full": 50,
            "pct_zero": 50, "discrimination": round(1 / math.sqrt(5), 4)}
    assert float(rows["q2"]["mean"]) == 1.0 and float(rows["q2"]["sd"]) == 1.0
    assert float(rows["q2"]["discrimination"]) == 0.0


def test_an_exercise_everyone_scores_the_same_has_no_discrimination(tmp_path):
    for student in ("a", "b", "c"):
        _write(tmp_path, student, {"q1": 1, "q2": 2 if student == "a" else 0, "q3": 1})
    write_stats(tmp_path, A, _spec(), plots=False)
    rows = {r["exercise"]: r for r in _csv(tmp_path / "stats" / A / "questions.csv")}
    assert rows["q1"]["discrimination"] == "" and rows["q1"]["sd"] == "0.0"
    assert rows["q1"]["pct_full"] == "100.0" and rows["q2"]["pct_zero"] == "66.67"


def _class(root: Path) -> None:
    """Ten students on q1: 5 right; 3 returned 2 (the input: a hint covers it), one returned
    8, one raised. The hidden case: passed by 5, 5 returned 14 (sign lost). Two more records
    from before cases were kept: they count for the scores only."""
    wrong = ["2", "2", "2", "8", None]
    for number in range(10):
        visible = CaseResult(0, False, True, "passed") if number < 5 else (
            CaseResult(0, False, False, "failed", wrong[number - 5]) if wrong[number - 5]
            else CaseResult(0, False, False, "error"))
        hidden = CaseResult(1, True, number % 2 == 0, "passed" if number % 2 == 0 else "failed",
                            None if number % 2 == 0 else "14")
        score = 1.0 if visible.passed and hidden.passed else 0.0
        _write(root, f"student-{number}", {"q1": score},
               {"q1": [visible, hidden], "q2": [CaseResult(0, False, False, "timeout"),
                                                CaseResult(1, False, False, "failed", "-1")]})
    _write(root, "old-1", {"q1": 1.0}, keep_cases=False)
    _write(root, "old-2", {"q1": 0.0}, keep_cases=False)


def test_pass_rates_and_wrong_values_counted_per_case(tmp_path):
    _class(tmp_path)
    run = write_stats(tmp_path, A, _spec(), plots=False)
    folder = tmp_path / "stats" / A
    assert run.records == 12
    checks = {(r["exercise"], r["case"]): r for r in _csv(folder / "checks.csv")}
    assert checks["q1", "0"] == {"exercise": "q1", "case": "0", "hidden": "no",
                                 "check": "double(2)", "why": "doubles", "n": "10",
                                 "passed": "5", "pass_rate_pct": "50.0"}
    assert checks["q1", "1"]["check"] == "hidden check 1"  # as students see it
    assert (checks["q1", "1"]["n"], checks["q1", "1"]["pass_rate_pct"]) == ("10", "50.0")
    assert checks["q3", "0"]["n"] == "0" and checks["q3", "0"]["pass_rate_pct"] == ""
    wrong = [(r["exercise"], r["case"], original_cell(r["value"]), r["count"],
              r["pct_of_failures"], r["hint_covers"], r["hint"])
             for r in _csv(folder / "wrong_values.csv")]
    assert wrong == [
        ("q1", "0", "2", "3", "60.0", "yes", "you returned the input; multiply by 2"),
        ("q1", "0", "(raised an error)", "1", "20.0", "unknown", ""),  # ties: by text
        ("q1", "0", "8", "1", "20.0", "no", ""),
        ("q1", "1", "14", "5", "100.0", "no", ""),
        ("q2", "0", "(ran out of time)", "10", "100.0", "unknown", ""),
        ("q2", "1", "-1", "10", "100.0", "no", "")]
    # the instructor's to-do: common values no hint covers
    assert [(w.grade_id, w.index, w.value, w.count) for w in run.todo] == [
        ("q2", 1, "-1", 10), ("q1", 1, "14", 5)]


def test_no_student_id_or_hidden_call_in_any_output(tmp_path):
    _class(tmp_path)
    write_stats(tmp_path, A, _spec())
    for path in (tmp_path / "stats" / A).iterdir():
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "student-" not in text and "old-" not in text, path.name
        assert "double(-7)" not in text and "-14" not in text, path.name


def test_a_value_a_spreadsheet_would_run_is_guarded(tmp_path):
    """Value texts are reprs, so only '-' (a negative number) can start one; instructor text
    (a why) can start with anything."""
    _class(tmp_path)
    rows = (tmp_path / "stats" / A / "wrong_values.csv")
    write_stats(tmp_path, A, _spec(), plots=False)
    cells = [r["value"] for r in _csv(rows)]
    assert "'-1" in cells and "-1" not in cells


def test_unusable_records_are_left_out_and_counted(tmp_path):
    _class(tmp_path)
    _write(tmp_path, "broke", {"q1": 1.0}, status="grader error")
    folder = tmp_path / "grades" / A
    (folder / "garbage.json").write_text("{not json", encoding="utf-8")
    (folder / "edited.json").write_text(json.dumps({"student": "edited", "tests": [
        {"grade_id": "q1", "points": "lots"}]}), encoding="utf-8")
    stale = json.loads((folder / "student-0.json").read_text(encoding="utf-8"))
    (folder / "renamed.json").write_text(json.dumps(stale), encoding="utf-8")  # not its file
    run = write_stats(tmp_path, A, _spec(), plots=False)
    assert (run.records, run.unusable) == (12, 4)


def test_a_thousand_records_take_seconds(tmp_path):
    for number in range(1000):
        _write(tmp_path, f"s{number}", {"q1": number % 2, "q2": 2 * (number % 3 == 0)},
               {"q1": [CaseResult(0, False, number % 2 == 1, "failed", f"{number % 7}"),
                       CaseResult(1, True, True, "passed")]})
    started = time.perf_counter()
    run = write_stats(tmp_path, A, _spec(), progress=False)
    seconds = time.perf_counter() - started
    assert run.records == 1000 and seconds < 30, seconds
    q1 = _csv(tmp_path / "stats" / A / "questions.csv")[0]
    assert (q1["mean"], q1["pct_full"]) == ("0.5", "50.0")


def _course(root: Path) -> Path:
    """An nbgrader course directory with 00_napkin_math's answer key (no gradebook: stats
    needs none)."""
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()\nload_subconfig({str(NBGRADER_CONFIG)!r})\n"
        f"c.CourseDirectory.root = {str(root)!r}\n"
        "c.CourseDirectory.source_directory = 'source'\n", encoding="utf-8")
    source = root / "source" / "00_napkin_math"
    source.mkdir(parents=True)
    source.joinpath("00_napkin_math.ipynb").write_bytes(
        instructor_notebook("00_napkin_math").read_bytes())
    return root


def _stats(capsys, *args: str) -> tuple[int, str, str]:
    """The command, run in this process (a fresh interpreter spends most of a second
    importing nbgrader, which reads the course's config)."""
    status = main(["stats", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_command_writes_every_file_and_lists_the_todo(tmp_path, capsys):
    course = _course(tmp_path)
    for number in range(4):
        record = {"student": f"s{number}", "status": "graded", "tests": [
            {"grade_id": "test_training_flops", "points": 0.0, "cases": [
                {"index": 0, "hidden": False, "passed": False, "status": "failed",
                 "value": "1.234e+24"}]},  # (a value no hint names)
            {"grade_id": "test_training_days", "points": float(number % 2)}]}
        folder = course / "grades" / "00_napkin_math"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"s{number}.json").write_text(json.dumps(record), encoding="utf-8")
    status, out, err = _stats(capsys, "00_napkin_math", "--course", str(course),
                              "--no-progress")
    assert status == 0, err
    written = {p.name for p in (course / "stats" / "00_napkin_math").iterdir()}
    assert written == {"questions.csv", "checks.csv", "wrong_values.csv", "report.html",
                       "score_distribution.png", "pass_rates.png",
                       "difficulty_discrimination.png", "top_wrong_values.png"}
    assert re.search(r"^ +4  test_training_flops training_flops\(70e9, 15e12\): 1\.234e\+24$",
                     out, re.MULTILINE), out


def test_command_without_records_says_what_to_do(tmp_path, capsys):
    status, out, err = _stats(capsys, "00_napkin_math", "--course", str(_course(tmp_path)))
    assert status == 2 and out == ""
    assert "no records in" in err and "autograder grade 00_napkin_math" in err
    status, out, err = _stats(capsys, "no_such_assignment", "--course", str(tmp_path))
    assert status == 2 and "not an assignment" in err


def test_many_records_show_progress_with_or_without_tqdm(tmp_path, monkeypatch, capsys):
    """A bar on stderr from PROGRESS_FROM records (here lowered to 3); a plain counter when
    tqdm is not installed; nothing below the threshold or with progress off."""
    for number in range(5):
        _write(tmp_path, f"s{number}", {"q1": 1.0})
    monkeypatch.setattr("autograder.stats.PROGRESS_FROM", 3)
    write_stats(tmp_path, A, _spec(), plots=False)
    assert "5/5" in capsys.readouterr().err  # tqdm's count
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm now raises ImportError
    write_stats(tmp_path, A, _spec(), plots=False)
    assert capsys.readouterr().err == "\rread 5/5 records\n"
    write_stats(tmp_path, A, _spec(), plots=False, progress=False)
    monkeypatch.setattr("autograder.stats.PROGRESS_FROM", 6)
    write_stats(tmp_path, A, _spec(), plots=False)
    assert capsys.readouterr().err == ""

"""`python -m autograder check`, run as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from giveaways import WRONG_NUMBER, answering_everything_with, hidden_giveaways
from support.submissions import perfect_submission, with_answer
from wrong_answers import WRONG_ANSWERS

from autograder.course import REPO, instructor_notebook
from autograder.spec import load_spec

NB = "00_napkin_math"


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "check", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_grades_a_filled_in_copy_with_hidden_tests_and_writes_json(tmp_path):
    notebook = with_answer(perfect_submission(NB), "training_flops",
                           WRONG_ANSWERS[NB]["training_flops"][0])
    mine = tmp_path / "my copy of napkin math.ipynb"
    nbformat.write(notebook, mine)
    report = tmp_path / "report.json"

    run = _check(str(mine), "--json", str(report))

    assert run.returncode == 0, run.stderr
    data = json.loads(report.read_text())
    assert set(data) >= {"notebook", "score", "max_score", "tests"}
    assert data["notebook"] == str(mine)
    tests = {t["grade_id"]: t for t in data["tests"]}
    assert set(tests) == {"test_training_flops", "test_training_days",
                          "test_max_trainable_params"}
    for test in tests.values():
        assert set(test) == {"grade_id", "points", "max_points", "status", "message", "cases"}
    # each case's verdict; the wrong answer's value (2ND, forward only) where it failed
    spec = load_spec(instructor_notebook(NB))
    for grade_id, test in tests.items():
        assert [(c["index"], c["hidden"]) for c in test["cases"]] == list(
            enumerate(spec.checks[grade_id].hidden))
    assert all(c["passed"] for g in tests if g != "test_training_flops"
               for c in tests[g]["cases"])
    flops = zip(spec.checks["test_training_flops"].cases, tests["test_training_flops"]["cases"])
    for case, kept in flops:  # 2ND is right only for 0 FLOPs; a passed case keeps no value
        assert kept["passed"] == (case.expect == 0)
        assert kept["value"] is None if kept["passed"] else \
            float(kept["value"]) == pytest.approx(case.expect / 3)
    assert tests["test_training_flops"]["status"] == "failed"
    assert tests["test_training_flops"]["points"] == 0
    # 2ND is a known slip: its hint, not the comparison
    assert "returned 2.1e+24: forward pass only" in tests["test_training_flops"]["message"]
    assert data["score"] == data["max_score"] - tests["test_training_flops"]["max_points"]
    table, details = run.stdout.split("\nWhat went wrong, in full:\n")
    lines = table.splitlines()
    assert lines[0].split() == ["exercise", "points", "status", "message"]
    assert any(line.startswith("test_training_flops") and "failed" in line for line in lines)
    assert lines[-1] == f"score: {data['score']:g}/{data['max_score']:g}"
    # below the table, each failed exercise's whole message (the table shows one line)
    assert "test_training_flops (failed):" in details
    for line in tests["test_training_flops"]["message"].splitlines():
        assert line.strip() in details
    assert "test_training_days" not in details  # passed exercises are not repeated
    assert run.stdout.rstrip().endswith(f"wrote {report}")


def test_json_into_a_missing_folder_is_refused_before_grading(tmp_path):
    mine = tmp_path / "mine.ipynb"
    nbformat.write(perfect_submission(NB), mine)
    run = _check(str(mine), "--json", str(tmp_path / "no" / "such" / "r.json"))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "does not exist" in run.stderr


@pytest.mark.parametrize(
    ("content", "problem"),
    [(b"not json at all", "is not valid JSON"),
     (b'{"worksheets": [], "nbformat": 3, "nbformat_minor": 0, "metadata": {}}',
      "is an old (version 3) notebook; open it in JupyterLab and save it"),
     (b'{"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
      "is not one of this course's notebooks")],
)
def test_bad_input_is_one_line_naming_the_file(tmp_path, content, problem):
    path = tmp_path / "broken.ipynb"
    path.write_bytes(content)
    run = _check(str(path))
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"autograder: {path}: {problem}")


def test_a_python_file_is_not_taken_for_a_damaged_notebook(tmp_path):
    path = tmp_path / "solution.py"
    path.write_text("def training_flops(n, d):\n    return 6 * n * d\n")
    run = _check(str(path))
    assert run.returncode == 2
    assert run.stderr == (f"autograder: {path}: is not a Jupyter notebook (those are .ipynb "
                          "files); give the path of your saved notebook\n")


def test_missing_file(tmp_path):
    run = _check(str(tmp_path / "nope.ipynb"))
    assert run.returncode == 2
    assert "nope.ipynb: no such file" in run.stderr


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                    reason="hides /proc in a private mount namespace, which needs root")
def test_check_works_unsandboxed_where_there_is_no_proc(tmp_path):
    # As on a self-study reader's Mac: no bubblewrap and no /proc. The runner must still
    # grade, and still kill what the notebook left running (through its process group).
    marker = f"{1000 + os.getpid() % 1000}"
    notebook = with_answer(perfect_submission("01_tensors_and_memory"), "tensor_bytes",
                           f"import subprocess\nsubprocess.Popen(['/bin/sleep', '{marker}'])\n"
                           "def tensor_bytes(x):\n    return x.numel()\n")
    mine = tmp_path / "mine.ipynb"
    nbformat.write(notebook, mine)
    command = (f"mount -t tmpfs tmpfs /proc && PATH={tmp_path} "
               f"{sys.executable} -m autograder check {mine}")
    run = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c",
                          command], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "score: 6/7" in run.stdout   # all but tensor_bytes (1 of 7 points)
    assert "returned 32: elements, not bytes" in run.stdout  # the case's hint
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}$"], capture_output=True, text=True)
    assert left.stdout == ""


@pytest.mark.slow
def test_zero_score_exits_0_and_shows_no_hidden_value(tmp_path):
    """Grading happened, so the exit status is 0 even for 0 points; and neither the table,
    the details below it nor the JSON show a hidden case's call or expected value.
    Kills: an exit status that follows the score, and judge.py appending ``case.expect`` to a
    hidden failure (see tests/test_grader_mutants.py)."""
    mine = tmp_path / f"{NB}.ipynb"
    nbformat.write(answering_everything_with(NB, WRONG_NUMBER), mine)
    report = tmp_path / "report.json"
    run = _check(str(mine), "--json", str(report))
    assert run.returncode == 0, run.stderr
    data = json.loads(report.read_text())
    assert data["score"] == 0 < data["max_score"]
    assert f"score: 0/{data['max_score']:g}" in run.stdout
    assert "hidden check 5 failed" in run.stdout  # every hidden check failed, so each could leak
    giveaways = hidden_giveaways(load_spec(instructor_notebook(NB)))
    for where, text in (("stdout", run.stdout), ("json", report.read_text())):
        assert [g for g in giveaways if g in text] == [], where


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_json_that_cannot_be_written_after_grading_exits_2(tmp_path):
    """/dev/full passes the check made before grading (its folder exists) and fails the write
    (ENOSPC). Kills: ``return 0`` (or a traceback) when ``write_json`` raises."""
    mine = tmp_path / "mine.ipynb"
    nbformat.write(perfect_submission(NB), mine)
    run = _check(str(mine), "--json", "/dev/full")
    assert run.returncode == 2
    assert "score: 4/4" in run.stdout  # graded and shown first
    assert run.stderr == ("autograder: /dev/full: could not write the JSON report (No space "
                          "left on device); the table above is the result\n")


@pytest.mark.parametrize("hidden", ["missing", "unreadable"])
def test_says_so_when_the_answer_key_cannot_be_read(tmp_path, monkeypatch, hidden):
    """On a course's server students cannot read solutions/ (deploy/jupyterhub): check must
    say why it cannot grade, not show a traceback or treat the course as empty."""
    import autograder.check as check

    key = tmp_path / "solutions"
    if hidden == "unreadable":
        shutil.copytree(instructor_notebook(NB).parent, key / NB)
        monkeypatch.setattr(check.os, "access", lambda path, mode: path != key)
    monkeypatch.setattr(check, "SOLUTIONS", key)
    mine = tmp_path / f"{NB}.ipynb"
    nbformat.write(perfect_submission(NB), mine)

    with pytest.raises(check.NotebookError) as raised:
        check.check_notebook(mine)

    message = str(raised.value)
    assert str(mine) in message and "answer key" in message and str(key) in message

"""The Gradescope autograder zip, run as Gradescope runs it, without Gradescope.

One zip (notebook 03, among the quickest to grade) is built once and unpacked into
directories laid out as Gradescope's /autograder (``support.gradescope_root``), where
``run_autograder`` grades one submission each: the solved notebook, the untouched release,
wrong answers, an infinite loop, a memory bomb, a malformed notebook, two notebooks, none, a
crashed grader, and a run as an unprivileged user. Every results.json must validate against
the schema written from Gradescope's specification, and its scores equal ``check --json``'s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import jsonschema
import nbformat
import pytest
from support.gradescope_root import run_autograder, submit, unpack
from support.mounts import expose_script
from support.submissions import perfect_submission, with_answer
from wrong_answers import WRONG_ANSWERS

from autograder.cli import main as cli
from autograder.course import RELEASE, instructor_notebook
from autograder.gradescope import report
from autograder.gradescope.build import build_zip
from autograder.notebook import read_notebook
from autograder.spec import load_spec

pytestmark = pytest.mark.slow
NAME = "03_data_types"
SCHEMA = json.loads((Path(report.__file__).parent / "results.schema.json").read_text())
MAX = 8.0


@pytest.fixture(scope="module")
def workdir():
    # open to every user (pytest's tmp_path is not), so the unprivileged run reaches the grader
    folder = Path(tempfile.mkdtemp(prefix="test-gradescope-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def archive(workdir):
    return build_zip(NAME, workdir / "autograder.zip").path


def grade(archive: Path, workdir: Path, files: dict, *, limits: dict | None = None,
          **env: str) -> tuple[subprocess.CompletedProcess, dict, Path]:
    root = unpack(archive, workdir)
    if limits:
        config_path = root / "source" / "key" / "config.json"
        config = json.loads(config_path.read_text())
        config["limits"].update(limits)
        config_path.write_text(json.dumps(config))
    submit(root, files)
    done, results = run_autograder(root, **env)
    jsonschema.validate(results, SCHEMA)
    assert not unsafe_text(results)
    assert "score " in done.stdout  # the log got to its last line
    return done, results, root


def unsafe_text(data) -> list[str]:
    """The strings in ``data`` holding what Gradescope must not get: controls but tab and
    newline, lone surrogates, bidirectional overrides."""
    if isinstance(data, dict):
        return unsafe_text(list(data.keys())) + unsafe_text(list(data.values()))
    if isinstance(data, list):
        return [text for item in data for text in unsafe_text(item)]
    bad = [c for c in data if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F
           or 0xD800 <= ord(c) <= 0xDFFF or c in "\u202a\u202b\u202c\u202d\u202e"
           or 0x2066 <= ord(c) <= 0x2069] if isinstance(data, str) else []
    return [data] if bad else []


def scored(results: dict) -> dict[str, float]:
    """Exercise → points, from the scored tests (the visible-checks tests score nothing)."""
    return {t["name"]: t["score"] for t in results["tests"] if "score" in t}


def check_json(notebook: nbformat.NotebookNode, folder: Path) -> dict:
    path = folder / f"{NAME}.ipynb"
    nbformat.write(notebook, path)
    assert cli(["check", str(path), "--json", str(folder / "check.json")]) == 0
    return json.loads((folder / "check.json").read_text())


def same_as_check(results: dict, notebook: nbformat.NotebookNode, folder: Path) -> None:
    expected = check_json(notebook, folder)
    assert scored(results) == {t["grade_id"]: t["points"] for t in expected["tests"]}
    assert sum(scored(results).values()) == expected["score"]
    assert {t["name"]: t["max_score"] for t in results["tests"] if "score" in t} == \
        {t["grade_id"]: t["max_points"] for t in expected["tests"]}


def test_the_zip_has_its_scripts_at_the_root_and_no_solutions(archive):
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        text = "\n".join(opened.read(n).decode(errors="replace") for n in names)
        modes = {n: (opened.getinfo(n).external_attr >> 16) & 0o777 for n in names}
    assert {"setup.sh", "run_autograder", "requirements.txt", "key/key.json"} <= set(names)
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    solutions = [cell.source for cell in read_notebook(instructor_notebook(NAME)).cells
                 if cell.get("metadata", {}).get("nbgrader", {}).get("solution")]
    assert solutions and all(s.strip() and s not in text for s in solutions)
    assert not re.search(r"^\s*### BEGIN SOLUTION\s*$", text, re.MULTILINE)  # a marker line
    assert any(n.startswith("grader/autograder/") for n in names)
    assert not any("__pycache__" in n or n.startswith("solutions/") for n in names)


def test_the_build_is_reproducible(archive, workdir):
    again = build_zip(NAME, workdir / "again.zip").path
    assert again.read_bytes() == archive.read_bytes()


def test_solved_notebook_scores_full_marks_as_check_does(archive, workdir):
    notebook = perfect_submission(NAME)
    done, results, root = grade(archive, workdir, {f"{NAME}.ipynb": notebook})
    assert sum(scored(results).values()) == MAX, done.stdout
    assert all(t["status"] == "passed" for t in results["tests"])
    # hidden checks' verdicts wait for publication; the visible-checks tests are shown now
    hidden = [t for t in results["tests"] if "score" in t]
    assert {t["visibility"] for t in hidden} == {"after_published"}
    shown = [t for t in results["tests"] if "score" not in t]
    assert shown and {t["visibility"] for t in shown} == {"visible"}
    assert results["stdout_visibility"] == "hidden"
    assert "peak memory" in done.stdout and "grading took" in done.stdout
    assert not (root / "results" / "results.json.partial").exists()
    same_as_check(results, notebook, root)


def test_untouched_release_scores_zero_with_messages(archive, workdir):
    notebook = read_notebook(RELEASE / NAME / f"{NAME}.ipynb")
    _, results, root = grade(archive, workdir, {f"{NAME}.ipynb": notebook})
    assert sum(scored(results).values()) == 0
    assert all(t["status"] == "failed" and t["output"].strip() for t in results["tests"])
    same_as_check(results, notebook, root)


# two of the three exercises (each run costs a grader start): both lose only their exercise
@pytest.mark.parametrize("exercise", ["decode_float", "accumulate"])
def test_a_wrong_answer_loses_its_exercise_as_in_check(archive, workdir, exercise):
    notebook = with_answer(perfect_submission(NAME), exercise, WRONG_ANSWERS[NAME][exercise][0])
    _, results, root = grade(archive, workdir, {f"{NAME}.ipynb": notebook})
    lost = [name for name, points in scored(results).items() if points == 0]
    assert len(lost) == 1 and sum(scored(results).values()) < MAX
    failed = next(t for t in results["tests"] if t["name"] == lost[0])
    assert failed["status"] == "failed" and "checks failed" in failed["output"]
    same_as_check(results, notebook, root)
    # hidden checks are reported by number, never by their calls (or expected values)
    spec = load_spec(instructor_notebook(NAME))
    hidden_cases = [case for check in spec.checks.values()
                    for case, hidden in zip(check.cases, check.hidden) if hidden]
    text = json.dumps(results, ensure_ascii=False)
    assert hidden_cases and not [case.call for case in hidden_cases if case.call in text]
    # nor their expected values (those long enough not to be any number's digits)
    expected = {repr(case.expect) for case in hidden_cases} | {str(c.expect) for c in hidden_cases}
    assert not [value for value in expected if len(value) >= 6 and value in text]


def _answer(notebook: nbformat.NotebookNode, exercise: str) -> str:
    return next(cell.source for cell in notebook.cells
                if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == exercise)


def test_an_infinite_loop_and_a_memory_bomb_cost_their_own_exercises_only(archive, workdir):
    """One submission (to keep the test quick): one exercise's cell loops, another's hoards
    memory; each loses its exercise, the third is graded."""
    solved = perfect_submission(NAME)
    loop = "while True:\n    pass\n" + _answer(solved, "underflows")
    bomb = ("def bomb():\n    hoard = []\n    while True:\n"
            "        hoard.append(bytearray(2**27))\nbomb()\n" + _answer(solved, "accumulate"))
    notebook = with_answer(with_answer(solved, "underflows", loop), "accumulate", bomb)
    done, results, _ = grade(archive, workdir, {f"{NAME}.ipynb": notebook},
                             limits={"cell_seconds": 2, "memory_bytes": 2**30})
    assert scored(results) == {"test_decode_float": 3.0, "test_underflows": 0.0,
                               "test_accumulate": 0.0}, done.stdout
    assert "ran past 2 s" in done.stdout  # the check table's reason, in the instructor's log


@pytest.mark.parametrize("files, says", [
    ({f"{NAME}.ipynb": b'{"cells": [ this is not JSON'}, "Not graded"),
    ({"a.ipynb": "PERFECT", "b.ipynb": "PERFECT"}, "2 notebooks"),
    ({}, "no notebook"),
    ({"homework.pdf": b"%PDF-1.4"}, "only homework.pdf"),
    # a name that is not UTF-8, with a terminal escape, markup and a right-to-left override:
    # escaped in results.json and in the log, shown as text
    ({"\udcff<b>\x1b[1m\u202e.ipynb": b"{"}, "Not graded: \\xff<b>\\x1b[1m\\u202e.ipynb"),
], ids=["malformed", "two-notebooks", "empty", "not-a-notebook", "hostile-name"])
def test_a_submission_that_cannot_be_graded_gets_one_failed_test(archive, workdir, files, says):
    files = {name: perfect_submission(NAME) if content == "PERFECT" else content
             for name, content in files.items()}
    _, results, _ = grade(archive, workdir, files)
    [test] = results["tests"]
    assert test["status"] == "failed" and test["visibility"] == "visible"
    assert test["score"] == 0 and test["max_score"] == MAX
    assert says in test["output"]


def test_student_text_is_escaped_before_it_reaches_results_json(tmp_path):
    """What an exception's message may hold (NUL, a lone surrogate, escapes, markup) is
    written as escapes, so that Gradescope stores and shows it as text."""
    from autograder.gradescope.run import write_once

    evil = "raised <img src=x onerror=alert(1)>: \x00\ud800\x1b[31m\u2066\x85\r"
    payload = report.submission_problem(evil, MAX, 1.0)
    write_once(tmp_path / "results.json", payload)
    raw = (tmp_path / "results.json").read_bytes()
    written = json.loads(raw.decode("utf-8", errors="strict"))
    jsonschema.validate(written, SCHEMA)
    assert not unsafe_text(written)
    assert written["tests"][0]["output"] == (
        "raised <img src=x onerror=alert(1)>: \\x00\\ud800\\x1b[31m\\u2066\\x85\\x0d")
    assert {written["output_format"], written["tests"][0]["output_format"]} == {"text"}


@pytest.mark.parametrize("visibility", ["after_published", "visible"])
def test_hidden_checks_wait_for_their_visibility_or_show_at_once(visibility):
    """A scored test with hidden checks takes --hidden-visibility; beside it, a visible test
    gives the visible checks' verdict, unless everything is visible already."""
    from autograder.protocol import Status
    from autograder.results import NotebookResult, TestResult

    result = NotebookResult("n.ipynb", NAME, [TestResult("a", 0.0, 2.0, Status.FAILED, "x"),
                                              TestResult("b", 1.0, 1.0, Status.PASSED, "y")])
    shown = {"a": TestResult("a", 2.0, 2.0, Status.PASSED, "visible ones pass")}
    payload = report.results_json(result, {"a": (False, True), "b": (False,)}, shown,
                                  visibility, 1.0)
    jsonschema.validate(payload, SCHEMA)
    names = {t["name"]: t["visibility"] for t in payload["tests"]}
    if visibility == "visible":
        assert names == {"a": "visible", "b": "visible"}
    else:
        assert names == {"a": "after_published", "a (visible checks)": "visible",
                         "b": "visible"}


def test_a_grader_crash_is_a_visible_grader_error_without_details(archive, workdir):
    root = unpack(archive, workdir)
    submit(root, {f"{NAME}.ipynb": perfect_submission(NAME)})
    (root / "source" / "key" / "key.json").write_text('{"format": 1, "checks": 7}')
    done, results = run_autograder(root)
    jsonschema.validate(results, SCHEMA)
    [test] = results["tests"]
    assert test["name"] == report.GRADER_ERROR_TEST and test["visibility"] == "visible"
    assert test["output"] == report.GRADER_ERROR_OUTPUT  # no traceback for students
    assert "Traceback" in done.stdout  # the instructor's log has it


def test_a_grader_that_dies_still_leaves_a_valid_results_json(archive, workdir):
    root = unpack(archive, workdir)
    submit(root, {f"{NAME}.ipynb": perfect_submission(NAME)})
    done, results = run_autograder(root, CS336_GRADER_PYTHON="/bin/false")
    jsonschema.validate(results, SCHEMA)
    assert results["tests"][0]["name"] == report.GRADER_ERROR_TEST
    assert results["tests"][0]["max_score"] == MAX
    assert "without writing" in done.stdout


def test_without_bubblewrap_submissions_run_as_an_unprivileged_user(archive, workdir):
    """As root, CS336_GRADER_WORKER=student skips bubblewrap (as in a container that cannot
    make namespaces): the worker runs as ``student`` or ``nobody``, and the key, results and
    submission are closed to it."""
    if os.geteuid() != 0:
        pytest.skip("switching users needs root")
    python = Path(os.path.realpath(sys.executable)).parent
    root = unpack(archive, workdir)
    exercise = "accumulate"
    key_file = root / "source" / "key" / "key.json"
    spy = ("import os\n"
           f"assert not os.access({str(key_file)!r}, os.R_OK), 'the key is readable'\n"
           f"assert not os.access({str(root / 'results')!r}, os.W_OK), 'results writable'\n"
           f"assert os.getuid() != 0\n")
    source = perfect_submission(NAME)
    answer = next(c.source for c in source.cells
                  if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == exercise)
    submit(root, {f"{NAME}.ipynb": with_answer(source, exercise, spy + answer)})
    command = ["bash", str(root / "source" / "run_autograder"), str(root)]
    # this Python may lie under a closed directory (say /root/.pyenv): in a private mount
    # namespace, a tmpfs open to all replaces the closed ancestor, holding only Python
    exposing = expose_script([python], workdir / "held")
    if exposing:
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                   f"set -e\n{exposing}\nexec \"$@\"", "sh", *command]
    env = {**os.environ, "CS336_GRADER_PYTHON": sys.executable,
           "CS336_GRADER_WORKER": "student"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, SCHEMA)
    assert "runs as the unprivileged user" in done.stdout, done.stdout + done.stderr
    assert sum(scored(results).values()) == MAX, done.stdout
    assert os.stat(key_file.parent).st_mode & 0o777 == 0o700

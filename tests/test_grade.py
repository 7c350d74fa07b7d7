"""`python -m autograder grade` on a small real course, against adversarial submissions.

One nbgrader course directory (source = notebook 01, a real gradebook) receives honest and
hostile submissions side by side; the real command grades them all in one batch with two
sandboxed workers. Each must score exactly what it deserves, with a clear status, and the
honest ones must not be affected. Attacks are placed in the `tensor_bytes` exercise (1 point
of FULL = 7); a submission is otherwise the instructor's solution, so it deserves FULL, or
FULL - 1 when the attack breaks that one exercise.

Probes for isolation are written so that the answer is right only if the attack FAILS: e.g.
tensor_bytes is correct only if the gradebook could not be opened. A full score proves it.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from html import escape as html_escape
from pathlib import Path

import nbformat
import pytest
from support.nbgrader_course import Course
from support.submissions import perfect_submission, with_answer

from autograder.cli import NOT_ALL_GRADED
from autograder.course import RELEASE, instructor_notebook
from autograder.notebook import grade_id as grade_id_of
from autograder.sandbox import sandbox_available
from autograder.spec import load_spec
from autograder.translate.build import translate_notebook
from lecture_utils.i18n import tr

AVAILABLE, WHY = sandbox_available()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox here: {WHY}")]
A = "01_tensors_and_memory"
# tensor_bytes 1 + bytes_for 2 + storage_bytes 2 + adamw_bytes_per_param 2
FULL = 7
ZH = "zh-CN"
CORRECT = "def tensor_bytes(x):\n    return x.numel() * x.element_size()\n"
WRONG = "def tensor_bytes(x):\n    return x.numel()\n"


def _correct_unless(condition: str) -> str:
    """A tensor_bytes that is right only if ``condition`` (an attack's success) is False."""
    return (f"def tensor_bytes(x):\n    if {condition}:\n        return -1\n"
            "    return x.numel() * x.element_size()\n")


def _probe(code: str) -> str:
    """Run ``code``; tensor_bytes is right only if it raised (the attack was blocked)."""
    body = "\n".join("        " + line for line in code.splitlines())
    return ("def _attack_worked():\n    try:\n" + body + "\n    except Exception:\n"
            "        return False\n    return True\n\n" + _correct_unless("_attack_worked()"))


def _solution() -> nbformat.NotebookNode:
    return perfect_submission(A)


def _cell(notebook, grade_id):
    return next(c for c in notebook.cells if grade_id_of(c) == grade_id)


def _with_tensor_bytes(source: str) -> nbformat.NotebookNode:
    return with_answer(_solution(), "tensor_bytes", source)


def _in_chinese(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return translate_notebook(notebook, ZH, A)[0]


def _edited_test() -> nbformat.NotebookNode:
    return with_answer(_with_tensor_bytes(WRONG), "test_tensor_bytes", "check([])")


def _deleted_test() -> nbformat.NotebookNode:
    notebook = _solution()
    notebook.cells.remove(_cell(notebook, "test_bytes_for"))
    return notebook


def _duplicated_test_cell() -> nbformat.NotebookNode:
    notebook = _solution()
    test = _cell(notebook, "test_storage_bytes")
    notebook.cells.insert(notebook.cells.index(test), copy.deepcopy(test))
    return notebook


def _duplicated_ids_json() -> str:
    """Two different cells with one id (nbformat.write would repair that, so raw JSON)."""
    notebook = _solution()
    _cell(notebook, "storage_bytes").id = _cell(notebook, "test_storage_bytes").id
    return json.dumps(notebook)


def _oversized_json() -> str:
    """A right answer, saved with 65 MiB of printed output: over the grader's size cap."""
    notebook = _solution()
    _cell(notebook, "tensor_bytes").outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="x" * (65 * 2**20))]
    return json.dumps(notebook)


HOOK = ("get_ipython().input_transformers_post.append(\n"
        "    lambda lines: [l.replace('assert ', 'pass  # ') for l in lines])\n")
PATCHES = ("import builtins, math, torch\n"
           "torch.allclose = lambda *a, **k: True\n"
           "torch.Tensor.__eq__ = lambda *a, **k: True\n"
           "math.isclose = lambda *a, **k: True\n"
           "builtins.abs = lambda x: 0\n")

# student → (what they hand in, expected score, expected status)
SUBMISSIONS = {
    "honest-1": (_solution, FULL, "graded"),
    "honest-2": (_solution, FULL, "graded"),
    "untouched": (lambda: nbformat.read(RELEASE / A / f"{A}.ipynb", as_version=4), 0, "graded"),
    "wrong": (lambda: _with_tensor_bytes(WRONG), FULL - 1, "graded"),
    # the same answer in the Chinese edition, graded in the same run: same score, and its
    # feedback in Chinese
    "wrong-zh-CN": (lambda: _in_chinese(_with_tensor_bytes(WRONG)), FULL - 1, "graded"),
    "infinite-loop": (lambda: _with_tensor_bytes("while True:\n    pass\n" + CORRECT),
                      FULL - 1, "timeout"),
    "slow-answer": (lambda: _with_tensor_bytes(
        "def tensor_bytes(x):\n    while True:\n        pass\n"), FULL - 1, "timeout"),
    # the bomb's memory is freed when its MemoryError unwinds, so only this cell breaks
    "memory-bomb": (lambda: _with_tensor_bytes(
        "def bomb():\n    hoard = []\n    while True:\n        hoard.append(bytearray(2**28))\n"
        "bomb()\n" + CORRECT), FULL - 1, "out of memory"),
    # copies of the student's process could forge results, so nothing of it is trusted
    "fork-bomb": (lambda: _with_tensor_bytes(
        "import os\nwhile True:\n    os.fork()\n" + CORRECT), 0, "crashed"),
    "huge-output": (lambda: _with_tensor_bytes(
        "import matplotlib.pyplot as plt\nfrom IPython.display import display\n"
        "for _ in range(20):\n    plt.figure(figsize=(40, 40)); plt.plot(range(10**5))\n"
        "    display(plt.gcf()); plt.close('all')\n"
        "print('x' * 50_000_000)\n" + CORRECT), FULL, "graded"),
    "sys-exit": (lambda: _with_tensor_bytes("import sys\nsys.exit(0)\n" + CORRECT),
                 FULL - 1, "graded"),
    "os-exit": (lambda: _with_tensor_bytes("import os\nos._exit(0)\n" + CORRECT), 0, "crashed"),
    "segfault": (lambda: _with_tensor_bytes("import ctypes\nctypes.string_at(0)\n" + CORRECT),
                 0, "crashed"),
    "reads-answer-key": (lambda: _with_tensor_bytes(_probe(
        f"open({str(instructor_notebook(A))!r}).read()")), FULL, "graded"),
    "reads-gradebook": (lambda: _with_tensor_bytes(_probe(
        "open(COURSE + '/gradebook.db', 'rb').read()")), FULL, "graded"),
    "reads-other-student": (lambda: _with_tensor_bytes(_probe(
        "open(COURSE + '/submitted/honest-1/" + A + "/" + A + ".ipynb').read()")),
                            FULL, "graded"),
    "network": (lambda: _with_tensor_bytes(_probe(
        "import socket\nsocket.create_connection(('127.0.0.1', PORT), timeout=2).close()")),
                FULL, "graded"),
    "assert-hook": (lambda: _with_tensor_bytes(HOOK + WRONG), FULL - 1, "graded"),
    "monkeypatches": (lambda: _with_tensor_bytes(PATCHES + WRONG), FULL - 1, "graded"),
    "grading-env": (lambda: _with_tensor_bytes(_correct_unless(
        "__import__('os').environ.get('NBGRADER_EXECUTION') is not None")), FULL, "graded"),
    "edited-test": (_edited_test, FULL - 1, "tampered"),
    "deleted-test": (_deleted_test, FULL - 2, "tampered"),
    "duplicated-test-cell": (_duplicated_test_cell, FULL - 2, "tampered"),
    "torch-warning": (lambda: _with_tensor_bytes(
        "import warnings\nwarnings.warn('a harmless warning', UserWarning)\n"
        "torch.tensor([1.0]).storage()  # torch's own TypedStorage UserWarning\n" + CORRECT),
                      FULL, "graded"),
}
RAW_FILES = {  # student → (file content, file name): written byte for byte
    "truncated-json": (None, f"{A}.ipynb"),
    "empty-notebook": (json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                   "nbformat_minor": 5}), f"{A}.ipynb"),
    "empty-file": ("", f"{A}.ipynb"),
    "wrong-name": (None, "my_homework.ipynb"),
    "duplicated-ids": (_duplicated_ids_json, f"{A}.ipynb"),
    "oversized": (_oversized_json, f"{A}.ipynb"),
}
RAW_EXPECTED = {
    "truncated-json": (0, "invalid notebook"),
    "empty-notebook": (0, "invalid notebook"),
    "empty-file": (0, "invalid notebook"),
    "wrong-name": (FULL, "graded"),
    "duplicated-ids": (FULL - 2, "tampered"),
    "oversized": (0, "invalid notebook"),
    "link-to-answer-key": (0, "invalid notebook"),
}
# A symbolic link in place of the notebook: the grader could read what it points at.
LINKS = {"link-to-answer-key": f"source/{A}/{A}.ipynb"}


def expected_status(student: str, record: dict) -> str | None:
    """The status ``SUBMISSIONS`` gives ``student``, except that the memory bomb may time out:
    touching 2 GiB takes ~0.8 s on an idle machine but has run past 10 s on a loaded CI
    machine. What grading must show is that the bomb costs only its exercise; that a bomb is
    reported as out of memory is asserted in test_sandbox.py."""
    if student == "memory-bomb" and record["status"] == "timeout":
        return "timeout"
    return SUBMISSIONS[student][2]


# The cell limit is far above what any honest cell needs even on a loaded 2-core CI machine:
# at 3 s, the memory bomb (touching 2 GiB, ~0.8 s when idle) once ran out of time before it
# ran out of memory on CI, and scored "timeout" instead of "out of memory".
CELL_TIMEOUT = 10


def _grade(course: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "grade", A, f"--course={course}", "--jobs=2",
         f"--cell-timeout={CELL_TIMEOUT}", "--timeout=60", "--memory-gb=2", "--no-progress",
         *extra],
        capture_output=True, text=True, timeout=900, env=env or os.environ.copy())


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grade-course")
    course = Course(root)
    course.add_assignment(A)
    listener = __import__("socket").socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    for student, (make, _, _) in SUBMISSIONS.items():
        notebook = make()
        for cell in notebook.cells:  # let probes name the real course path and port
            cell.source = cell.source.replace("COURSE", repr(str(root))).replace(
                "PORT", str(port))
        course.submit(student, A, notebook)
    solution_text = json.dumps(_solution())
    for student, (content, name) in RAW_FILES.items():
        folder = root / "submitted" / student / A
        folder.mkdir(parents=True)
        if callable(content):
            content = content()
        elif content is None:
            content = solution_text[: len(solution_text) // 2] if student == "truncated-json" \
                else solution_text
        (folder / name).write_text(content)
    for student, target in LINKS.items():
        folder = root / "submitted" / student / A
        folder.mkdir(parents=True)
        (folder / f"{A}.ipynb").symlink_to(root / target)
    env = dict(os.environ, NBGRADER_EXECUTION="autograde")
    run = _grade(root, env=env)
    listener.close()
    records = {p.stem: json.loads(p.read_text()) for p in (root / "grades" / A).glob("*.json")}
    return root, run, records


INVALID = sorted(s for s, (_, status) in RAW_EXPECTED.items() if status == "invalid notebook")


def test_the_batch_completes_and_says_who_has_no_grade(graded):
    _, run, records = graded
    assert set(records) == set(SUBMISSIONS) | set(RAW_FILES) | set(LINKS)
    # exit status 3: some submissions have no final grade, each named on stderr
    assert run.returncode == NOT_ALL_GRADED, run.stderr[-3000:]
    assert f"{len(INVALID)} submission(s) have no final grade" in run.stderr
    for student in INVALID:
        assert f'"{student}": invalid notebook' in run.stderr
    assert '"honest-1"' not in run.stderr


@pytest.mark.parametrize("student", [*SUBMISSIONS, *RAW_FILES, *LINKS])
def test_each_submission_scores_what_it_deserves(graded, student):
    _, _, records = graded
    score, status = (SUBMISSIONS[student][1:] if student in SUBMISSIONS
                     else RAW_EXPECTED[student])
    record = records[student]
    summary = f"{student}: {record['status']} {record['message']}\n" + "\n".join(
        f"  {t['grade_id']} {t['points']}/{t['max_points']} {t['status']}: {t['message'][:300]}"
        for t in record["tests"])
    assert record["score"] == score, summary
    assert record["max_score"] == FULL
    if student in SUBMISSIONS:
        status = expected_status(student, record)
    if status is not None:
        assert record["status"] == status, summary
    else:
        assert record["status"] != "graded", summary


def test_tampering_and_invalid_files_are_explained(graded):
    _, _, records = graded
    edited = {t["grade_id"]: t for t in records["edited-test"]["tests"]}["test_tensor_bytes"]
    assert edited["status"] == "tampered" and "edited" in edited["message"]
    deleted = {t["grade_id"]: t for t in records["deleted-test"]["tests"]}["test_bytes_for"]
    assert "deleted" in deleted["message"]
    assert "not valid notebook JSON" in records["truncated-json"]["message"]
    assert "empty" in records["empty-notebook"]["message"]
    assert "should be named" in records["wrong-name"]["message"]
    assert "over the 32 MiB" in records["oversized"]["message"]
    assert "Clear Outputs" in records["oversized"]["message"]
    assert "symbolic link" in records["link-to-answer-key"]["message"]


def test_scores_are_in_the_gradebook_and_the_csv(graded):
    root, _, records = graded
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student, record in records.items():
            submission = gradebook.find_submission(A, student)
            assert submission.score == record["score"], student
    with (root / "grades" / f"{A}.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["student"] for r in rows) == sorted(records)
    by_student = {r["student"]: r for r in rows}
    assert float(by_student["wrong"]["test_tensor_bytes"]) == 0
    assert float(by_student["wrong"]["test_bytes_for"]) == 2


def test_feedback_shows_messages_but_no_hidden_tests(graded):
    root, _, _ = graded
    course = Course.__new__(Course)
    course.root = root
    course.nbgrader("generate_feedback", A)
    html = (root / "feedback" / "wrong" / A / f"{A}.html").read_text()
    assert "tensor_bytes(torch.zeros(4, 8)) returned 32: elements, not bytes" in html  # a hint
    assert "BEGIN HIDDEN TESTS" not in html and "hidden check" in html
    spec = load_spec(instructor_notebook(A))
    hidden = [case.call for check in spec.checks.values()
              for case, is_hidden in zip(check.cases, check.hidden) if is_hidden]
    assert hidden
    for call in hidden:
        assert html_escape(call) not in html and call not in html, call
    chinese = (root / "feedback" / "wrong-zh-CN" / A / f"{A}.html").read_text()
    hint = tr("elements, not bytes", ZH)
    assert hint != "elements, not bytes"
    assert f"tensor_bytes(torch.zeros(4, 8)) 返回了 32：{hint}" in chinese
    assert "隐藏检查" in chinese and "hidden check" not in chinese
    for call in hidden:
        assert html_escape(call) not in chinese and call not in chinese, call


# Those that wait out a limit (most of a batch's minute): regraded, they would only repeat it.
SLOW = ("infinite-loop", "slow-answer", "memory-bomb", "fork-bomb", "huge-output")


def test_rerun_skips_finished_work_and_regrade_is_identical(graded, tmp_path):
    root, _, records = graded
    again = _grade(root)
    assert again.returncode == NOT_ALL_GRADED  # the invalid ones are still without a grade
    assert f"{len(records)} already graded and unchanged" in again.stdout
    # regraded in a copy of the course without the slow ones (the fixture's stays as it is)
    copy = tmp_path / "course"
    shutil.copytree(root, copy, symlinks=True)
    (copy / "nbgrader_config.py").write_text(
        (root / "nbgrader_config.py").read_text().replace(repr(str(root)), repr(str(copy))))
    for student in SLOW:
        shutil.rmtree(copy / "submitted" / student)
    regrade = _grade(copy, "--regrade")
    assert regrade.returncode == NOT_ALL_GRADED, regrade.stderr[-2000:]
    assert f"graded {len(records) - len(SLOW)} submission(s)" in regrade.stdout
    for student, record in records.items():
        if student not in SLOW:
            now = json.loads((copy / "grades" / A / f"{student}.json").read_text())
            assert now["score"] == record["score"], student


def test_interrupted_run_resumes_without_losing_or_duplicating_scores(tmp_path):
    course = Course(tmp_path / "course")
    course.add_assignment(A)
    slow = _with_tensor_bytes("import time\ntime.sleep(2)\n" + CORRECT)
    students = {f"s{i}": (slow if i % 2 else _solution(), FULL) for i in range(6)}
    students["s5"] = (_with_tensor_bytes(WRONG), FULL - 1)
    for student, (notebook, _) in students.items():
        course.submit(student, A, notebook)
    records = course.root / "grades" / A

    command = [sys.executable, "-m", "autograder", "grade", A, f"--course={course.root}",
               "--jobs=1", "--no-progress"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(records.glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    first.send_signal(signal.SIGINT)  # Ctrl-C, mid-batch
    _, err = first.communicate(timeout=120)
    assert first.returncode == 130, err
    assert "rerun the same command" in err
    done_before = {p.stem for p in records.glob("*.json")}
    assert 0 < len(done_before) < len(students)

    second = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert f"{len(done_before)} already graded and unchanged" in second.stdout
    assert f"graded {len(students) - len(done_before)} submission(s)" in second.stdout

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}") as gradebook:
        submissions = gradebook.assignment_submissions(A)
        assert sorted(s.student.id for s in submissions) == sorted(students)
        for submission in submissions:
            assert submission.score == students[submission.student.id][1]
    with (course.root / "grades" / f"{A}.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["student"] for r in rows) == sorted(students)

"""`python -m autograder grade` started by an ordinary user, as on a university server.

An ordinary user's grader runs one unprivileged bubblewrap per worker (as root it runs two and
drops to a per-slot uid; `test_grade.py` covers that). This test, run as root, switches to
`nobody` to exercise the ordinary path for real: a fork bomb must stay contained by
RLIMIT_NPROC in the user namespace, a loop and a memory bomb must cost only their exercise,
and the gradebook and another student's work must stay out of reach.

Where the Python installation or the checkout lies under a directory other users cannot enter
(say `/root/.pyenv`), a private mount namespace makes just those paths reachable for `nobody`;
nothing changes for the rest of the machine.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.mounts import ClosedPath, expose_script
from support.nbgrader_course import Course
from test_grade import SUBMISSIONS, A, expected_status

from autograder.course import REPO
from autograder.sandbox import sandbox_available

NOBODY = 65534
# test_grade.py's attacks whose outcome depends on who grades (plus an honest one to read)
SAME_ATTACKS = ["honest-1", "infinite-loop", "memory-bomb", "fork-bomb", "reads-gradebook",
                "reads-other-student"]
AVAILABLE, WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="switches users, so it needs root; as an "
                       "ordinary user, test_grade.py already runs this unprivileged path"),
    pytest.mark.skipif(not (shutil.which("unshare") and shutil.which("setpriv")),
                       reason="needs util-linux's unshare and setpriv"),
    pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox here: {WHY}"),
]


@pytest.fixture(scope="module")
def graded():
    work = Path(tempfile.mkdtemp(prefix="unprivileged-grade-", dir="/tmp"))
    try:
        course = Course(work / "course")
        course.add_assignment(A)
        for student in SAME_ATTACKS:
            notebook = SUBMISSIONS[student][0]()
            for cell in notebook.cells:  # the probes name the real course path
                cell.source = cell.source.replace("COURSE", repr(str(course.root)))
            course.submit(student, A, notebook)
        home = work / "home"
        home.mkdir()
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(course.root), str(home)],
                       check=True)
        work.chmod(0o755)

        python = Path(sys.executable)
        needed = [Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), REPO]
        try:
            exposing = expose_script(needed, work / "hold")
        except ClosedPath as closed:
            pytest.skip(str(closed))
        grade = [str(python), "-m", "autograder", "grade", A, f"--course={course.root}",
                 "--jobs=2", "--cell-timeout=10", "--memory-gb=2", "--no-progress"]
        script = "\n".join([
            "set -e",
            exposing,
            f"cd {shlex.quote(str(REPO))}",
            f"exec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups -- "
            f"env -i PATH=/usr/bin:/bin HOME={home} " + shlex.join(grade),
        ])
        run = subprocess.run(["unshare", "--mount", "--propagation", "private",
                              "bash", "-c", script],
                             capture_output=True, text=True, timeout=600)
        records = {p.stem: json.loads(p.read_text())
                   for p in (course.root / "grades" / A).glob("*.json")}
        # Zombies do not count: an exited sandbox process whose parent (bubblewrap) is gone
        # waits for the machine's init to reap it, holding nothing but a process-table entry.
        left = subprocess.run(["ps", "-u", str(NOBODY), "-o", "pid=,stat=,args="],
                              capture_output=True, text=True)
        alive = [line for line in left.stdout.splitlines() if line.split()[1][0] != "Z"]
        yield run, records, alive
    finally:
        subprocess.run(["pkill", "-KILL", "-u", str(NOBODY)], check=False)
        shutil.rmtree(work, ignore_errors=True)


def test_an_ordinary_user_grades_the_batch(graded):
    run, records, _ = graded
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert set(records) == set(SAME_ATTACKS)


@pytest.mark.parametrize("student", SAME_ATTACKS)
def test_each_submission_scores_what_it_deserves(graded, student):
    _, records, _ = graded
    score = SUBMISSIONS[student][1]
    record = records[student]
    summary = f"{student}: {record['status']} {record['message']}\n" + "\n".join(
        f"  {t['grade_id']} {t['points']}/{t['max_points']}: {t['message'][:300]}"
        for t in record["tests"])
    assert (record["score"], record["status"]) == (score, expected_status(student, record)), \
        summary


def test_nothing_of_the_submissions_outlives_the_run(graded):
    _, _, leftovers = graded
    assert leftovers == []

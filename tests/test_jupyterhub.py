"""The whole course on a real JupyterHub (deploy/jupyterhub/), on 127.0.0.1, with real Unix
users made for the test: an instructor, the grader account, and three students.

The instructor generates and releases through formgrader (a hub service run as the grader
account); each student's server fetches, saves work (right, wrong, hostile) and submits
through nbgrader's own server extension, as that student; the instructor collects, the grader
account grades with ``python -m autograder grade`` (sandboxed), the instructor releases
feedback, and each student fetches exactly their own. Then, as student bob, every way at
another's submission or feedback we know of, against the closed exchange; and the same
attacks against nbgrader's default exchange, whose leaks are measured (docs/jupyterhub.md).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from support.hub import COURSE, DEPLOY, CourseHub, course_hub, python_as, run_as
from test_grade import WRONG, A, _solution, _with_tensor_bytes

from autograder.course import REPO
from autograder.sandbox import sandbox_available

FULL = 7
AVAILABLE, WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="makes Unix users and starts servers as "
                       "them, which needs root"),
    pytest.mark.skipif(not (shutil.which("unshare") and shutil.which("setpriv")
                            and shutil.which("useradd")),
                       reason="needs util-linux's unshare and setpriv, and useradd"),
    pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox for the grader here: {WHY}"),
]
# A student's notebook that, when graded, tries the grader's gradebook and home: right only
# if both attempts failed.
HOSTILE = textwrap.dedent("""\
    def _reached(path, mode):
        try:
            open(path, mode).close()
        except OSError:
            return False
        return True
    REACHED = _reached(COURSE + '/gradebook.db', 'rb') or _reached(HOME + '/pwned', 'a')
    def tensor_bytes(x):
        if REACHED:
            return -1
        return x.numel() * x.element_size()
    """)


@pytest.fixture(scope="module")
def course():
    with course_hub(A) as run:
        _course_through_the_hub(run)
        run.facts["default"] = _measure_default_exchange(run)
        yield run


def _formgrader(run: CourseHub, action: str) -> dict:
    return run.formgrader(action, A)


def _student(run: CourseHub, name: str, action: str) -> object:
    return run.hub.json(f"/user/{name}/assignments/{action}", run.tokens[name], "POST",
                        {"course_id": COURSE, "assignment_id": A})


def _work(run: CourseHub) -> dict[str, nbformat.NotebookNode]:
    home = str(Path(os.path.expanduser(f"~{run.grader}")))
    hostile = HOSTILE.replace("COURSE +", f"{str(run.root)!r} +").replace("HOME +",
                                                                          f"{home!r} +")
    return {run.students["alice"]: _solution(),
            run.students["bob"]: _with_tensor_bytes(WRONG),
            run.students["carol"]: _with_tensor_bytes(hostile)}


def _course_through_the_hub(run: CourseHub) -> None:
    facts = run.facts
    _formgrader(run, "assign")
    _formgrader(run, "release")
    answers = _work(run)
    for name, notebook in answers.items():
        _student(run, name, "fetch")
        run.hub.json(f"/user/{name}/api/contents/{A}/{A}.ipynb", run.tokens[name], "PUT",
                     {"type": "notebook", "format": "json", "content": notebook})
        _student(run, name, "submit")
    inbound = run.exchange / COURSE / "inbound"
    facts["inbound"] = sorted(os.listdir(inbound))
    alice, bob = run.students["alice"], run.students["bob"]
    facts["alice_entry"] = next(n for n in facts["inbound"] if n.startswith(alice + "+"))
    facts["bob_attacks"] = python_as(bob, _ATTACKS.format(
        inbound=str(inbound), entry=facts["alice_entry"], victim=alice, attacker=bob,
        assignment=A,
        root=str(run.exchange), course=COURSE, grader_course=str(run.root),
        alice_home=os.path.expanduser(f"~{alice}")), run.hold, run.work)
    facts["answer_key"] = python_as(alice, _ANSWER_KEY.format(
        paths=_answer_key_paths(run), repo=str(REPO),
        notebook=os.path.join(os.path.expanduser(f"~{alice}"), A, f"{A}.ipynb")),
        run.hold, run.work)
    facts["collect"] = _formgrader(run, "collect")
    facts["collected_alice"] = (run.root / "submitted" / alice / A / f"{A}.ipynb").read_text()
    facts["inbound_after_collect"] = sorted(os.listdir(inbound))
    grade = run_as(run.grader, [sys.executable, "-m", "autograder", "grade", A, "--course=.",
                                "--jobs=2", "--cell-timeout=10", "--timeout=60",
                                "--memory-gb=2", "--no-progress"],
                   run.hold, run.root, env={"JUPYTER_CONFIG_PATH": str(DEPLOY / "grader"),
                                            **run.env})
    facts["grade"] = grade
    facts["records"] = {p.stem: json.loads(p.read_text())
                        for p in (run.root / "grades" / A).glob("*.json")}
    _generate_and_release_feedback(run)
    facts["feedback"] = {}
    for name in run.students.values():
        _student(run, name, "fetch_feedback")
        folder = Path(os.path.expanduser(f"~{name}")) / A / "feedback"
        facts["feedback"][name] = [_text(p.read_text()) for p in sorted(folder.glob("*/*.html"))]
    facts["bob_after"] = python_as(bob, _AFTER.format(
        feedback=str(run.exchange / COURSE / "feedback"),
        names=sorted(os.listdir(run.exchange / COURSE / "feedback"))), run.hold, run.work)
    status, _, headers = run.hub.request(f"/services/{COURSE}/formgrader/",
                                         run.tokens[bob])
    facts["bob_formgrader"] = status
    # the token in bob's own server's environment (his notebook can read it)
    token = _server_token(bob)
    facts["bob_server_token"] = {
        "formgrader": run.hub.request(f"/services/{COURSE}/formgrader/", token)[0],
        "alice_server": run.hub.request(f"/user/{alice}/api/contents", token)[0],
        "alice_model": run.hub.request(f"/hub/api/users/{alice}", token)[0],
        "own_server": run.hub.request(f"/user/{bob}/api/contents", token)[0]}
    status, _, headers = run.hub.request(f"/services/{COURSE}/formgrader/",
                                         run.tokens[run.instructor])
    facts["instructor_formgrader"] = (status, headers.get("Content-Security-Policy", ""))


def _server_token(user: str) -> str:
    """JUPYTERHUB_API_TOKEN of ``user``'s running single-user server."""
    found = subprocess.run(["pgrep", "-u", user, "-f", "jupyterhub-singleuser"],
                           capture_output=True, text=True, check=True).stdout.split()
    environ = Path(f"/proc/{found[0]}/environ").read_bytes().split(b"\0")
    return next(v.split(b"=", 1)[1].decode() for v in environ
                if v.startswith(b"JUPYTERHUB_API_TOKEN="))


def _measure_default_exchange(run: CourseHub) -> dict:
    """The same students on nbgrader's default exchange (its own root, ``0777`` as nbgrader
    makes it, and a copy of the course for the grader): what bob gets at alice's work."""
    exchange = run.work / "exchange-default"
    exchange.mkdir()
    exchange.chmod(0o777)
    course = Path(os.path.expanduser(f"~{run.grader}")) / "default-course"
    shutil.copytree(run.root, course, ignore=shutil.ignore_patterns(
        "submitted", "autograded", "feedback", "grades"))
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text().replace(str(run.root), str(course)))
    subprocess.run(["chown", "-R", f"{run.grader}:{run.grader}", str(course)], check=True)
    stock = [sys.executable, "-m", "nbgrader"]
    flags = [f"--Exchange.root={exchange}", f"--course={COURSE}"]

    def ok(user: str, argv: list[str], cwd: Path) -> None:
        done = run_as(user, argv, run.hold, cwd)
        assert done.returncode == 0, f"{argv}: {done.stderr[-2000:]}"

    alice, bob = run.students["alice"], run.students["bob"]
    ok(run.grader, [*stock, "release_assignment", A, *flags], course)
    desk = Path(os.path.expanduser(f"~{alice}")) / "default"
    ok(alice, ["mkdir", "-p", str(desk)], Path("/"))
    ok(alice, [*stock, "fetch_assignment", A, *flags], desk)
    ok(alice, ["sh", "-c", f"echo ALICE-WORK > {A}/answers.txt"], desk)
    ok(alice, [*stock, "submit", A, *flags], desk)
    inbound = exchange / COURSE / "inbound"
    entry = next(n for n in os.listdir(inbound) if n.startswith(alice + "+"))
    measured = python_as(bob, _DEFAULT_BEFORE.format(inbound=str(inbound), victim=alice,
                                                     assignment=A, entry=entry),
                         run.hold, run.work)
    ok(run.grader, [*stock, "collect", A, *flags], course)
    collected = course / "submitted" / alice / A / f"{A}.ipynb"
    measured["forged_collected"] = "FORGED BY BOB" in collected.read_text()
    python_as(bob, _LOCKED.format(inbound=str(inbound), attacker=bob, assignment=A),
              run.hold, run.work)
    again = run_as(run.grader, [*stock, "collect", A, *flags], run.hold, course)
    measured["collect_after_unreadable"] = again.returncode == 0
    measured.update(python_as(bob, _HIJACK.format(root=str(exchange), course=COURSE),
                              run.hold, run.work))
    ok(alice, [*stock, "submit", A, *flags], desk)  # alice hands in again
    measured.update(python_as(bob, _READ_PLANTED.format(inbound=str(inbound), victim=alice,
                                                        assignment=A), run.hold, run.work))
    return measured


_DEFAULT_BEFORE = """
import json, os
out = {{}}
try:
    out["list_inbound"] = len(os.listdir({inbound!r}))
except OSError as error:
    out["list_inbound"] = type(error).__name__
# given the name of alice's submission (as if it had leaked): read it, and write into it
mine = os.path.join({inbound!r}, {entry!r})
out["read_named"] = open(os.path.join(mine, "answers.txt")).read().strip()
with open(os.path.join(mine, "bob.txt"), "w") as f:
    f.write("BOB WAS HERE")
os.replace(os.path.join(mine, "bob.txt"), os.path.join(mine, "answers.txt"))
out["write_named"] = open(os.path.join(mine, "answers.txt")).read() == "BOB WAS HERE"
fake = os.path.join({inbound!r}, {victim!r} + "+" + {assignment!r}
                    + "+2099-01-01 00:00:00.000000 UTC+forged")
os.mkdir(fake)
with open(os.path.join(fake, {assignment!r} + ".ipynb"), "w") as f:
    f.write('{{"cells": [], "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5, '
            '"note": "FORGED BY BOB"}}')
print(json.dumps(out))
"""

# a submission of bob's own that nobody else can read
_LOCKED = """
import json, os
locked = os.path.join({inbound!r}, {attacker!r} + "+" + {assignment!r}
                      + "+2099-01-01 00:00:00.000000 UTC+locked")
os.mkdir(locked, 0o700)
open(os.path.join(locked, {assignment!r} + ".ipynb"), "w").close()
print(json.dumps({{}}))
"""

# The root is writable by all and not sticky: bob moves the course away and plants his own,
# with the released assignment copied back so that nothing looks amiss.
_HIJACK = """
import json, os, shutil
course = os.path.join({root!r}, {course!r})
os.rename(course, os.path.join({root!r}, ".moved"))
os.makedirs(os.path.join(course, "inbound"))
os.chmod(os.path.join(course, "inbound"), 0o777)
shutil.copytree(os.path.join({root!r}, ".moved", "outbound"), os.path.join(course, "outbound"))
print(json.dumps({{"hijacked": True}}))
"""

_READ_PLANTED = """
import glob, json, os
found = glob.glob(os.path.join({inbound!r}, {victim!r} + "+" + {assignment!r} + "+*"))
text = open(os.path.join(found[0], "answers.txt")).read() if found else ""
print(json.dumps({{"listed_after_hijack": len(found), "read_after_hijack": text.strip()}}))
"""


def _answer_key_paths(run: CourseHub) -> dict[str, str]:
    """Where the answer key lies on the hub: in the hub's checkout (the course environment,
    closed by deploy/jupyterhub/close-checkout.sh) and in the grader's course."""
    return {"solutions": str(REPO / "solutions" / A / f"{A}.ipynb"),
            "solutions_folder": str(REPO / "solutions"),
            "git_head": str(REPO / ".git" / "HEAD"),
            "git_objects": str(REPO / ".git" / "objects"),
            "test_answers": str(REPO / "tests" / "answers" / f"{A}.py"),
            "checkout": str(REPO),
            "grader_source": str(run.root / "source" / A / f"{A}.ipynb"),
            "grader_gradebook": str(run.root / "gradebook.db")}


# As a student: every copy of the answer key is out of reach, the course environment imports,
# and the self-check says that it cannot check here.
_ANSWER_KEY = """
import json, os, subprocess, sys
out = {{}}
for key, path in {paths!r}.items():
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            open(path, "rb").close()
        out[key] = True
    except OSError as error:
        out[key] = type(error).__name__
import autograder, lecture_utils
out["imported"] = [lecture_utils.__file__, autograder.__file__]
check = subprocess.run([sys.executable, "-m", "autograder", "check", {notebook!r}],
                       capture_output=True, text=True, cwd={repo!r})
out["check"] = [check.returncode, check.stdout + check.stderr]
print(json.dumps(out))
"""


def _text(page: str) -> str:
    """A feedback page's text (its code is split into highlighted spans)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _generate_and_release_feedback(run: CourseHub) -> None:
    # (python -m autograder grade keeps each submission's submission_secret.txt beside its
    # autograded notebook: release_feedback names the feedback by it)
    _formgrader(run, "generate_feedback")
    _formgrader(run, "release_feedback")


# As bob, at alice's submission (whose name this is given, as if it had leaked) and at the
# exchange; each attempt records whether it worked.
_ATTACKS = """
import json, os, shutil
inbound, entry = {inbound!r}, {entry!r}
mine = os.path.join(inbound, entry)
out = {{}}
def attempt(key, action):
    try:
        action()
        out[key] = True
    except OSError as error:
        out[key] = type(error).__name__
attempt("list_inbound", lambda: os.listdir(inbound))
attempt("read_submission", lambda: open(os.path.join(mine, {assignment!r} + ".ipynb")).read())
attempt("read_secret", lambda: open(os.path.join(mine, "submission_secret.txt")).read())
attempt("list_submission", lambda: os.listdir(mine))
attempt("write_into_submission", lambda: open(os.path.join(mine, "x.txt"), "w").close())
attempt("rename_submission", lambda: os.rename(mine, mine + "-gone"))
attempt("delete_submission", lambda: shutil.rmtree(mine))
attempt("rename_course", lambda: os.rename(os.path.join({root!r}, {course!r}),
                                           os.path.join({root!r}, "moved")))
attempt("plant_in_root", lambda: os.mkdir(os.path.join({root!r}, "planted")))
attempt("replace_release", lambda: open(os.path.join({root!r}, {course!r}, "outbound",
                                        {assignment!r}, {assignment!r} + ".ipynb"), "a").close())
attempt("plant_in_outbound", lambda: os.mkdir(os.path.join({root!r}, {course!r}, "outbound",
                                                          "planted")))
attempt("read_grader_course", lambda: os.listdir({grader_course!r}))
attempt("read_alice_home", lambda: os.listdir({alice_home!r}))
def forge():
    fake = os.path.join(inbound, {victim!r} + "+" + {assignment!r}
                        + "+2099-01-01 00:00:00.000000 UTC+forged")
    os.mkdir(fake)
    with open(os.path.join(fake, {assignment!r} + ".ipynb"), "w") as f:
        f.write("FORGED BY BOB")
attempt("forge_in_victims_name", forge)
def lock_own():  # a submission of bob's own that the grader cannot read
    locked = os.path.join(inbound, {attacker!r} + "+" + {assignment!r}
                          + "+2099-01-01 00:00:00.000000 UTC+locked")
    os.mkdir(locked, 0o700)
    open(os.path.join(locked, {assignment!r} + ".ipynb"), "w").close()
attempt("hand_in_unreadable", lock_own)
def hand_in(stamp, secret, notebook):  # a latest submission of bob's own, built by hand
    folder = os.path.join(inbound, {attacker!r} + "+" + {assignment!r} + "+" + stamp)
    os.mkdir(folder)
    with open(os.path.join(folder, "submission_secret.txt"), "w") as f:
        f.write(secret)
    notebook(os.path.join(folder, {assignment!r} + ".ipynb"))
# each of these once stopped the whole class's collect or release_feedback
attempt("hand_in_unreadable_name", lambda: hand_in("not a time+x", "ab" * 64, os.mkfifo))
attempt("hand_in_fifo", lambda: hand_in("2098-01-01 00:00:00.000000 UTC+fifo", "ab" * 64,
                                        os.mkfifo))
attempt("hand_in_no_secret", lambda: hand_in("2097-01-01 00:00:00.000000 UTC+nosecret", "",
                                             lambda p: open(p, "w").close()))
print(json.dumps(out))
"""

_AFTER = """
import json, os
out = {{}}
def attempt(key, action):
    try:
        action()
        out[key] = True
    except OSError as error:
        out[key] = type(error).__name__
attempt("list_feedback", lambda: os.listdir({feedback!r}))
attempt("replace_feedback", lambda: [open(os.path.join({feedback!r}, name), "a").close()
                                     for name in {names!r}])
attempt("add_feedback", lambda: open(os.path.join({feedback!r}, "x.html"), "w").close())
print(json.dumps(out))
"""


def test_the_instructor_released_and_every_student_submitted_through_the_hub(course):
    names = {entry.split("+")[0] for entry in course.facts["inbound"]}
    assert set(course.students.values()) <= names


def test_the_grader_graded_each_submission_as_it_deserves(course):
    grade, records = course.facts["grade"], course.facts["records"]
    assert grade.returncode == 0, grade.stdout[-2000:] + grade.stderr[-3000:]
    students = course.students
    scores = {role: records[name]["score"] for role, name in students.items()}
    # carol's hostile notebook scores full marks only because both its attempts failed
    assert scores == {"alice": FULL, "bob": FULL - 1, "carol": FULL}, scores
    assert not (Path(os.path.expanduser(f"~{course.grader}")) / "pwned").exists()


def test_each_student_fetched_exactly_their_own_feedback(course):
    feedback = course.facts["feedback"]
    students = course.students
    for name in students.values():
        assert len(feedback[name]) == 1, (name, len(feedback[name]))
    mine = {role: feedback[name][0] for role, name in students.items()}
    assert "return x.numel() * x.element_size()" in mine["alice"]
    assert "return x.numel()\n" in mine["bob"]
    assert "_reached" in mine["carol"]
    assert "return x.numel()\n" not in mine["alice"] + mine["carol"]
    assert "_reached" not in mine["alice"] + mine["bob"]
    for role, text in mine.items():
        score = FULL - 1 if role == "bob" else FULL
        assert re.search(rf"Score: {score}(\.0)? */ *{FULL}", text), (role, text[:500])


def test_a_student_cannot_list_read_change_or_delete_another_submission(course):
    attacks = course.facts["bob_attacks"]
    for attack in ["list_inbound", "read_submission", "read_secret", "list_submission",
                   "write_into_submission", "rename_submission", "delete_submission",
                   "rename_course", "plant_in_root", "replace_release", "plant_in_outbound",
                   "read_grader_course", "read_alice_home"]:
        assert attacks[attack] == "PermissionError", (attack, attacks)


def test_a_submission_forged_in_another_name_is_set_aside_not_collected(course):
    assert course.facts["bob_attacks"]["forge_in_victims_name"] is True  # the drop box is open
    assert "FORGED BY BOB" not in course.facts["collected_alice"]
    assert any(n.startswith(".rejected-") and "forged" in n
               for n in course.facts["inbound_after_collect"])


def test_a_submission_the_grader_cannot_read_is_set_aside_and_collect_goes_on(course):
    """(Collect succeeded: the fixture checks formgrader's answer; bob's graded score above
    is his readable submission's.)"""
    assert course.facts["bob_attacks"]["hand_in_unreadable"] is True
    assert any(n.startswith(".rejected-") and "locked" in n
               for n in course.facts["inbound_after_collect"])


def test_a_student_cannot_list_or_change_feedback_or_open_formgrader(course):
    # (each page's name is a hash of a secret that only its author and the graders can read:
    # read_secret above)
    for attack in ["list_feedback", "replace_feedback", "add_feedback"]:
        assert course.facts["bob_after"][attack] == "PermissionError", course.facts["bob_after"]
    assert course.facts["bob_formgrader"] == 403


def test_a_students_server_token_reaches_only_their_own_server(course):
    """The hub's token in a student's server (their code can read it): the ``server`` role's
    scopes in deploy/jupyterhub/jupyterhub_config.py."""
    reach = course.facts["bob_server_token"]
    assert reach["own_server"] == 200, reach
    assert reach["formgrader"] == 403, reach
    assert reach["alice_server"] == 403, reach
    assert reach["alice_model"] in (403, 404), reach


def test_entries_that_once_stopped_the_whole_collect_are_set_aside(course):
    attacks, after = course.facts["bob_attacks"], course.facts["inbound_after_collect"]
    for attack, mark in [("hand_in_unreadable_name", "not_a_time"), ("hand_in_fifo", "fifo"),
                         ("hand_in_no_secret", "nosecret")]:
        assert attacks[attack] is True, attacks
        assert any(n.startswith(".rejected-") and mark in n for n in after), (mark, after)


def test_a_student_cannot_read_the_answer_key_anywhere_on_the_hub(course):
    """The hub's checkout (solutions/, tests/answers/, .git) and the grader's course: every
    path an os-level PermissionError, while the course environment still imports."""
    reach = course.facts["answer_key"]
    for key in _answer_key_paths(course):
        assert reach[key] == "PermissionError", (key, reach)
    assert reach["imported"] == [str(REPO / "lecture_utils" / "__init__.py"),
                                 str(REPO / "autograder" / "__init__.py")]


def test_a_students_self_check_says_the_answer_key_is_kept_from_them(course):
    status, output = course.facts["answer_key"]["check"]
    assert status == 2, output
    assert "answer key" in output and "cannot be read" in output, output
    assert "element_size()" not in output  # nothing of the solution


def test_the_instructor_reaches_formgrader_under_the_hubs_frame_policy(course):
    status, policy = course.facts["instructor_formgrader"]
    assert status == 200
    assert "frame-ancestors 'none'" in policy  # the policy stays as strict as the hub's


def test_nbgraders_default_exchange_leaks_what_ours_does_not(course):
    """Measured on nbgrader's own exchange, with the same users (docs/jupyterhub.md)."""
    default = course.facts["default"]
    print("default exchange, as bob:", default)
    assert default["list_inbound"] == "PermissionError"  # its inbound is 2733: not listable
    assert default["read_named"] == "ALICE-WORK"  # a leaked name opens a submission to all
    assert default["write_named"] is True
    assert default["forged_collected"] is True  # collect takes bob's work as alice's
    assert default["collect_after_unreadable"] is False  # one locked folder stops collect
    assert default["hijacked"] is True  # and bob can move the course and plant his own,
    assert default["listed_after_hijack"] == 1  # so alice's next submission lands in it
    assert default["read_after_hijack"] == "ALICE-WORK"

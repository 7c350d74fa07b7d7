"""The grading sandbox (`autograder.sandbox`), attacked for real: real processes, real bwrap.

Every adversarial submission runs on one shared worker, and each is followed by a normal
submission on that same worker, which must still get exactly the right values: one bad
submission costs only itself.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.course import REPO
from autograder.limits import NICENESS
from autograder.protocol import step_from_wire
from autograder.sandbox import SANDBOX_UID, Limits, SandboxUnavailable, Worker, sandbox_available
from autograder.sandbox import worker as worker_module

# The cell limit leaves a wide margin for honest work on a loaded 2-core CI machine: a memory
# bomb must reach the memory limit (touching ~1 GiB) well before it reaches the time limit.
LIMITS = Limits(cell_seconds=4, submission_seconds=10, memory_bytes=int(1.5 * 2**30),
                cpu_seconds=30, processes=64)
CELL = LIMITS.cell_seconds
SLOT = 5
AVAILABLE, WHY = sandbox_available()
needs_bwrap = pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox here: {WHY}")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="checks the sandbox uid's processes")

NORMAL = [
    {"cell": "import torch\n\ndef f(x):\n    return 2 * x\n"},
    {"cases": "double", "calls": ["f(2)", "f(torch.tensor(3))"]},
]


def run(worker: Worker, steps: list[dict]) -> dict:
    """``worker.run`` on steps written as the JSON the sandbox receives; the report as plain
    data, each case outcome ``{"value": V}`` or ``{"error": TEXT}`` (its flags left out)."""
    report = worker.run([step_from_wire(step) for step in steps])
    return {"status": report.status, "message": report.message, "seconds": report.seconds,
            "cells": [{"index": c.index, "error": c.error, "seconds": c.seconds}
                      for c in report.cells],
            "cases": {g: [o.plain() for o in outcomes] for g, outcomes in report.cases.items()}}


def values(report: dict, grade_id: str) -> list:
    return [outcome.get("value", outcome.get("error")) for outcome in report["cases"][grade_id]]


def assert_normal(worker: Worker) -> None:
    """The next, honest submission on the same worker is graded exactly right."""
    report = run(worker, NORMAL)
    assert report["status"] == "ok", report
    assert report["cases"] == {"double": [{"value": 4}, {"value": 6}]}
    assert [cell["error"] for cell in report["cells"]] == [None]


def host_processes(uid: int) -> list[tuple[int, str, str]]:
    """(pid, name, state) of the machine's processes whose real uid is ``uid``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = dict(line.split(":", 1) for line in
                          Path(f"/proc/{name}/status").read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if int(fields["Uid"].split()[0]) == uid:
            found.append((int(name), fields["Name"].strip(), fields["State"].split()[0]))
    return found


@pytest.fixture(scope="module")
def worker():
    if not AVAILABLE:
        pytest.skip(f"no sandbox here: {WHY}")
    with pytest.MonkeyPatch.context() as patch:  # must not reach student code
        patch.setenv("NBGRADER_EXECUTION", "autograde")
        started = Worker(LIMITS, slot=SLOT)
        started.start()
    yield started
    started.close()


@pytest.fixture(scope="module")
def roomy_worker():
    """The same limits with a long cell time: a bomb that touches every page it takes needs
    several seconds to reach 1.5 GiB on a busy machine, and must meet the memory limit first."""
    if not AVAILABLE:
        pytest.skip(f"no sandbox here: {WHY}")
    with Worker(replace(LIMITS, cell_seconds=30, submission_seconds=60), slot=SLOT) as started:
        yield started


# 1 -------------------------------------------------------------------------------------------
@needs_bwrap
def test_normal_submission(worker):
    report = run(worker, NORMAL)
    assert report["status"] == "ok" and report["message"] == ""
    assert report["cases"] == {"double": [{"value": 4}, {"value": 6}]}
    assert len(report["cells"]) == 1
    assert report["cells"][0]["index"] == 0 and report["cells"][0]["error"] is None
    assert 0 < report["seconds"] < 5


@needs_bwrap
def test_errors_magics_and_gpu_only_cells(worker):
    report = run(worker, [
        {"cell": "%%gpu_only\nran_gpu_cell = True\n"},
        {"cell": "x = 1 / 0"},
        {"cell": "def broken(:\n    pass"},
        {"cell": "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
                 "import torch\n"},
        {"cases": "misc", "calls": ["'ran_gpu_cell' in globals()", "x", "[1, (2, 3)]",
                                    "torch.float32", "{'a': 1.5}", "float('nan') != 0",
                                    "object()"]},
    ])
    assert report["status"] == "ok", report
    errors = [cell["error"] for cell in report["cells"]]
    assert errors[0] is None  # %%gpu_only registered: skipped cleanly without CUDA
    assert errors[1] == "ZeroDivisionError: division by zero"
    assert errors[2].startswith("SyntaxError")
    assert errors[3] is None
    got = values(report, "misc")
    assert got[0] is False or got[0] is True  # True only on a CUDA machine
    assert got[1].startswith("raised NameError")
    assert got[2:6] == [[1, [2, 3]], "torch.float32", {"a": 1.5}, True]
    assert got[6] == "returned a object, which the checks cannot compare"
    assert_normal(worker)


# 2 -------------------------------------------------------------------------------------------
@needs_bwrap
def test_infinite_loop_times_out_that_cell_and_the_run_goes_on(worker):
    report = run(worker, [
        {"cell": "def f(x):\n    return 2 * x\n\ndef spin():\n    while True:\n        pass\n"},
        {"cell": "while True:\n    pass\n"},
        {"cell": "y = 5"},
        {"cases": "after", "calls": ["f(2)", "spin()", "y"]},
        {"cases": "next", "calls": ["y"]},
    ])
    assert report["status"] == "timeout"
    assert report["message"] == f"cell 1 ran past {CELL:g} s"
    assert [cell["error"] for cell in report["cells"]] == [
        None, f"TimeoutError: cell ran past {CELL:g} s", None]
    assert CELL <= report["cells"][1]["seconds"] < CELL + 2
    # after one check of an exercise times out, its later checks are skipped (it has failed
    # anyway, and they could each take the full limit); the next exercise runs as usual
    assert report["cases"]["after"] == [
        {"value": 4}, {"error": f"timed out after {CELL:g} s"},
        {"error": "skipped: an earlier check of this exercise timed out"}]
    assert report["cases"]["next"] == [{"value": 5}]
    assert_normal(worker)


# 3 -------------------------------------------------------------------------------------------
@needs_bwrap
def test_a_loop_that_swallows_timeouts_hits_the_submission_deadline(worker):
    # On CPython 3.11 a signal's exception raised in `while True: pass` placed directly in a
    # `try` escapes its `except` (plain exec shows the same), so that form is stopped per cell;
    # either way the submission ends in "timeout".
    literal = "while True:\n try:\n  while True: pass\n except BaseException: pass\n"
    assert run(worker, [{"cell": literal}])["status"] == "timeout"
    stubborn = ("while True:\n    try:\n        while True:\n            spins = 1\n"
                "    except BaseException:\n        pass\n")
    report = run(worker, [{"cell": "done = 1"}, {"cases": "before", "calls": ["done"]},
                         {"cell": stubborn}, {"cases": "after", "calls": ["done"]}])
    assert report["status"] == "timeout"
    assert report["message"] == f"the submission ran past {LIMITS.submission_seconds:g} s"
    assert report["cases"] == {"before": [{"value": 1}]}  # what finished survives
    assert LIMITS.submission_seconds <= report["seconds"] < LIMITS.submission_seconds + 3
    assert_normal(worker)


# 4 -------------------------------------------------------------------------------------------
@needs_bwrap
@pytest.mark.parametrize("bomb", [
    "x = bytearray(50 * 2**30)",
    "chunks = []\nwhile True:\n    chunks.append(bytearray(64 * 2**20))\n",
    "import torch\nt = torch.ones(2**36, dtype=torch.uint8)",
])
def test_memory_bomb_is_out_of_memory(roomy_worker, bomb):
    worker = roomy_worker
    report = run(worker, [{"cell": bomb}, {"cell": "z = 1"}, {"cases": "after", "calls": ["z"]}])
    assert report["status"] == "out of memory", report
    assert report["message"].startswith("cell 0 ran out of memory")
    error = report["cells"][0]["error"]
    assert error.startswith("MemoryError") or "can't allocate memory" in error
    assert values(report, "after") == [1]
    assert_normal(worker)


@needs_bwrap
def test_memory_spread_over_processes_is_out_of_memory(worker):
    spread = ("import os, time\n"
              "for _ in range(4):\n"
              "    if os.fork() == 0:\n"
              "        data = b'x' * (600 * 2**20)\n"
              "        time.sleep(60)\n"
              "        os._exit(0)\n"
              "time.sleep(60)\n")
    report = run(worker, [{"cell": spread}])
    assert report["status"] == "out of memory", report
    assert report["message"] == "used more than 1.5 GiB"
    assert_normal(worker)


# 5 -------------------------------------------------------------------------------------------
NPROC_PROBE = """
import resource, subprocess
resource.setrlimit(resource.RLIMIT_NPROC, (8, 8))
procs, limited = [], False
for _ in range(30):
    try:
        procs.append(subprocess.Popen(["sleep", "30"]))
    except OSError:
        limited = True
        break
started = len(procs)
"""


@needs_bwrap
def test_submission_runs_niced_below_its_zygote(worker):
    report = run(worker, [{"cell": "import os\nnice = os.getpriority(os.PRIO_PROCESS, 0)"},
                          {"cases": "nice", "calls": ["nice"]}])
    assert values(report, "nice") == [NICENESS], report


@needs_bwrap
@as_root
def test_fork_bomb_is_contained(worker):
    uid = SANDBOX_UID + worker.slot
    # First make sure RLIMIT_NPROC really binds in this sandbox; never bomb otherwise.
    probe = run(worker, [{"cell": NPROC_PROBE},
                         {"cases": "nproc", "calls": ["limited", "started"]}])
    assert probe["status"] == "ok", probe
    limited, started = values(probe, "nproc")
    assert limited is True and started < 8, "RLIMIT_NPROC is not effective: not bombing"

    outcome: dict = {}
    bomb = [{"cell": "import os\nwhile True:\n    os.fork()\n"}, {"cases": "after", "calls": ["1"]}]
    thread = threading.Thread(target=lambda: outcome.update(run(worker, bomb)), daemon=True)
    give_up = time.monotonic() + 30
    peak, forks = 0, []
    thread.start()
    while thread.is_alive() and time.monotonic() < give_up:
        peak = max(peak, len(host_processes(uid)))
        forks.append(subprocess.run(["true"]).returncode)  # the machine can still fork
        time.sleep(0.01)
    if thread.is_alive():
        worker._kill()
        pytest.fail("the fork bomb was not stopped within 30 s")
    # The zygote's census names the bomb. On a machine loaded by other work it may instead
    # reach the deadline first (CI saw it once, before the bomb was niced): contained all
    # the same, which is what the rest of this test checks.
    if outcome["status"] != "timeout":
        assert outcome["status"] == "crashed", outcome
        assert outcome["message"] == "started too many processes (the limit is 64)"
    assert forks and set(forks) == {0}
    assert peak <= LIMITS.processes + 2
    assert_normal(worker)
    alive = [p for p in host_processes(uid) if p[2] != "Z"]
    assert len(alive) <= 3, alive  # bwrap outside, bwrap as pid 1, the zygote


# 6 -------------------------------------------------------------------------------------------
@needs_bwrap
def test_huge_output_is_discarded(worker):
    report = run(worker, [
        {"cell": "line = 'x' * 10**6\nfor _ in range(200):\n    print(line)\n"},
        {"cell": "import sys\nsys.stderr.write('e' * 10**7)\n'y' * 10**7\n"},
        {"cell": "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                 "from IPython.display import display\n"
                 "fig, ax = plt.subplots(figsize=(10, 10))\n"
                 "ax.plot(range(10**5))\n"
                 "for _ in range(4):\n    display(fig)\n"},
        {"cases": "printed", "calls": ["len(line)"]},
    ])
    assert report["status"] == "ok", report
    assert [cell["error"] for cell in report["cells"]] == [None, None, None]
    assert values(report, "printed") == [10**6]
    assert_normal(worker)


# 7 -------------------------------------------------------------------------------------------
@needs_bwrap
def test_huge_results_are_refused(worker):
    report = run(worker, [
        {"cell": "import torch"},
        {"cases": "big", "calls": ["list(range(10**7))", "torch.zeros(10**6)", "'a' * 10**6",
                                   "[1.2345678901234567] * 10000", "list(range(10))"]},
    ])
    assert report["status"] == "ok", report
    too_large = {"error": "returned a value too large to grade"}
    assert report["cases"]["big"] == [too_large] * 4 + [{"value": list(range(10))}]
    assert report["seconds"] < CELL  # refusing is cheap: no cell limit was needed
    many = run(worker, [{"cases": "many", "calls": ["'a' * 60000"] * 30}])
    assert many["status"] == "crashed"
    assert many["message"] == f"sent more than {LIMITS.output_bytes} bytes of results"
    assert 0 < len(many["cases"]["many"]) < 30
    assert_normal(worker)


# 8 -------------------------------------------------------------------------------------------
@needs_bwrap
def test_exit_and_crashes(worker):
    report = run(worker, [{"cell": "import sys\nsys.exit(0)"}, {"cases": "a", "calls": ["1"]}])
    assert report["status"] == "ok"
    assert report["cells"][0]["error"] == "SystemExit: 0"
    assert values(report, "a") == [1]

    report = run(worker, [{"cell": "v = 7"}, {"cases": "a", "calls": ["v"]},
                         {"cell": "import os\nos._exit(3)"}, {"cases": "b", "calls": ["v"]}])
    assert report["status"] == "crashed"
    assert report["message"] == "exited with status 3 before finishing"
    assert report["cases"] == {"a": [{"value": 7}]}  # results sent before the crash survive

    report = run(worker, [{"cell": "import ctypes\nctypes.string_at(0)"}])
    assert report["status"] == "crashed"
    assert report["message"] == "killed by SIGSEGV"
    assert_normal(worker)


@needs_bwrap
def test_forged_results_are_rejected(worker):
    line = '{"case": "x", "call": 0, "outcome": {"value": 1}, "timeout": false, "oom": false}'
    forge = ("import os\n"
             "for fd in range(3, 64):\n"
             "    try:\n"
             f"        os.write(fd, {(line + chr(10)).encode()!r})\n"
             "    except OSError:\n"
             "        pass\n")
    report = run(worker, [{"cell": forge}, {"cases": "x", "calls": ["2"]}])
    assert report["status"] == "crashed"
    assert report["message"].startswith("sent malformed results")
    assert "x" not in report["cases"]
    assert_normal(worker)


# 9 -------------------------------------------------------------------------------------------
@needs_bwrap
def test_files_outside_the_sandbox_are_invisible(worker, tmp_path):
    secret = tmp_path / "course" / "source" / "answers.txt"  # stands for a course directory
    secret.parent.mkdir(parents=True)
    secret.write_text("the answer key")
    solution = next((REPO / "solutions").glob("*/*.ipynb"))
    readable = [str(secret), str(secret.parent), str(solution), str(REPO / "solutions"),
                str(REPO / "gradebook.db"), str(REPO / "nbgrader_config.py"),
                "/root/.bashrc", "/etc/shadow", "/etc/passwd", "/home", "/work/shared",
                "/proc/1/root/work/main/solutions"]
    assert solution.exists() and (REPO / "nbgrader_config.py").exists()
    writable = ["/x", "/usr/x", f"{sys.prefix}/x", str(REPO / "autograder" / "x"), "/dev/x",
                "/work/x", "/tmp/ok", "/dev/shm/ok"]
    cell = (f"import os\nreadable, writable = {readable!r}, {writable!r}\n"
            "reads, writes = {}, {}\n"
            "for path in readable:\n"
            "    try:\n"
            "        if os.path.isdir(path):\n"
            "            os.listdir(path)\n"
            "        else:\n"
            "            open(path, 'rb').read(1)\n"
            "        reads[path] = 'read'\n"
            "    except OSError as error:\n"
            "        reads[path] = type(error).__name__\n"
            "for path in writable:\n"
            "    try:\n"
            "        open(path, 'w').write('x')\n"
            "        writes[path] = 'wrote'\n"
            "    except OSError as error:\n"
            "        writes[path] = type(error).__name__\n"
            "def probe(path):\n"
            "    try:\n"
            "        open(path, 'rb').read(1)\n"
            "        return 'read'\n"
            "    except OSError as error:\n"
            "        return type(error).__name__\n")
    report = run(worker, [{"cell": cell}, {"cases": "files", "calls": [
        "reads", "writes", f"sorted(os.listdir({str(REPO)!r}))", "sorted(os.listdir('/'))",
        "probe(f'/proc/{os.getppid()}/mem')", "probe(f'/proc/{os.getppid()}/environ')"]}])
    assert report["status"] == "ok", report
    reads, writes, repo, root, zygote_mem, zygote_env = values(report, "files")
    assert set(reads.values()) <= {"FileNotFoundError", "PermissionError"}, reads
    assert {path: result for path, result in writes.items() if result == "wrote"} == {
        "/tmp/ok": "wrote", "/dev/shm/ok": "wrote"}, writes
    assert set(repo) <= {".venv", "autograder", "lecture_utils"} and "autograder" in repo
    top = REPO.parts[1]  # the repository's top folder is there only for the venv's sake
    assert top in root and ("home" not in root or top == "home")
    assert zygote_mem == "PermissionError" and zygote_env == "PermissionError"
    assert_normal(worker)


# 10 ------------------------------------------------------------------------------------------
@needs_bwrap
def test_no_network(worker):
    # Only this machine's loopback is ever a target: a listener here that the sandbox must
    # not reach, and the list of interfaces the sandbox sees (just its own, down, loopback).
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    cell = ("import socket, time\nnet = {}\n"
            "start = time.monotonic()\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
            "    net['host'] = 'connected'\n"
            "except OSError as error:\n"
            "    net['host'] = type(error).__name__\n"
            "net['seconds'] = time.monotonic() - start\n"
            "net['interfaces'] = [name for _, name in socket.if_nameindex()]\n")
    try:
        report = run(worker, [{"cell": cell}, {"cases": "net", "calls": ["net"]}])
    finally:
        listener.close()
    net = values(report, "net")[0]
    assert report["status"] == "ok", report
    assert net["host"] != "connected"
    assert net["seconds"] < 2  # fails at once, not after the 5 s timeout: nothing to wait for
    assert net["interfaces"] == ["lo"]
    assert_normal(worker)


# 11 ------------------------------------------------------------------------------------------
@needs_bwrap
def test_environment_is_clean(worker):
    assert "NBGRADER_EXECUTION" not in os.environ  # the fixture set it only while starting
    report = run(worker, [{"cell": "import os\nenv = dict(os.environ)"},
                         {"cases": "env", "calls": ["sorted(env)", "env['HOME']", "os.getcwd()",
                                                    "os.getuid()"]}])
    names, home, cwd, uid = values(report, "env")
    assert not [name for name in names if name.startswith("NBGRADER")]
    assert home == "/tmp" and cwd == "/tmp"
    assert uid != 0
    assert_normal(worker)


# 12 ------------------------------------------------------------------------------------------
@needs_bwrap
def test_leftover_processes_files_and_ipc_are_gone(worker):
    leave = ("import ctypes, os, subprocess, time\n"
             "sleeper = subprocess.Popen(['sleep', '1000'])\n"
             "if os.fork() == 0:\n"
             "    os.setsid()\n"
             "    if os.fork() == 0:\n"
             "        time.sleep(1000)\n"
             "    os._exit(0)\n"
             "open('/tmp/note.txt', 'w').write('from the last student')\n"
             "open('/dev/shm/note', 'w').write('from the last student')\n"
             "os.makedirs('/tmp/locked/inner')\n"
             "os.chmod('/tmp/locked', 0)\n"
             "shm = ctypes.CDLL(None).shmget(0, 4096, 0o1600)\n")
    report = run(worker, [{"cell": leave}, {"cases": "left", "calls": ["shm >= 0"]}])
    assert report["status"] == "ok", report
    assert values(report, "left") == [True]

    look = ("import os\n"
            "procs = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
            "names = [open(f'/proc/{p}/comm').read().strip() for p in procs]\n"
            "shm = open('/proc/sysvipc/shm').read().splitlines()[1:]\n")
    report = run(worker, [{"cell": look}, {"cases": "now", "calls": [
        "len(procs)", "'sleep' in names", "os.listdir('/tmp')", "os.listdir('/dev/shm')",
        "shm"]}])
    count, sleeping, tmp, dev_shm, shm = values(report, "now")
    assert count == 3  # bwrap (pid 1), the zygote, this submission
    assert sleeping is False
    # nothing left in /tmp but the way to the read-only venv, if the repository lives there
    assert tmp == ([REPO.parts[2]] if REPO.parts[1] == "tmp" else []), tmp
    assert dev_shm == [] and shm == []
    if os.geteuid() == 0:
        assert not [p for p in host_processes(SANDBOX_UID + worker.slot) if p[1] == "sleep"]
    assert_normal(worker)


# 13 ------------------------------------------------------------------------------------------
@needs_bwrap
def test_same_submission_same_result(worker):
    steps = [{"cell": "import random\nimport numpy\nimport torch"},
             {"cases": "random", "calls": ["torch.rand(1).item()", "random.random()",
                                           "float(numpy.random.rand())", "hash('abc')"]}]
    first, second = run(worker, steps), run(worker, steps)
    assert first["status"] == "ok"
    assert first["cases"] == second["cases"]
    assert values(first, "random")[1] == 0.8444218515250481  # random.seed(0)


# 14 ------------------------------------------------------------------------------------------
@needs_bwrap
def test_a_killed_worker_is_restarted(worker):
    starts = worker.starts
    report = run(worker, [{"cell": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"}])
    assert report["status"] == "crashed"
    assert report["message"] == "the sandbox worker died while running this submission"
    assert_normal(worker)
    assert worker.starts == starts + 1


@needs_bwrap
def test_a_stopped_worker_is_given_up_and_restarted(monkeypatch):
    monkeypatch.setattr(worker_module, "GRACE_SECONDS", 1.0)
    limits = Limits(cell_seconds=1, submission_seconds=1, memory_bytes=LIMITS.memory_bytes)
    with Worker(limits, slot=SLOT + 1) as stopped:
        report = run(stopped, [{"cell": "import os, signal\n"
                                        "os.kill(os.getppid(), signal.SIGSTOP)\n"
                                        "while True:\n    pass"}])
        assert report["status"] == "timeout"
        assert report["message"].startswith("the sandbox stopped answering")
        assert 2 <= report["seconds"] < 5
        assert_normal(stopped)
        assert stopped.starts == 2
    if os.geteuid() == 0:
        time.sleep(0.2)
        assert not [p for p in host_processes(SANDBOX_UID + stopped.slot) if p[2] != "Z"]


# 15 ------------------------------------------------------------------------------------------
def test_sandbox_available_names_what_is_missing(monkeypatch, tmp_path):
    assert sandbox_available() == (AVAILABLE, WHY)
    if sys.platform == "linux" and Path("/usr/bin/bwrap").exists():
        assert AVAILABLE, WHY  # installed here, so it must work
        assert WHY == ""
    monkeypatch.setenv("PATH", str(tmp_path))
    ok, why = sandbox_available()
    assert not ok and "bwrap" in why and "install" in why
    with pytest.raises(SandboxUnavailable, match="bwrap"):
        Worker(LIMITS).start()


# 16 ------------------------------------------------------------------------------------------
def test_without_sandbox_the_same_runner_still_grades(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with Worker(LIMITS, slot=SLOT + 2, sandbox=False) as plain:
        assert_normal(plain)
        report = run(plain, [{"cell": "import os, subprocess\n"
                                     "sleeper = subprocess.Popen(['sleep', '1000'])\n"
                                     "env = sorted(os.environ)\n"
                                     "x = 1 / 0"},
                            {"cases": "env", "calls": ["env", "sleeper.pid"]}])
        assert report["status"] == "ok"
        assert report["cells"][0]["error"] == "ZeroDivisionError: division by zero"
        names, sleeper = values(report, "env")
        assert not [name for name in names if name.startswith("NBGRADER")]
        assert not Path(f"/proc/{sleeper}").exists()  # cleaned up with the submission
        assert_normal(plain)


# timings ---------------------------------------------------------------------------------------
@needs_bwrap
def test_timings(worker, capsys):
    trivial = [{"cell": "x = 1"}, {"cases": "x", "calls": ["x"]}]
    times = []
    for _ in range(20):
        started = time.perf_counter()
        assert run(worker, trivial)["status"] == "ok"
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    with capsys.disabled():
        print(f"\nworker start {worker.start_seconds:.2f} s; trivial submission median "
              f"{median * 1000:.0f} ms over 20")
    assert worker.start_seconds < 60
    assert median < 0.5


def test_scratch_wipe_keeps_read_only_mounts_inside_it(tmp_path):
    """A repository cloned under /tmp puts its venv inside the sandbox's /tmp: the wipe
    between submissions must leave it (and the folders above it) and remove the rest."""
    from autograder.sandbox.cleanup import wipe as _wipe

    kept = tmp_path / "clone" / ".venv"
    kept.mkdir(parents=True)
    (kept / "python").write_text("interpreter")
    (tmp_path / "clone" / "planted.py").write_text("x")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "big").write_text("y")
    _wipe(str(tmp_path), 0o755, frozenset({str(kept)}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clone"]
    assert sorted(p.name for p in (tmp_path / "clone").iterdir()) == [".venv"]
    assert (kept / "python").read_text() == "interpreter"


# the audit's warm worker ---------------------------------------------------------------------
@needs_bwrap
def test_a_grading_zygote_refuses_to_be_warmed(worker):
    """Cells run in a grading zygote would reach every later submission: it must refuse them
    (``--warm`` is the audit's only), and the worker object refuses first."""
    with pytest.raises(ValueError, match="not made warmable"):
        worker.warm([step_from_wire({"cell": "leak = 1"})])
    report = worker._ask("warm", [step_from_wire({"cell": "leak = 1"})])  # the raw request
    assert report.status == "crashed"
    assert "not started with --warm" in report.message
    later = run(worker, [{"cases": "leak", "calls": ["leak"]}])
    assert values(later, "leak") == ["raised NameError: name 'leak' is not defined"]
    assert_normal(worker)


@needs_bwrap
def test_warm_cells_run_once_every_child_starts_from_them_and_a_restart_replays_them():
    with Worker(LIMITS, slot=SLOT, warmable=True) as warm:
        report = warm.warm([step_from_wire({"cell": "import os\ncalls = []\nbase = 40"})])
        assert report.status == "ok" and [c.error for c in report.cells] == [None]
        steps = [{"cell": "calls.append(1)\nbase += 1"},
                 {"cases": "w", "calls": ["base", "len(calls)"]}]
        assert values(run(warm, steps), "w") == [41, 1]
        assert values(run(warm, steps), "w") == [41, 1]  # each child from the warm state
        run(warm, [{"cell": "import signal\nos.kill(os.getppid(), signal.SIGKILL)"}])
        starts = warm.starts
        assert values(run(warm, steps), "w") == [41, 1]  # restarted, warmed again
        assert warm.starts == starts + 1

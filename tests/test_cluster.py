"""`grade` on a real Dask cluster: TLS, scores equal to the local pool's, workers killed
mid-batch, a submission that kills every worker it touches, GPU tasks routed by resource.

The cluster is started the way docs/cluster.md tells an instructor (`dask scheduler`, `dask
worker` with TLS certificates), on 127.0.0.1, by tests/support/dask_cluster.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.dask_cluster import OPENSSL, make_certificates, running_cluster, wait_for_workers
from support.nbgrader_course import Course
from support.submissions import perfect_submission, with_answer

from autograder.cluster import ClusterOptions, security_for
from autograder.course_dirs import GradeError
from autograder.grade import grade_assignment
from autograder.record import load_record, record_path
from autograder.sandbox import bwrap, sandbox_available

AVAILABLE, WHY = sandbox_available()
A = "01_tensors_and_memory"
FULL = 7
WRONG = {  # student -> (solution cell, wrong answer); the others submit the solution
    "s01": ("tensor_bytes", "def tensor_bytes(x):\n    return x.numel()\n"),
    "s04": ("bytes_for", "def bytes_for(shape, dtype):\n    return 4\n"),
    "s06": ("storage_bytes", "def storage_bytes(x):\n    return x.numel() * x.element_size()\n"),
}
STUDENTS = [f"s{i:02d}" for i in range(8)]



def needs_cluster(test):
    """Slow, and skipped (saying why) without bubblewrap or openssl."""
    for mark in (pytest.mark.slow,
                 pytest.mark.skipif(not AVAILABLE, reason=f"no sandbox here: {WHY}"),
                 pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed (it "
                                    "makes the test cluster's TLS certificates)")):
        test = mark(test)
    return test


def _course(root: Path, students: list[str]) -> Course:
    course = Course(root)
    course.add_assignment(A)
    for student in students:
        notebook = perfect_submission(A)
        if student in WRONG:
            notebook = with_answer(notebook, *WRONG[student])
        course.submit(student, A, notebook)
    return course


def _scores(course: Course) -> dict[str, tuple[float, str]]:
    records = {p.stem: json.loads(p.read_text())
               for p in (course.root / "grades" / A).glob("*.json")}
    return {student: (r["score"], r["status"]) for student, r in records.items()}


def _tls(cluster) -> ClusterOptions:
    c = cluster.certificates
    return ClusterOptions(scheduler=cluster.address, tls_ca_file=str(c.ca),
                          tls_cert=str(c.cert), tls_key=str(c.key))


@pytest.fixture(scope="module")
def local_scores(tmp_path_factory) -> dict[str, tuple[float, str]]:
    """The batch graded by the in-process pool: what every cluster run must reproduce."""
    if not AVAILABLE:
        pytest.skip(f"no sandbox here: {WHY}")
    course = _course(tmp_path_factory.mktemp("local"), STUDENTS)
    grade_assignment(course.root, A, engine="threads", progress=False)
    scores = _scores(course)
    assert scores["s00"] == (FULL, "graded") and scores["s01"][0] < FULL
    return scores


# -- the link: TLS off this machine, or nothing
@pytest.mark.parametrize("address", ["tcp://10.1.2.3:8786", "grader.example.edu:8786",
                                     "tcp://[2001:db8::1]:8786"])
def test_plain_tcp_to_another_machine_is_refused(address):
    with pytest.raises(GradeError, match="refusing plain TCP"):
        security_for(ClusterOptions(scheduler=address))
    assert security_for(ClusterOptions(scheduler=address, allow_plain_tcp=True)) is None


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "localhost:8786",
                                     "tcp://[::1]:8786"])
def test_plain_tcp_on_loopback_is_accepted(address):
    assert security_for(ClusterOptions(scheduler=address)) is None


def test_tls_needs_all_three_files(tmp_path):
    with pytest.raises(GradeError, match="--tls-ca-file, --tls-cert and --tls-key"):
        security_for(ClusterOptions(scheduler="tls://grader:8786", tls_ca_file="ca.pem"))
    with pytest.raises(GradeError, match="did you mean tls"):
        security_for(ClusterOptions(scheduler="tcp://127.0.0.1:1", tls_ca_file="ca.pem"))
    with pytest.raises(GradeError, match="unsupported scheduler address"):
        security_for(ClusterOptions(scheduler="ucx://grader:8786"))


@pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed")
def test_tls_security_requires_encryption(tmp_path):
    certs = make_certificates(tmp_path)
    security = security_for(ClusterOptions(scheduler="tls://grader:8786",
                                           tls_ca_file=str(certs.ca), tls_cert=str(certs.cert),
                                           tls_key=str(certs.key)))
    assert security.require_encryption
    assert security.tls_ca_file == str(certs.ca)


def test_grade_refuses_a_remote_plain_tcp_scheduler_before_any_work(tmp_path):
    course = Course(tmp_path)
    course.add_assignment(A)
    course.submit("s00", A, perfect_submission(A))
    with pytest.raises(GradeError, match="refusing plain TCP"):
        grade_assignment(course.root, A, progress=False, sandbox=False,
                         cluster=ClusterOptions(scheduler="tcp://192.0.2.7:8786"))
    assert not (course.root / "grades" / A / "s00.json").exists()


# -- the GPU: device files in the sandbox, tasks on GPU workers
def test_gpu_devices_are_the_nvidia_files(tmp_path):
    for name in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "null", "sda"):
        (tmp_path / name).touch()
    assert [p.name for p in bwrap.gpu_devices(tmp_path)] == [
        "nvidia-uvm", "nvidia0", "nvidia1", "nvidiactl"]


@pytest.mark.skipif(bwrap.shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_gpu_sandbox_binds_the_device_files_and_only_then(monkeypatch):
    monkeypatch.setattr(bwrap, "gpu_devices", lambda: [Path("/dev/nvidia0"),
                                                       Path("/dev/nvidiactl")])
    from autograder.limits import Limits

    with_gpu = bwrap.sandbox_command(Limits(), 0, ["true"], gpu=True)
    without = bwrap.sandbox_command(Limits(), 0, ["true"])
    pairs = [with_gpu[i + 1] for i, arg in enumerate(with_gpu) if arg == "--dev-bind"]
    assert pairs == ["/dev/nvidia0", "/dev/nvidiactl"]
    assert "--dev-bind" not in without


# -- a real cluster
@needs_cluster
def test_a_tls_cluster_of_two_workers_grades_like_the_local_pool(tmp_path, local_scores):
    course = _course(tmp_path / "course", STUDENTS)
    with running_cluster(tmp_path / "cluster") as cluster:
        cluster.add_worker("w1")
        cluster.add_worker("w2")
        wait_for_workers(cluster, ["w1", "w2"])
        summary = grade_assignment(course.root, A, progress=False, cluster=_tls(cluster))
    assert _scores(course) == local_scores
    assert sorted(r.student for r in summary.graded) == STUDENTS
    assert set(summary.workers) == {"w1", "w2"}, summary.workers
    assert sum(summary.workers.values()) == len(STUDENTS)


def _pid_of_worker(cluster, name: str) -> int:
    """The pid of worker ``name``'s own process (started with --no-nanny: the Popen's)."""
    return next(p.pid for p, n in zip(cluster.processes[1:], cluster.names) if n == name)


@needs_cluster
def test_a_worker_killed_mid_batch_loses_nothing(tmp_path, local_scores):
    """SIGKILL one of two workers while it holds tasks: the scheduler reruns them on the
    other, every submission is graded and recorded once, scores as undisturbed."""
    course = _course(tmp_path / "course", STUDENTS)
    records = course.root / "grades" / A
    with running_cluster(tmp_path / "cluster", allowed_failures=3) as cluster:
        cluster.add_worker("w1", "--no-nanny")
        cluster.add_worker("w2", "--no-nanny")
        wait_for_workers(cluster, ["w1", "w2"])
        outcome = {}
        run = threading.Thread(target=lambda: outcome.update(summary=grade_assignment(
            course.root, A, progress=False, cluster=_tls(cluster))))
        run.start()
        deadline = time.time() + 300
        while len(list(records.glob("*.json"))) < 2:
            assert time.time() < deadline and run.is_alive(), cluster.logs()
            time.sleep(0.1)
        done_at_kill = len(list(records.glob("*.json")))
        os.kill(_pid_of_worker(cluster, "w1"), signal.SIGKILL)
        run.join(timeout=300)
        assert not run.is_alive(), "the batch did not finish after a worker was killed"
    summary = outcome["summary"]
    assert done_at_kill < len(STUDENTS)
    assert sorted(r.student for r in summary.graded) == STUDENTS  # each exactly once
    assert _scores(course) == local_scores
    assert summary.workers["w2"] > summary.workers.get("w1", 0)


@needs_cluster
def test_a_submission_that_kills_every_worker_ends_crashed_and_a_rerun_retries_it(tmp_path):
    students = ["s00", "s02", "s03", "poison"]
    course = _course(tmp_path / "course", students)
    with running_cluster(tmp_path / "cluster", allowed_failures=1) as cluster:
        for name in ("w1", "w2"):  # nannies restart each worker the poison kills
            cluster.add_worker(name, "--preload", "support.poison_worker")
        wait_for_workers(cluster, ["w1", "w2"])
        summary = grade_assignment(course.root, A, progress=False, cluster=_tls(cluster))
    by_student = {r.student: r for r in summary.graded}
    assert sorted(by_student) == sorted(students)
    poison = by_student.pop("poison")
    assert poison.status == "crashed" and poison.score == 0
    assert "died each time it ran this submission" in poison.message
    assert all(r.status == "graded" and r.score == FULL for r in by_student.values()), [
        (r.student, r.status, r.score, r.message) for r in by_student.values()]
    assert load_record(record_path(course.root, A, "poison"))["status"] == "crashed"

    rerun = grade_assignment(course.root, A, engine="threads", progress=False)
    assert [r.student for r in rerun.graded] == ["poison"]  # the others stay done
    assert rerun.graded[0].score == FULL and rerun.skipped == 3


@needs_cluster
def test_gpu_tasks_run_only_on_workers_with_the_gpu_resource(tmp_path, local_scores):
    """No GPU is lent here: the routing is tested with a CPU worker advertising GPU=1 (its
    sandboxes bind whatever /dev/nvidia* exists, here none) beside one without."""
    course = _course(tmp_path / "course", STUDENTS[:4])
    with running_cluster(tmp_path / "cluster", tls=False) as cluster:
        cluster.add_worker("cpu")
        cluster.add_worker("gpu", "--resources", "GPU=1")
        wait_for_workers(cluster, ["cpu", "gpu"])
        summary = grade_assignment(course.root, A, progress=False,
                                   cluster=ClusterOptions(scheduler=cluster.address, gpu=True))
    assert dict(summary.workers) == {"gpu": 4}
    assert _scores(course) == {s: local_scores[s] for s in STUDENTS[:4]}


def test_the_command_explains_a_refused_scheduler(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", A, "--course", str(tmp_path),
         "--scheduler", "tcp://192.0.2.7:8786", "--unsandboxed"],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert "refusing plain TCP to another machine" in run.stderr
    assert "Traceback" not in run.stderr


# -- the coordinator's own helpers (fast: no cluster)

class _Future:
    """A finished Dask future: its result, or the error it raises."""

    def __init__(self, outcome):
        self.outcome = outcome

    def result(self):
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def _spec_and_submission(tmp_path):
    from autograder.course import instructor_notebook
    from autograder.pipeline import Submission
    from autograder.spec import load_spec
    return (load_spec(instructor_notebook(A)),
            Submission("ada", tmp_path, tmp_path / f"{A}.ipynb", note="graded as x.ipynb"))


def test_a_finished_task_becomes_a_judged_result_and_a_failed_one_costs_only_itself(tmp_path):
    """Kills (``_result_of``): a task that killed its workers not ending "crashed" and not
    final (a rerun retries it), a grader bug on the worker stopping the batch or scoring, a
    sandbox that cannot start not stopping the batch, the report not judged, or the worker's
    tally not counted."""
    from collections import Counter

    from distributed import KilledWorker
    from distributed.client import FutureCancelledError

    from autograder.cluster import _result_of
    from autograder.plan import Plan
    from autograder.protocol import CaseOutcome, Report, Status
    from autograder.sandbox.bwrap import SandboxUnavailable

    spec, submission = _spec_and_submission(tmp_path)
    plan, tally = Plan(), Counter()
    for died in (KilledWorker("task", "worker-1", 2), FutureCancelledError("task", "lost")):
        result = _result_of(_Future(died), spec, submission, A, plan, tally)
        assert (result.status, result.final, result.score) == (Status.CRASHED, False, 0)
        assert (result.student, result.assignment) == ("ada", A)
        assert result.message == (
            "the grading worker died each time it ran this submission (the machine's "
            "out-of-memory killer, or a lost node); rerun grade to try it again")
    result = _result_of(_Future(RuntimeError("boom")), spec, submission, A, plan, tally)
    assert (result.status, result.final, result.score) == (Status.GRADER_ERROR, False, 0)
    assert result.assignment == A
    assert "RuntimeError: boom" in result.message
    with pytest.raises(GradeError, match="could not start: no bwrap"):
        _result_of(_Future(SandboxUnavailable("no bwrap")), spec, submission, A, plan, tally)
    assert tally == Counter()

    right = {g: [CaseOutcome(value=c.expect) for c in check.cases]
             for g, check in spec.checks.items()}
    result = _result_of(_Future((Report(cases=right), "worker-7")), spec, submission, A, plan,
                        tally)
    assert (result.status, result.score, result.final) == (Status.GRADED, FULL, True)
    assert result.message == "graded as x.ipynb" and tally == Counter({"worker-7": 1})
    assert result.assignment == A
    _result_of(_Future((Report(cases=right), "worker-7")), spec, submission, A, plan, tally)
    assert tally == Counter({"worker-7": 2})
    # a report the judge cannot take (a bug) is a grader error, not a stopped batch
    result = _result_of(_Future(("not a report", "worker-7")), spec, submission, A, plan,
                        tally)
    assert (result.status, result.final) == (Status.GRADER_ERROR, False)


def test_task_keys_hide_the_student_id_and_overdue_tasks_are_given_up_in_time():
    """Kills: a task key that shows (or collides on) the student's id, and an overdue limit
    shorter than a submission's two runs plus a worker's start."""
    from autograder.cluster import overdue_after, student_tag
    from autograder.limits import Limits

    tag = student_tag("ada lovelace")
    assert len(tag) == 12 and "ada" not in tag and tag == student_tag("ada lovelace")
    assert len({student_tag(s) for s in ["ada", "Ada", "ada ", "bad\udcffbytes"]}) == 4
    assert overdue_after(Limits(submission_seconds=100)) == 2 * (100 + 5) + 300 + 120
    assert overdue_after(Limits(submission_seconds=200)) - overdue_after(
        Limits(submission_seconds=100)) == 200


class _Client:
    def __init__(self, workers, old=False):
        self.workers, self.old = workers, old

    def scheduler_info(self, **kwargs):
        if self.old and kwargs:
            raise TypeError("n_workers")
        assert kwargs in ({}, {"n_workers": -1})
        return {"workers": self.workers}


def test_threads_counted_on_every_worker_and_only_gpu_ones_for_gpu_tasks():
    """Kills: worker threads miscounted (too few tasks in flight, or GPU tasks sent to
    workers without the GPU resource), and an endless wait for workers that never come."""
    from autograder.cluster import _threads, _wait_for_threads

    workers = {f"w{i}": {"nthreads": n, "resources": r} for i, (n, r) in enumerate(
        [(4, {}), (2, {"GPU": 1}), (3, {"GPU": 0}), (1, {"GPU": 2})])}
    workers["w9"] = {"nthreads": 5}
    for old in (False, True):
        client = _Client(workers, old)
        assert _threads(client, gpu=False) == 15
        assert _threads(client, gpu=True) == 3
        assert _wait_for_threads(client, gpu=True) == 3
    no_gpu = _Client({"w0": {"nthreads": 4, "resources": {}}})
    with pytest.raises(GradeError, match="no Dask worker with the GPU resource joined"):
        _wait_for_threads(no_gpu, gpu=True, seconds=0)
    with pytest.raises(GradeError, match="^no Dask worker joined the scheduler in 0 s"):
        _wait_for_threads(_Client({}), gpu=False, seconds=0)


def test_refusals_tell_the_instructor_what_to_do_and_tls_uses_the_files_given():
    """Kills: the refusals' explanations changed or cut (they are all an instructor sees of
    a refused address), and a TLS link built without the client's certificate or key, or
    without requiring encryption."""
    security = security_for(ClusterOptions(scheduler="tls://grader:8786", tls_ca_file="/c/ca",
                                           tls_cert="/c/cert", tls_key="/c/key"))
    assert (security.tls_ca_file, security.tls_client_cert, security.tls_client_key,
            security.require_encryption) == ("/c/ca", "/c/cert", "/c/key", True)
    refusals = {
        ClusterOptions(scheduler="tls://g:1", tls_ca_file="a"):
            "tls://g:1: a TLS scheduler needs --tls-ca-file, --tls-cert and --tls-key (the CA "
            "that signed the cluster's certificates, and this client's certificate and key); "
            "see docs/cluster.md",
        ClusterOptions(scheduler="ucx://g:1"):
            "ucx://g:1: unsupported scheduler address; use tls://HOST:PORT (or "
            "tcp://127.0.0.1:PORT for a scheduler on this machine)",
        ClusterOptions(scheduler="tcp://127.0.0.1:1", tls_key="k"):
            "tcp://127.0.0.1:1: --tls-* options given for a plain tcp:// address; did you "
            "mean tls://?",
        ClusterOptions(scheduler="tcp://10.1.1.1:1"):
            "tcp://10.1.1.1:1: refusing plain TCP to another machine: anyone who can reach "
            "that port can run code on the cluster and read what it grades. Start the "
            "scheduler and workers with TLS certificates and use tls://..., or pass "
            "--allow-plain-tcp on a network you fully control",
    }
    for options, message in refusals.items():
        with pytest.raises(GradeError) as refused:
            security_for(options)
        assert str(refused.value) == message


def test_the_sandbox_pool_keeps_one_warm_sandbox_per_thread_and_returns_each(monkeypatch):
    """Kills (``SandboxPool``): a sandbox per worker of another number, limits or GPU
    access; a sandbox not returned to the pool after a run (the next task would wait for
    ever) or after a failed one; the pool pickled with its sandboxes (it is sent to every
    worker); or sandboxes left running at teardown."""
    import pickle
    from types import SimpleNamespace

    from autograder import cluster
    from autograder.limits import Limits
    from autograder.plan import Plan
    from autograder.protocol import Report, Status

    limits = Limits(cell_seconds=7)
    pool = cluster.SandboxPool(limits, sandbox=False, gpu=True, name="run-1")
    copy = pickle.loads(pickle.dumps(pool))
    assert (copy.limits, copy.sandbox, copy.gpu, copy.name, copy.free) == (
        limits, False, True, "run-1", None)
    copy.setup(SimpleNamespace(state=SimpleNamespace(nthreads=3)))
    sandboxes = list(copy.free.queue)
    assert [s.preferred_slot for s in sandboxes] == [0, 1, 2]
    assert all(s.limits == limits and s.gpu is True and s.sandbox is False for s in sandboxes)
    assert pickle.loads(pickle.dumps(copy)).free is None

    ran = []

    def run_plan(sandbox, plan):
        ran.append((sandbox, plan))
        if plan.tampered:
            raise RuntimeError("the sandbox broke")
        return Report(Status.OK, "ran")

    monkeypatch.setattr(cluster, "run_plan", run_plan)
    plan = Plan()
    assert copy.run(plan) == Report(Status.OK, "ran")
    with pytest.raises(RuntimeError):
        copy.run(Plan(tampered={"q": "edited"}))
    assert ran[0] == (sandboxes[0], plan) and ran[1][0] is sandboxes[1]
    assert sorted(map(id, copy.free.queue)) == sorted(map(id, sandboxes))  # all back
    closed = []
    for sandbox in sandboxes:
        monkeypatch.setattr(sandbox, "close", lambda s=sandbox: closed.append(s))
    copy.teardown(None)
    assert closed == [sandboxes[2], sandboxes[0], sandboxes[1]] and copy.free.empty()
    with pytest.raises(AssertionError, match="^the sandbox plugin was not set up on this worker$"):
        cluster.SandboxPool(limits, False, False, "x").run(plan)


def test_a_task_runs_in_this_runs_sandboxes_and_names_its_worker(monkeypatch):
    """Kills (``run_task``): a task run by another run's plugin, or its worker misnamed in
    the summary."""
    from types import SimpleNamespace

    from autograder import cluster
    from autograder.plan import Plan

    plan = Plan()
    plugins = {"mine": SimpleNamespace(run=lambda p: ("report", p)),
               "other": SimpleNamespace(run=lambda p: ("wrong", p))}
    monkeypatch.setattr(cluster, "get_worker",
                        lambda: SimpleNamespace(plugins=plugins, name=7))
    assert cluster.run_task("mine", plan) == (("report", plan), "7")


def test_waiting_for_workers_polls_twice_a_second_for_a_minute(monkeypatch):
    """Kills: a wait for workers of another length (60 s by default), polled at another
    rate, or given up at once."""
    import time as time_module

    from autograder.cluster import _wait_for_threads

    now, sleeps = [1000.0], []

    def sleep(seconds):
        assert seconds == 0.5
        sleeps.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(time_module, "monotonic", lambda: now[0])
    monkeypatch.setattr(time_module, "sleep", sleep)
    with pytest.raises(GradeError, match="in 60 s$"):
        _wait_for_threads(_Client({}), gpu=False)
    assert len(sleeps) == 121  # polled at 0, 0.5, ... 60 s; given up once past 60 s

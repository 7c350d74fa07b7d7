"""Grading on Dask distributed: the ``grade`` process coordinates, Dask workers run sandboxes.

``run_on_dask`` is the engine ``grade`` uses by default. With no scheduler address it starts a
local cluster in this process (one scheduler and one worker of ``--jobs`` threads, talking
over ``inproc://``, with no dashboard unless asked for: nothing on the network);
with ``--scheduler ADDRESS`` it uses a running cluster (``dask scheduler`` and ``dask worker``
processes, or any Dask cluster manager).

- The coordinator (this process) plans each submission, submits one task per submission,
  judges the plain report that comes back, and is the only writer of results (``grade``
  records them). Expected values never leave it: a task carries the steps to run (the
  student's cells and the instructor's case *calls*), never what they should return.
- A task runs on a Dask worker in a warm sandbox (``autograder.sandbox.Worker``, torch
  imported once). ``SandboxPool``, a worker plugin, keeps one sandbox per worker thread; each
  sandbox claims a machine-wide slot (``sandbox.slots``), so uids stay unique however many
  worker processes share a machine, and dies with its worker (bwrap --die-with-parent).
- A task's key holds a hash of the student id, the submission's fingerprint and this run's
  id, so two identical submissions are two tasks, and two runs never share one.
- Nothing is waited for without a limit: a task not back within ``overdue_after`` is
  cancelled and its submission recorded as a (not final) grader error.
- Only ``IN_FLIGHT_PER_THREAD`` tasks per worker thread are submitted at a time, so a batch
  of 50,000 never piles up in the scheduler (or in this process's memory).
- A worker that dies mid-task (OOM killer, node lost) has its tasks rerun elsewhere by the
  scheduler, up to its ``distributed.scheduler.allowed-failures`` (``RETRIES`` for the local
  cluster); a submission that kills every worker it touches then ends "crashed", and a rerun
  of ``grade`` tries it again. The local cluster sets ``worker-saturation`` to 1.0, so a
  worker holds only the tasks it is running and a killed one takes no queued innocent
  submission with it; set the same on a scheduler of your own.
- Over a network the link must be TLS with certificates (``tls://`` and ``--tls-*``): Dask
  runs pickled code sent to it, so plain ``tcp://`` is refused unless the address is this
  machine's loopback or ``allow_plain_tcp`` is set.
- ``gpu=True``: each task asks for one unit of the workers' ``GPU`` resource (workers started
  with ``--resources GPU=N``), and its sandbox sees the GPU device files.

Trusts the cluster it is pointed at (its workers run the grader). Imports ``distributed``,
``autograder.pipeline``, ``plan``, ``protocol``, ``results`` and ``sandbox``.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import queue
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import dask
from distributed import (
    Client,
    KilledWorker,
    Scheduler,
    Security,
    SpecCluster,
    WorkerPlugin,
    get_worker,
    wait,
)
from distributed import Worker as DaskWorker
from distributed.client import FutureCancelledError

from autograder import interrupt
from autograder.course_dirs import GradeError
from autograder.limits import COORDINATOR_SLACK_SECONDS, GRACE_SECONDS, START_SECONDS, Limits
from autograder.pipeline import (
    Submission,
    grader_failure,
    judged,
    planned,
    run_plan,
    scored_nothing,
)
from autograder.plan import Plan
from autograder.protocol import Report, Status
from autograder.results import NotebookResult
from autograder.sandbox.bwrap import SandboxUnavailable, gpu_devices
from autograder.sandbox.worker import Worker
from autograder.spec import AssignmentSpec

RETRIES = 2  # worker deaths a submission may cause on the local cluster before it is "crashed"
IN_FLIGHT_PER_THREAD = 2  # tasks submitted per worker thread: one running, one waiting
GPU_RESOURCE = "GPU"


@dataclass(frozen=True)
class ClusterOptions:
    """Where ``grade`` runs its tasks. The defaults: a local cluster, nothing to set up."""

    scheduler: str | None = None  # e.g. "tls://grader.example.edu:8786"; None: local cluster
    tls_ca_file: str | None = None  # CA that signed the scheduler's and workers' certificates
    tls_cert: str | None = None  # this client's certificate ...
    tls_key: str | None = None  # ... and its private key
    allow_plain_tcp: bool = False  # accept tcp:// to a non-loopback address (unsafe)
    gpu: bool = False  # each task needs one GPU (workers advertise --resources GPU=N)
    # the local cluster only: serve Dask's dashboard (it shows student ids) on 127.0.0.1 at
    # this port (0: any free port); None: no dashboard, and no pages at all
    dashboard_port: int | None = None


class SandboxPool(WorkerPlugin):
    """A Dask worker plugin: one warm sandbox per worker thread, for this run's limits.

    Registered by the coordinator under a name of its run, so two runs (with different
    limits, say) on one cluster keep separate sandboxes; torn down (sandboxes closed) when
    the run unregisters it or the worker stops."""

    idempotent = False

    def __init__(self, limits: Limits, sandbox: bool, gpu: bool, name: str) -> None:
        self.limits, self.sandbox, self.gpu, self.name = limits, sandbox, gpu, name
        self.free: queue.Queue[Worker] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "free"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, free=None)

    def setup(self, worker: Any) -> None:
        self.free = queue.Queue()
        for slot in range(worker.state.nthreads):  # started by their first run
            self.free.put(Worker(self.limits, slot=slot, sandbox=self.sandbox, gpu=self.gpu))

    def teardown(self, worker: Any) -> None:
        while self.free is not None and not self.free.empty():
            self.free.get_nowait().close()

    def run(self, plan: Plan) -> Report:
        assert self.free is not None, "the sandbox plugin was not set up on this worker"
        sandbox = self.free.get()  # at most nthreads tasks run at once: never waits long
        try:
            return run_plan(sandbox, plan)
        finally:
            self.free.put(sandbox)


def run_task(plugin_name: str, plan: Plan) -> tuple[Report, str]:
    """One submission, on a Dask worker: its plan's steps in a warm sandbox. Returns the plain
    report and the worker's name (for the summary)."""
    worker = get_worker()
    return worker.plugins[plugin_name].run(plan), str(worker.name)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def security_for(options: ClusterOptions) -> Any:
    """The ``distributed.Security`` for ``options.scheduler``, or None for a plain local link;
    raises GradeError for an address the grader will not use."""
    address = options.scheduler or ""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    tls_files = (options.tls_ca_file, options.tls_cert, options.tls_key)
    if parts.scheme == "tls":
        if not all(tls_files):
            raise GradeError(
                f"{address}: a TLS scheduler needs --tls-ca-file, --tls-cert and --tls-key "
                "(the CA that signed the cluster's certificates, and this client's "
                "certificate and key); see docs/cluster.md")
        return Security(tls_ca_file=options.tls_ca_file, tls_client_cert=options.tls_cert,
                        tls_client_key=options.tls_key, require_encryption=True)
    if parts.scheme != "tcp":
        raise GradeError(f"{address}: unsupported scheduler address; use tls://HOST:PORT "
                         "(or tcp://127.0.0.1:PORT for a scheduler on this machine)")
    if any(tls_files):
        raise GradeError(f"{address}: --tls-* options given for a plain tcp:// address; "
                         "did you mean tls://?")
    if not _is_loopback(parts.hostname or "") and not options.allow_plain_tcp:
        raise GradeError(
            f"{address}: refusing plain TCP to another machine: anyone who can reach that "
            "port can run code on the cluster and read what it grades. Start the scheduler "
            "and workers with TLS certificates and use tls://..., or pass --allow-plain-tcp "
            "on a network you fully control")
    return None


@contextmanager
def _client(options: ClusterOptions, jobs: int) -> Iterator[Any]:
    """A client of the cluster ``options`` names, or of a local cluster in this process that
    nothing outside it can reach: the scheduler and its one worker (``jobs`` threads) talk
    over ``inproc://``, and the HTTP server Dask starts for each of them whatever its options
    (LocalCluster's ``dashboard_address=None`` still served pages on 0.0.0.0:8787, and the
    worker's on a random port) listens on 127.0.0.1 only and has no pages, unless
    ``options.dashboard_port`` asks for the scheduler's dashboard (still on 127.0.0.1)."""
    if options.scheduler is None:
        resources = {}
        if options.gpu:
            gpus = sum(path.name[len("nvidia"):].isdigit() for path in gpu_devices())
            if not gpus:
                raise GradeError("--gpu: this machine has no NVIDIA GPU (/dev/nvidia0...); "
                                 "grade on a cluster whose workers have one (--scheduler)")
            resources = {GPU_RESOURCE: gpus}
        dashboard = options.dashboard_port is not None
        # saturation 1.0: a worker is handed only the tasks it runs, so one that a submission
        # kills takes no queued submission down with it (each counts a failure)
        config: dict[str, Any] = {"distributed.scheduler.allowed-failures": RETRIES,
                                  "distributed.scheduler.worker-saturation": 1.0}
        if not dashboard:  # (read as the servers start, so only while the cluster starts)
            config |= {"distributed.scheduler.http.routes": [],
                       "distributed.worker.http.routes": []}
        # LocalCluster cannot give the worker a loopback address without also turning on its
        # dashboard, so the same cluster is spelled out: one Scheduler, one in-process Worker
        scheduler = {"cls": Scheduler, "options": {
            "protocol": "inproc://", "dashboard": dashboard,
            "dashboard_address": f"127.0.0.1:{options.dashboard_port or 0}"}}
        worker = {"cls": DaskWorker, "options": {
            "protocol": "inproc://", "nthreads": jobs, "resources": resources,
            "dashboard": False, "dashboard_address": "127.0.0.1:0",
            # all of this machine's memory (a float <= 1 is a fraction of it), as LocalCluster
            # gives its one worker: with no limit at all, test_grade's memory bomb timed out
            # instead of running out of memory
            "memory_limit": 1.0}}
        with dask.config.set(config):
            cluster = SpecCluster(scheduler=scheduler, workers={0: worker}, worker=worker,
                                  silence_logs=logging.ERROR)
        with cluster, Client(cluster) as client:
            yield client
        return
    if options.dashboard_port is not None:
        raise GradeError("a dashboard port is for the local cluster only; a cluster's "
                         "scheduler serves its own dashboard (keep it behind a firewall or "
                         "authentication)")
    security = security_for(options)
    try:
        client = Client(options.scheduler, security=security, timeout=30)
    except (OSError, TimeoutError) as problem:
        raise GradeError(f"cannot reach the Dask scheduler at {options.scheduler}: "
                         f"{problem}") from None
    with client:
        yield client


def _threads(client: Any, gpu: bool) -> int:
    """Worker threads that can take this run's tasks right now."""
    try:
        info = client.scheduler_info(n_workers=-1)  # all workers, not only the first five
    except TypeError:  # distributed before n_workers existed: always all of them
        info = client.scheduler_info()
    workers = info["workers"].values()
    return sum(w["nthreads"] for w in workers
               if not gpu or w.get("resources", {}).get(GPU_RESOURCE, 0) > 0)


def _wait_for_threads(client: Any, gpu: bool, seconds: float = 60) -> int:
    deadline = time.monotonic() + seconds
    while (threads := _threads(client, gpu)) == 0:
        if time.monotonic() > deadline:
            kind = f"with the {GPU_RESOURCE} resource " if gpu else ""
            raise GradeError(f"no Dask worker {kind}joined the scheduler in {seconds:.0f} s")
        time.sleep(0.5)
    return threads


def died_every_time(spec: AssignmentSpec, submission: Submission,
                    assignment: str) -> NotebookResult:
    """A submission whose task killed every worker it ran on (up to the scheduler's limit):
    crashed, and not final, so the next run grades it again."""
    return scored_nothing(
        spec, submission, assignment, Status.CRASHED,
        "the grading worker died each time it ran this submission (the machine's "
        "out-of-memory killer, or a lost node); rerun grade to try it again", final=False)


def run_on_dask(todo: list[tuple[Submission, str]], spec: AssignmentSpec, assignment: str,
                jobs: int, limits: Limits, sandbox: bool, options: ClusterOptions,
                on_worker: Counter) -> Iterator[tuple[Submission, str, NotebookResult]]:
    """Yield (submission, fingerprint, result) as results come back, in any order; counts
    in ``on_worker`` the submissions each Dask worker ran."""
    if not todo:
        return
    run_id = uuid.uuid4().hex[:8]
    name = f"autograder-sandboxes-{run_id}"  # this run's sandboxes, with its limits
    with _client(options, jobs) as client:
        threads = _wait_for_threads(client, options.gpu)
        client.register_plugin(SandboxPool(limits, sandbox, options.gpu, name), name=name)
        resources = {GPU_RESOURCE: 1} if options.gpu else None
        waiting = iter(todo)
        # task key → (future, submission, fingerprint, plan, when submitted)
        running: dict[str, tuple[Any, Submission, str, Plan, float]] = {}
        # a task may wait behind the others of its thread before it starts
        overdue = IN_FLIGHT_PER_THREAD * overdue_after(limits)
        last_count = time.monotonic()
        try:
            while True:
                if time.monotonic() - last_count > 5:  # workers may join or leave
                    threads, last_count = max(1, _threads(client, options.gpu)), time.monotonic()
                while len(running) < IN_FLIGHT_PER_THREAD * threads:
                    item = next(waiting, None)
                    if item is None:
                        break
                    submission, key = item
                    plan = planned(spec, submission, assignment, limits)
                    if isinstance(plan, NotebookResult):  # invalid: judged without running
                        yield submission, key, plan
                        continue
                    future = client.submit(
                        run_task, name, plan, pure=False, resources=resources,
                        key=f"grade-{run_id}-{student_tag(submission.student)}-{key[:16]}")
                    running[future.key] = (future, submission, key, plan, time.monotonic())
                if not running:
                    return
                try:  # a bounded wait, so that an overdue task is noticed
                    finished, _ = wait([entry[0] for entry in running.values()], timeout=5,
                                       return_when="FIRST_COMPLETED")
                except TimeoutError:
                    finished = set()
                interrupt.check()
                for future in finished:
                    _, submission, key, plan, _ = running.pop(future.key)
                    yield submission, key, _result_of(future, spec, submission, assignment,
                                                      plan, on_worker)
                    future.release()
                now = time.monotonic()
                for task, (future, submission, key, _, since) in list(running.items()):
                    if now - since > overdue:
                        future.cancel()
                        del running[task]
                        yield submission, key, grader_failure(
                            spec, submission, assignment,
                            f"no result after {overdue:.0f} s; the grader gave up waiting")
        finally:
            for future, *_ in running.values():
                future.cancel()
            try:
                client.unregister_worker_plugin(name)
            except Exception:  # the cluster may be gone; its workers close their sandboxes
                pass


def student_tag(student: str) -> str:
    """What a task's key says of its student: a hash, since Dask's dashboard and logs show
    keys (and an id may hold anything a folder name can)."""
    return hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def overdue_after(limits: Limits) -> float:
    """Seconds after which a running submission's result is given up: its two runs (fast
    and full plan) with the watchdog's grace, a sandbox start, and slack for a busy
    machine. Both engines use it; the sandbox's own watchdog ends a run long before."""
    return 2 * (limits.submission_seconds + GRACE_SECONDS) + START_SECONDS \
        + COORDINATOR_SLACK_SECONDS


def _result_of(future: Any, spec: AssignmentSpec, submission: Submission, assignment: str,
               plan: Plan, on_worker: Counter) -> NotebookResult:
    try:
        report, worker = future.result()
    except (KilledWorker, FutureCancelledError):
        return died_every_time(spec, submission, assignment)
    except SandboxUnavailable as error:
        raise GradeError(f"a sandboxed worker could not start: {error}") from None
    except Exception as error:  # a grader bug on the worker costs this submission only
        return grader_failure(spec, submission, assignment, error)
    on_worker[worker] += 1
    try:
        return judged(spec, submission, assignment, plan, report)
    except Exception as error:  # noqa: BLE001 - a judging bug costs this submission only
        return grader_failure(spec, submission, assignment, error)

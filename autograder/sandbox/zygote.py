"""The program inside the grading sandbox: ``python -m autograder.sandbox.zygote``.

Runs inside bubblewrap, next to student code; trusts the requests on its pipe (they come
from the grader's ``Worker``) and nothing its children send. Imports only the standard
library, ``autograder.protocol`` (with ``autograder.limits``), its sibling runner modules
(``child``, ``collector``, ``cleanup``) and ``lecture_utils``.

It is the *zygote*: it imports torch, numpy, IPython, matplotlib and ``lecture_utils`` once,
makes itself non-dumpable (so processes of the same uid cannot ptrace it or read its memory),
then serves submissions one at a time. For each it forks a fresh child (``child.py``) that
runs the student's cells and evaluates the case expressions, collects the child's results
(``collector.py``), enforces the deadline and the memory and process census, kills every
process the submission left behind, wipes the scratch space (``cleanup.py``) and answers
with one ``protocol.Report``. Expected values never come here; only the values the
expressions produce leave. The messages are described in ``autograder.protocol``.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import select
import signal
import stat
import sys
import time
from typing import Any

from autograder.limits import POLL_SECONDS
from autograder.protocol import CellOutcome, Limits, Report, RunCell, Status, Step, step_from_wire
from autograder.sandbox.child import child_main, describe
from autograder.sandbox.cleanup import clean_up, comm, pids, read_status, sysv_shm_bytes
from autograder.sandbox.collector import Collector, Verdict, gib
from lecture_utils.i18n import N_

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
# The sandbox is Linux only. Unsandboxed (a reader's own `check` on macOS, say) the runner
# also works without prctl and /proc, with fewer guards: limits are best effort, and leftover
# processes are found through the child's process group instead of /proc.
ON_LINUX = sys.platform.startswith("linux")
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    if not ON_LINUX:
        return
    if _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


class Zygote:
    def __init__(self, args: argparse.Namespace) -> None:
        self.requests = args.requests
        self.reports = args.reports
        self.limits = Limits.from_json(json.loads(args.limits))
        self.scratch = {folder: stat.S_IMODE(os.stat(folder).st_mode)
                        for folder in args.scratch or []}
        self.pid = os.getpid()
        # kill(-1) is only ever used where it is certain to stay inside the sandbox: this
        # process's parent is bubblewrap as pid 1 of a pid namespace of its own.
        self.in_sandbox = bool(args.sandbox) and os.getppid() == 1 and comm(1) == "bwrap"
        if args.sandbox and not self.in_sandbox:
            raise SystemExit("sandbox zygote: --sandbox given but not running under bwrap")
        self.shell: Any = None
        self.last_child = 0
        self.allow_warm = bool(args.warm)
        self.optim_ready = False  # torch._dynamo imported (see _import_for)
        self.meta_ready = False  # the 'meta' device used once (see _import_for)

    # -- start
    def preload(self) -> None:
        try:  # first OOM victims of the machine: the sandbox, never the grader
            with open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")
        except OSError:
            pass
        import importlib
        import pkgutil

        import numpy  # noqa: F401
        import torch

        torch.set_num_threads(1)
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config

        import lecture_utils
        import lecture_utils.checks  # noqa: F401
        import lecture_utils.gpu_cells

        for module in pkgutil.iter_modules(lecture_utils.__path__, "lecture_utils."):
            importlib.import_module(module.name)
        for optional in ("ipywidgets", "matplotlib_inline.backend_inline"):
            try:
                importlib.import_module(optional)
            except Exception:  # noqa: BLE001 - only a speed-up
                pass

        class SandboxShell(InteractiveShell):
            def enable_gui(self, gui: str | None = None) -> None:
                """No GUI event loops here: ``%matplotlib inline`` (and Agg) just work."""

        config = Config()
        config.HistoryManager.enabled = False  # no sqlite file, no saving thread before fork
        self.shell = SandboxShell.instance(config=config)
        lecture_utils.gpu_cells.register_if_in_ipython()
        prctl(PR_SET_DUMPABLE, 0)
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        self.base_anon = read_status("self").get("RssAnon", 0) * 1024

    # -- serve
    def serve(self) -> None:
        import threading

        self._write({"ready": True, "pid": self.pid, "sandbox": self.in_sandbox,
                     "python_threads": threading.active_count(),
                     "tasks": read_status("self").get("Threads", 0)})
        with os.fdopen(self.requests, "rb", buffering=1 << 16, closefd=False) as requests:
            for line in requests:
                try:
                    request = json.loads(line)
                    if "warm" in request:
                        report = self.warm([step_from_wire(step) for step in request["warm"]])
                    else:
                        report = self.run([step_from_wire(step) for step in request["steps"]])
                except Exception as error:  # noqa: BLE001 - a bug here costs one submission
                    self.cleanup()
                    report = Report(Status.CRASHED,
                                    f"internal sandbox error: {describe(error)}")
                self._write(report.to_wire())

    def _write(self, message: dict[str, Any]) -> None:
        data = memoryview((json.dumps(message) + "\n").encode())
        while data:
            data = data[os.write(self.reports, data):]

    def warm(self, steps: list[Step]) -> Report:
        """Run instructor cells here, in the zygote, so every later child starts from their
        state. Only for the audit (``--warm``), which plants bugs in trusted solutions; a
        grading zygote refuses, since its state must stay free of anyone's code."""
        if not self.allow_warm:
            raise ValueError("this zygote was not started with --warm")
        if self.shell.user_ns.get("__warmed__") is None:
            import random

            import numpy as np
            import torch

            random.seed(0)
            np.random.seed(0)
            torch.manual_seed(0)
            self.shell.user_ns["__warmed__"] = True
        cells = []
        for index, step in enumerate(steps):
            if not isinstance(step, RunCell):
                raise ValueError("only cells can warm a zygote")
            started = time.monotonic()
            result = self.shell.run_cell(step.source, store_history=False)
            error = result.error_before_exec or result.error_in_exec
            cells.append(CellOutcome(index, None if error is None else describe(error),
                                     round(time.monotonic() - started, 4)))
        # children inherit what these cells allocated: count only what they add to it
        self.base_anon = read_status("self").get("RssAnon", 0) * 1024
        return Report(Status.OK, "", cells)

    def _import_for(self, steps: list[Step]) -> None:
        """First uses that cost seconds in every child, paid here once when a submission's
        steps first need them, so that every later child inherits them; zygotes whose
        notebooks never need one never pay. torch.optim imports dynamo (2 s) on an
        optimizer's first construction (notebooks 07 and 09); the first operation on the
        'meta' device sets up its kernels (0.7 s, 2 s on a loaded machine: notebooks 02b, 04,
        08 and 09 check answers there, against a per-check time limit)."""
        if self.optim_ready and self.meta_ready:
            return
        wire = "".join(json.dumps(step.to_wire()) for step in steps)
        ready = self.optim_ready, self.meta_ready
        if not self.optim_ready and "optim" in wire:
            import importlib

            importlib.import_module("torch._dynamo")
            self.optim_ready = True
        if not self.meta_ready and "meta" in wire:
            import torch

            square = torch.empty(2, 2, device="meta")
            (square @ square + square).sum()
            self.meta_ready = True
        if ready == (self.optim_ready, self.meta_ready):
            return
        self.base_anon = read_status("self").get("RssAnon", 0) * 1024  # as after preload

    def run(self, steps: list[Step]) -> Report:
        """Fork a child for ``steps``, watch it until it ends or breaks a limit, clean up."""
        self._import_for(steps)
        collector = Collector(steps, self.limits)
        read_end, write_end = os.pipe()
        pid = self.last_child = os.fork()
        if pid == 0:
            os.close(read_end)
            child_main(self.shell, steps, write_end, self.limits, [self.requests, self.reports])
        os.close(write_end)
        ended: tuple[int, Any] | None = None
        verdict: Verdict | None = None
        try:
            verdict, ended = self._watch(pid, read_end, collector)
        finally:
            os.close(read_end)
            if ended is None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                _, wait_status, usage = os.wait4(pid, 0)
                ended = wait_status, usage
            self.cleanup()
        return collector.report(verdict, *ended)

    def _watch(self, pid: int, read_end: int,
               collector: Collector) -> tuple[Verdict | None, tuple[int, Any] | None]:
        """Read results until the child exits, the deadline passes or a rule is broken:
        (the verdict if one was reached, the child's wait status and usage if it exited)."""
        deadline = time.monotonic() + self.limits.submission_seconds
        poller = select.poll()
        poller.register(read_end, select.POLLIN)
        try:  # readable when the child exits: no polling delay at the end
            child_fd: int | None = os.pidfd_open(pid)
            poller.register(child_fd, select.POLLIN)
        except (AttributeError, OSError):
            child_fd = None
        open_pipe, next_census = True, 0.0
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    seconds = f"{self.limits.submission_seconds:g}"
                    return (Status.TIMEOUT, N_(f"the submission ran past {seconds} s")), None
                for fd, _event in poller.poll(min(POLL_SECONDS, deadline - now) * 1000):
                    if fd != read_end or not open_pipe:
                        continue  # the child exited: reaped below
                    chunk = os.read(read_end, 1 << 16)
                    if not chunk:
                        open_pipe = False
                        poller.unregister(read_end)
                    elif verdict := collector.take(chunk):
                        return verdict, None
                ended = _wait_for(pid)
                if ended is not None:
                    return _drain(read_end, collector), ended
                if time.monotonic() >= next_census:
                    next_census = time.monotonic() + POLL_SECONDS
                    if verdict := self._census():
                        return verdict, None
        finally:
            if child_fd is not None:
                os.close(child_fd)

    def _census(self) -> Verdict | None:
        """In the sandbox, every process is the submission's: count tasks and private memory."""
        if not self.in_sandbox:
            return None
        limits = self.limits
        tasks, memory = 0, 0
        for pid in pids():
            try:
                values = read_status(pid)
            except (OSError, ValueError):
                continue
            tasks += values.get("Threads", 1)
            if pid not in (1, self.pid):
                private = (values.get("RssAnon", 0) + values.get("RssShmem", 0)) * 1024
                memory += max(0, private - self.base_anon)
        memory += sysv_shm_bytes()
        if tasks >= max(4, int(limits.processes) - 1):
            return Status.CRASHED, N_(f"started too many processes (the limit is "
                                      f"{limits.processes})")
        if memory > limits.memory_bytes:
            return Status.OUT_OF_MEMORY, f"used more than {gib(limits.memory_bytes)}"
        return None

    def cleanup(self) -> None:
        clean_up(self.in_sandbox, self.pid, self.last_child, self.scratch)


def _wait_for(child: int) -> tuple[int, Any] | None:
    """Reap exited processes (orphans come to us: we are a subreaper); (wait status, usage)
    of ``child`` once it has exited, else None."""
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return None
        if pid == 0:
            return None
        if pid == child:
            return status, usage


def _drain(read_end: int, collector: Collector) -> Verdict | None:
    """What the exited child left in the pipe (leftover processes may hold it open)."""
    os.set_blocking(read_end, False)
    verdict = None
    try:
        while verdict is None and (chunk := os.read(read_end, 1 << 16)):
            verdict = collector.take(chunk)
    except BlockingIOError:
        pass
    return verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, required=True, help="fd to read requests from")
    parser.add_argument("--reports", type=int, required=True, help="fd to write reports to")
    parser.add_argument("--limits", required=True, help="autograder.limits.Limits as JSON")
    parser.add_argument("--sandbox", action="store_true", help="running inside bwrap")
    parser.add_argument("--scratch", action="append", help="folder to empty after each run")
    parser.add_argument("--warm", action="store_true",
                        help="accept warm requests (the audit's; never used for grading)")
    args = parser.parse_args(argv)
    zygote = Zygote(args)
    zygote.preload()
    zygote.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())

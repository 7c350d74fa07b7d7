"""``Worker``: one sandbox with torch imported, running one submission's steps at a time.

Trusted side (the grader): imports the standard library, ``autograder.limits``,
``autograder.protocol``, ``autograder.sandbox.bwrap`` and ``lecture_utils.i18n`` (its reasons
are English, marked for translation where they are shown). Everything read back from the
sandbox is untrusted and goes through ``protocol.Report.from_wire``.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict

from autograder.limits import GRACE_SECONDS, START_SECONDS, STDERR_TAIL, Limits
from autograder.protocol import Report, Status, Step, check_steps
from autograder.sandbox.bwrap import (
    SCRATCH_DIRS,
    SandboxUnavailable,
    environment,
    sandbox_command,
)
from autograder.sandbox.slots import claim_slot, release_slot
from lecture_utils.i18n import N_


class Worker:
    """One sandboxed process with torch, numpy, IPython and lecture_utils already imported,
    which forks a fresh child for each submission (so `import torch` is paid once per worker,
    not once per submission).

    ``run(steps)`` takes an ordered list of ``protocol.RunCell`` and ``protocol.EvaluateCases``
    and returns a ``protocol.Report``: status ok, timeout, out of memory or crashed, a message
    ("" or why, e.g. "cell 3 ran past 30 s", "killed by SIGSEGV"), one ``CellOutcome`` per
    cell (numbered from 0, in order, as the messages number them) and the ``CaseOutcome``s of
    each exercise, and the seconds it took. Cases never evaluated (the child died first) are
    absent. A cell past ``cell_seconds`` gets the error "TimeoutError: cell ran past 30 s" and
    the run goes on; a case past it gets the error "timed out after 30 s"; both carry
    ``timeout=True``. ``run`` restarts the worker by itself if it died, so one bad submission
    never breaks the next. Use one worker from one thread at a time.
    """

    def __init__(self, limits: Limits | None = None, *, slot: int = 0,
                 sandbox: bool = True, gpu: bool = False, warmable: bool = False) -> None:
        self.limits = limits or Limits()
        # ``slot`` is a preference: the worker takes the first slot from it that no other
        # worker on this machine holds (``sandbox.slots``), and keeps it until ``close``.
        self.preferred_slot = slot
        self.slot = slot
        self._slot_lock: int | None = None
        self.sandbox = sandbox
        self.gpu = gpu  # the sandbox sees the GPU device files
        # The audit's workers take ``warm`` cells (trusted instructor code) into the zygote
        # itself; they are replayed whenever the worker restarts. Grading never sets this.
        self.warmable = warmable
        self._warm_steps: list[Step] = []
        self.start_seconds: float | None = None  # how long the last start took
        self.starts = 0
        self._process: subprocess.Popen | None = None
        self._requests: int | None = None
        self._reports: int | None = None
        self._buffer = bytearray()
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._stderr_thread: threading.Thread | None = None
        self._scratch: str | None = None

    def __enter__(self) -> Worker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The pid (and process group) of the worker's outermost process, while it runs."""
        return self._process.pid if self._process is not None else None

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # -- start and stop
    def _command(self, requests: int, reports: int) -> tuple[list[str], dict[str, str], str]:
        runner = [sys.executable, "-P", "-s", "-m", "autograder.sandbox.zygote",
                  "--requests", str(requests), "--reports", str(reports),
                  "--limits", json.dumps(asdict(self.limits))]
        if self.warmable:
            runner.append("--warm")
        if self.sandbox:
            scratch = [arg for path in SCRATCH_DIRS for arg in ("--scratch", path)]
            command = sandbox_command(self.limits, self.slot, [*runner, "--sandbox", *scratch],
                                      gpu=self.gpu)
            return command, {"PATH": "/usr/bin:/bin"}, "/"
        if self._scratch is None:
            self._scratch = tempfile.mkdtemp(prefix=f"grader-worker-{self.slot}-")
        return [*runner, "--scratch", self._scratch], environment(self._scratch), self._scratch

    def start(self) -> None:
        """Start the worker (bwrap + imports, a second or two); no-op if it is running."""
        if self.alive():
            return
        self._kill()
        if self._slot_lock is None:
            self.slot, self._slot_lock = claim_slot(self.preferred_slot)
        started = time.monotonic()
        request_read, request_write = os.pipe()
        report_read, report_write = os.pipe()
        try:
            command, env, cwd = self._command(request_read, report_write)
            self._process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, pass_fds=(request_read, report_write), env=env, cwd=cwd,
                start_new_session=True)
        except BaseException as problem:
            for fd in (request_read, request_write, report_read, report_write):
                os.close(fd)
            if isinstance(problem, OSError) and self.sandbox:
                raise SandboxUnavailable(f"bubblewrap could not be started: {problem}") from None
            raise
        os.close(request_read)
        os.close(report_write)
        self._requests, self._reports = request_write, report_read
        os.set_blocking(self._requests, False)
        self.starts += 1
        with self._stderr_lock:
            self._stderr.clear()
        self._stderr_thread = threading.Thread(target=self._drain, args=(self._process,),
                                               daemon=True)
        self._stderr_thread.start()
        line = self._read_line(started + START_SECONDS)
        try:
            ready = json.loads(line) if line else None
        except ValueError:
            ready = None
        if not isinstance(ready, dict) or ready.get("ready") is not True:
            if self._stderr_thread is not None and self._process.poll() is not None:
                self._stderr_thread.join(timeout=2)
            tail = self.stderr_tail() or "no error output"
            self._kill()
            what = "sandbox" if self.sandbox else "worker"
            problem = f"the grading {what} did not start: {tail}"
            raise SandboxUnavailable(problem) if self.sandbox else RuntimeError(problem)
        self.start_seconds = time.monotonic() - started
        if self._warm_steps:
            report = self._ask("warm", self._warm_steps)
            if report.status != Status.OK:
                raise RuntimeError(f"the worker could not be warmed again: {report.message}")

    def close(self) -> None:
        """Stop the worker: let the zygote exit on end of input, then kill what is left."""
        process = self._process
        if process is not None and process.poll() is None and self._requests is not None:
            try:
                os.close(self._requests)
            except OSError:
                pass
            self._requests = None
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        self._kill()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        if self._slot_lock is not None:
            release_slot(self._slot_lock)
            self._slot_lock = None

    def _kill(self) -> None:
        process = self._process
        if process is not None:
            try:
                os.killpg(process.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for fd in (self._requests, self._reports):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._requests = self._reports = None
        self._buffer.clear()
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=2)
            self._stderr_thread = None
        if process is not None and process.stderr is not None:
            process.stderr.close()
        self._process = None

    def _drain(self, process: subprocess.Popen) -> None:
        """Keep the tail of the worker's stderr (bwrap's or Python's errors; may be garbage)."""
        stream = process.stderr
        try:
            while chunk := stream.read1(65536):
                with self._stderr_lock:
                    self._stderr.extend(chunk)
                    del self._stderr[:-STDERR_TAIL]
        except (OSError, ValueError):
            pass

    def stderr_tail(self) -> str:
        with self._stderr_lock:
            return self._stderr.decode(errors="replace").strip()

    # -- talking to the zygote
    def _read_line(self, deadline: float) -> bytes | None:
        """The next line from the zygote; None if the deadline passed; b"" at end of file."""
        limit = 2 * self.limits.output_bytes + 2**20
        poller = select.poll()
        poller.register(self._reports, select.POLLIN)
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                return line or b" "
            if len(self._buffer) > limit:
                return b"\x00"  # not JSON: reported as a malformed answer
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if not poller.poll(min(remaining, 1.0) * 1000):
                continue
            chunk = os.read(self._reports, 1 << 20)
            if not chunk:
                return b""
            self._buffer.extend(chunk)

    def _send(self, data: bytes, deadline: float) -> bool:
        poller = select.poll()
        poller.register(self._requests, select.POLLOUT)
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not poller.poll(min(remaining, 1.0) * 1000):
                continue
            try:
                view = view[os.write(self._requests, view):]
            except BlockingIOError:
                continue
            except OSError:  # broken pipe: the worker died
                return False
        return True

    def run(self, steps: list[Step]) -> Report:
        """Run one submission's steps in a fresh child; see the class docstring."""
        check_steps(steps)
        return self._ask("steps", steps)

    def warm(self, steps: list[Step]) -> Report:
        """Run cells in the zygote itself, so that every later ``run`` starts from their
        state (the audit's trusted solutions; a worker made with ``warmable=True`` only).
        The report lists each cell's error, if any."""
        if not self.warmable:
            raise ValueError("this worker was not made warmable")
        check_steps(steps)
        if not self.alive():
            self.start()  # replays the cells warmed so far, not these
        report = self._ask("warm", steps)
        self._warm_steps.extend(steps)
        return report

    def _ask(self, kind: str, steps: list[Step]) -> Report:
        started = time.monotonic()
        if not self.alive():
            self.start()
        deadline = time.monotonic() + self.limits.submission_seconds + GRACE_SECONDS
        request = (json.dumps({kind: [step.to_wire() for step in steps]}) + "\n").encode()
        line = self._read_line(deadline) if self._send(request, deadline) else b""
        if line is None:
            self._kill()
            report = Report(Status.TIMEOUT, N_("the sandbox stopped answering: the submission "
                                               f"ran past {self.limits.submission_seconds:g} s"))
        elif not line:
            self._kill()
            report = Report(Status.CRASHED, N_("the sandbox worker died while running this "
                                               "submission"))
        else:
            try:
                report = Report.from_wire(json.loads(line))
            except (ValueError, RecursionError):
                report = None
            if report is None:
                self._kill()
                report = Report(Status.CRASHED, N_("the sandbox sent a malformed report"))
        report.seconds = round(time.monotonic() - started, 3)
        return report

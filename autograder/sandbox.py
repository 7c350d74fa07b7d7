"""Run students' notebook code in a bubblewrap sandbox, a fresh process per submission.

Grading runs hundreds of untrusted submissions. Student code must never reach the answer key,
the gradebook or other students' work, must not change a verdict, and an infinite loop, memory
bomb, fork bomb or crash must cost only that submission. So verdicts are made here, outside the
sandbox: the sandbox only runs the student's cells and evaluates the instructor's case
expressions (``"tensor_bytes(torch.zeros(4, 8))"``) into plain JSON values. Expected values
never enter it, and results come back as JSON, never pickle.

A ``Worker`` is one sandboxed process, ``python -m autograder.sandbox_runner`` (the *zygote*),
with torch, numpy, IPython, matplotlib and ``lecture_utils`` imported once. For each submission
it forks a child that runs the steps; afterwards it kills every process left in the sandbox,
wipes ``/tmp``, ``/dev/shm``, message queues and SysV IPC, and reports. Layers, outermost first:

- **bubblewrap**: new user, pid, network, ipc, uts and cgroup namespaces (no network at all),
  no capabilities, no nested user namespaces, a fresh environment (no ``NBGRADER_*``), and a
  filesystem holding only read-only binds of ``/usr`` (and the ``/lib``, ``/bin`` links), a few
  files of ``/etc``, the Python installation (``sys.base_prefix``), the virtual environment
  (``sys.prefix``) and the two packages ``lecture_utils/`` and ``autograder/``, at their real
  paths. Not the repository, not ``solutions/``, not the course directory, the gradebook or
  other submissions: student code reaches the sandbox only inside the request on a pipe. The
  root and ``/dev`` are read-only; ``/tmp`` and ``/dev/shm`` are small tmpfs
  (``Limits.scratch_bytes``).
- **the zygote** (``autograder.sandbox_runner``) is non-dumpable, so the children (same uid)
  cannot ptrace it or read its memory. It enforces the submission deadline, caps the bytes of
  results (``Limits.output_bytes``), checks that results come in the order of the steps, and
  every 0.1 s counts the sandbox's tasks and private memory: reaching the process limit (a fork
  bomb) or more than ``memory_bytes`` over all processes stops the submission at once.
- **the child**: stdin, stdout and stderr on ``/dev/null`` (prints and plots are discarded),
  rlimits (``RLIMIT_DATA`` = ``memory_bytes``, ``RLIMIT_AS`` = that + 2 GiB, which torch
  tolerates; ``RLIMIT_CPU``, ``RLIMIT_NPROC``, ``RLIMIT_FSIZE``, ``RLIMIT_NOFILE`` = 256, no core
  files), seeds 0 for random/numpy/torch, one torch thread, ``oom_score_adj`` 1000 (the
  sandbox dies first if the machine runs out of memory), and a per-cell ``SIGALRM``.
- **here**: a watchdog (``submission_seconds`` + 5 s) kills the whole worker if the zygote
  stops answering (e.g. the student stopped or killed it); the next ``run`` starts a new one.

Fork bombs and the sandbox's uid. ``RLIMIT_NPROC`` is checked against the tasks of the
process's user *in its user namespace* (Linux >= 5.14 "ucounts"; before that, against all the
user's tasks on the machine), and never for a task whose real uid outside is root (kuid 0):
``copy_process`` exempts ``INIT_USER``. ``bwrap --unshare-user --uid N`` started by root maps
the sandbox uid to root outside, so the limit would be ignored (verified: 10 processes started
under ``ulimit -u 5``). Started as root, a worker therefore runs two bubblewraps: an outer,
privileged one that only builds a mount namespace holding exactly the paths the sandbox needs
(with traversable parents, so a ``/root`` of mode 0700 is no obstacle) and drops to uid/gid
``SANDBOX_UID + slot`` with no supplementary groups; inside it, an ordinary unprivileged
bubblewrap makes the real sandbox. Its tasks count against that uid, so the bomb stops at
``Limits.processes`` tasks and only that worker is affected; the zygote then sees the limit
reached and kills them all. Started by an ordinary user, there is one unprivileged bubblewrap
running as that user; the limit then counts the tasks in the sandbox's user namespace, or, on
kernels older than 5.14, the user's whole process count (then keep ``processes`` above what the
user already runs). ``Limits.processes`` counts threads too: hence ``OMP_NUM_THREADS=1``.

``sandbox=False`` runs the same runner without bubblewrap (rlimits and the per-submission child
still apply, processes are cleaned up as descendants), for machines without bubblewrap and only
when the instructor asks for it: student code then runs as the grader's user and can read
whatever that user can, and run as root ``RLIMIT_NPROC`` does nothing.

Not covered: a seccomp filter (the kernel's whole syscall surface is reachable from the
sandbox), and memory accounting by a cgroup: the rlimits bound each process, the zygote's census
bounds the sum, about ten times a second.
"""

from __future__ import annotations

import importlib.util
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SANDBOX_UID = 61000  # slot n runs as uid/gid SANDBOX_UID + n when the grader runs as root
STATUSES = ("ok", "timeout", "out of memory", "crashed")
START_SECONDS = 300.0  # bwrap + imports; generous for a busy machine
GRACE_SECONDS = 5.0  # beyond submission_seconds before the watchdog gives up on a worker
STDERR_TAIL = 8192
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts")  # fonts: matplotlib's fc-list
SCRATCH_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")
# Drops root for good, then runs the inner bubblewrap: argv = uid gid command...
_DROP_ROOT = ("import os, sys\n"
              "uid, gid = int(sys.argv[1]), int(sys.argv[2])\n"
              "os.setgroups([])\n"
              "os.setresgid(gid, gid, gid)\n"
              "os.setresuid(uid, uid, uid)\n"
              "os.execv(sys.argv[3], sys.argv[3:])\n")


@dataclass(frozen=True)
class Limits:
    cell_seconds: float = 30.0  # wall time per cell and per case evaluation
    submission_seconds: float = 180.0  # wall time for one whole submission
    memory_bytes: int = 3 * 2**30  # RLIMIT_DATA (and RLIMIT_AS = this + 2 GiB) for the child
    cpu_seconds: int = 180  # RLIMIT_CPU for the child
    processes: int = 64  # RLIMIT_NPROC for the child (see fork bombs above)
    file_bytes: int = 16 * 2**20  # RLIMIT_FSIZE
    output_bytes: int = 2**20  # most bytes of results accepted back from one submission
    scratch_bytes: int = 64 * 2**20  # size of the sandbox's tmpfs /tmp (and of /dev/shm)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create the sandbox on this machine."""


# --------------------------------------------------------------------------- the command


def _package_dirs() -> list[Path]:
    """Where ``lecture_utils`` and ``autograder`` are imported from (without importing them)."""
    found = []
    for name in ("lecture_utils", "autograder"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SandboxUnavailable(f"cannot find the {name} package to put in the sandbox")
        found.append(Path(next(iter(spec.submodule_search_locations))).absolute())
    return found


def _python_dirs() -> list[str]:
    """What the sandbox needs of Python: the installation, the venv and the two packages.

    Each at the path Python uses and, if different, at its real path (the venv's ``python`` is
    a symlink into the installation). Never the repository itself: refused if a bound folder
    holds the course's ``solutions/``.
    """
    wanted: list[Path] = []
    for path in (Path(sys.base_prefix), Path(sys.prefix), *_package_dirs()):
        wanted += [path.absolute(), Path(os.path.realpath(path))]
    chosen: list[Path] = []
    for path in wanted:
        if any(path == kept or kept in path.parents for kept in chosen):
            continue
        chosen = [kept for kept in chosen if path not in kept.parents] + [path]
    for path in chosen:
        if (path / "solutions").is_dir() or (path / "gradebook.db").exists():
            raise SandboxUnavailable(
                f"{path} would be visible in the sandbox but holds the course's solutions or "
                "gradebook; use a virtual environment outside the course directory")
    return [str(path) for path in chosen]


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in ETC_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _environment(home: str) -> dict[str, str]:
    parents = dict.fromkeys(str(path.parent) for path in _package_dirs())
    return {
        "PATH": f"{sys.prefix}/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "USER": "student",
        "LOGNAME": "student",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": os.pathsep.join(parents),
    }


def _inner_bwrap(bwrap: str, limits: Limits) -> list[str]:
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox", "--clearenv"]
    for key, value in _environment("/tmp").items():
        args += ["--setenv", key, value]
    args += _system_binds()
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.scratch_bytes), "--tmpfs", "/tmp",
             "--size", str(limits.scratch_bytes), "--tmpfs", "/dev/shm",
             "--mqueue", "/dev/mqueue"]
    # After the private /tmp, so a repository (and its venv) cloned under /tmp stays visible.
    for path in _python_dirs():
        args += ["--ro-bind", path, path]
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
    return args


def _outer_bwrap(bwrap: str) -> list[str]:
    """Root's mount namespace for the inner bubblewrap: the same paths, parents mode 0755."""
    args = [bwrap, "--die-with-parent"]
    made: set[str] = set()

    def parents(path: str) -> None:
        for parent in reversed(Path(path).parents):
            name = str(parent)
            if name != "/" and name not in made:
                made.add(name)
                args.extend(["--perms", "0755", "--dir", name])

    files = [path for path in ETC_FILES if os.path.exists(path)]
    for path in [*files, *_python_dirs()]:
        parents(path)
    args += ["--perms", "0755", "--dir", "/tmp"]  # where the inner bwrap builds its root
    args += _system_binds()
    for path in _python_dirs():
        args += ["--ro-bind", path, path]
    args += ["--bind", "/proc", "/proc", "--dev", "/dev"]
    return args


def _sandbox_command(limits: Limits, slot: int, command: list[str]) -> list[str]:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(
            "bubblewrap (`bwrap`) is not installed or not on PATH: install it (Debian/Ubuntu: "
            "`apt install bubblewrap`), or grade without a sandbox only if you trust the code")
    inner = [*_inner_bwrap(bwrap, limits), "--", *command]
    if os.geteuid() != 0:
        return inner
    uid = SANDBOX_UID + slot
    return [*_outer_bwrap(bwrap), "--", sys.executable, "-I", "-S", "-c", _DROP_ROOT,
            str(uid), str(uid), *inner]


def sandbox_available() -> tuple[bool, str]:
    """(True, "") if bubblewrap can create the sandbox here, else (False, reason naming what
    is missing). Starts a throw-away sandbox with the workers' exact setup (some 25 ms)."""
    try:
        command = _sandbox_command(Limits(), 0, [sys.executable, "-I", "-S", "-c", "pass"])
    except SandboxUnavailable as missing:
        return False, str(missing)
    try:
        probe = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=60, cwd="/",
                               env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as problem:
        return False, f"bubblewrap could not be run: {problem}"
    if probe.returncode != 0:
        why = probe.stderr.decode(errors="replace").strip() or f"exit status {probe.returncode}"
        return False, (f"bubblewrap cannot create the sandbox here ({why}); it needs "
                       "unprivileged user namespaces (kernel.unprivileged_userns_clone=1, "
                       "user.max_user_namespaces > 0)")
    return True, ""


# --------------------------------------------------------------------------- the worker


def _failed(status: str, message: str) -> dict[str, Any]:
    return {"status": status, "message": message, "cells": [], "cases": {}}


def _check_steps(steps: Any) -> None:
    if not isinstance(steps, list):
        raise TypeError("steps must be a list of {'cell': ...} / {'cases': ..., 'calls': [...]}")
    for number, step in enumerate(steps):
        if isinstance(step, dict) and set(step) == {"cell"} and isinstance(step["cell"], str):
            continue
        if (isinstance(step, dict) and set(step) == {"cases", "calls"}
                and isinstance(step["cases"], str) and isinstance(step["calls"], list)
                and all(isinstance(call, str) for call in step["calls"])):
            continue
        raise ValueError(f"step {number} is neither {{'cell': str}} nor "
                         f"{{'cases': str, 'calls': [str, ...]}}: {step!r:.200}")


def _valid_report(report: Any) -> bool:
    """The zygote's report has the documented shape (it is untrusted input all the same)."""
    if not isinstance(report, dict) or set(report) != {"status", "message", "cells", "cases"}:
        return False
    if report["status"] not in STATUSES or not isinstance(report["message"], str):
        return False
    cells, cases = report["cells"], report["cases"]
    if not isinstance(cells, list) or not isinstance(cases, dict):
        return False
    for cell in cells:
        if (not isinstance(cell, dict) or set(cell) != {"index", "error", "seconds"}
                or not isinstance(cell["index"], int)
                or not (cell["error"] is None or isinstance(cell["error"], str))
                or not isinstance(cell["seconds"], (int, float))):
            return False
    for grade_id, outcomes in cases.items():
        if not isinstance(grade_id, str) or not isinstance(outcomes, list):
            return False
        for outcome in outcomes:
            if not isinstance(outcome, dict) or len(outcome) != 1:
                return False
            if "value" not in outcome and not isinstance(outcome.get("error"), str):
                return False
    return True


class Worker:
    """One sandboxed process with torch, numpy, IPython and lecture_utils already imported,
    which forks a fresh child for each submission (so `import torch` is paid once per worker,
    not once per submission).

    ``run(steps)`` takes an ordered list of ``{"cell": source}`` (a notebook code cell, magics
    allowed) and ``{"cases": grade_id, "calls": [expression, ...]}`` (evaluate each expression,
    in order, in the namespace built so far) and returns::

        {"status": "ok" | "timeout" | "out of memory" | "crashed",
         "message": "" or why, e.g. "cell 3 ran past 30 s", "killed by SIGSEGV",
         "cells": [{"index": i, "error": None or "ZeroDivisionError: ...", "seconds": 0.01}],
         "cases": {grade_id: [{"value": plain} or {"error": text}, ...]},
         "seconds": 1.23}

    ``index`` numbers the ``cell`` steps from 0, in order (the messages use the same numbers).
    Cases never evaluated (the child died first) are absent. A cell past ``cell_seconds`` gets
    the error "TimeoutError: cell ran past 30 s" and the run goes on; a case past it gets
    ``{"error": "timed out after 30 s"}``. ``run`` restarts the worker by itself if it died, so
    one bad submission never breaks the next. Use one worker from one thread at a time.
    """

    def __init__(self, limits: Limits = Limits(), *, slot: int = 0, sandbox: bool = True):
        self.limits = limits
        self.slot = slot
        self.sandbox = sandbox
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
        runner = [sys.executable, "-P", "-s", "-m", "autograder.sandbox_runner",
                  "--requests", str(requests), "--reports", str(reports),
                  "--limits", json.dumps(asdict(self.limits))]
        if self.sandbox:
            scratch = [arg for path in SCRATCH_DIRS for arg in ("--scratch", path)]
            command = _sandbox_command(self.limits, self.slot, [*runner, "--sandbox", *scratch])
            return command, {"PATH": "/usr/bin:/bin"}, "/"
        if self._scratch is None:
            self._scratch = tempfile.mkdtemp(prefix=f"grader-worker-{self.slot}-")
        return [*runner, "--scratch", self._scratch], _environment(self._scratch), self._scratch

    def start(self) -> None:
        """Start the worker (bwrap + imports, a second or two); no-op if it is running."""
        if self.alive():
            return
        self._kill()
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

    def run(self, steps: list[dict]) -> dict:
        """Run one submission's steps in a fresh child; see the class docstring."""
        _check_steps(steps)
        started = time.monotonic()
        if not self.alive():
            self.start()
        deadline = time.monotonic() + self.limits.submission_seconds + GRACE_SECONDS
        request = (json.dumps({"steps": steps}) + "\n").encode()
        line = self._read_line(deadline) if self._send(request, deadline) else b""
        if line is None:
            self._kill()
            report = _failed("timeout", "the sandbox stopped answering: the submission ran "
                                        f"past {self.limits.submission_seconds:g} s")
        elif not line:
            self._kill()
            report = _failed("crashed", "the sandbox worker died while running this submission")
        else:
            try:
                report = json.loads(line)
            except (ValueError, RecursionError):
                report = None
            if not _valid_report(report):
                self._kill()
                report = _failed("crashed", "the sandbox sent a malformed report")
        report["seconds"] = round(time.monotonic() - started, 3)
        return report

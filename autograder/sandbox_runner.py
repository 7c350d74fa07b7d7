"""The program inside the grading sandbox: ``python -m autograder.sandbox_runner``.

``autograder.sandbox.Worker`` (the trusted side) starts this once per worker, inside bubblewrap.
It is the *zygote*: it imports torch, numpy, IPython, matplotlib and ``lecture_utils`` once, makes
itself non-dumpable (so processes of the same uid cannot ptrace it or read its memory), then
serves submissions one at a time. For each it forks a fresh child that runs the student's cells
and evaluates the case expressions, collects the child's results, enforces the deadline, kills
every process the submission left behind, wipes the scratch space and answers with one report.

Protocol (JSON lines, never pickle), on two file descriptors named on the command line:

- requests, one line each: ``{"steps": [{"cell": SOURCE} | {"cases": GRADE_ID, "calls": [...]}]}``
- reports: first ``{"ready": true, ...}`` once the imports are done, then one line per request:
  ``{"status", "message", "cells", "cases"}`` (see ``autograder.sandbox.Worker.run``).

The child writes one JSON line per finished cell and per evaluated case to a pipe, at once, so
results survive a later crash. Everything the child sends is treated as data from the student
(the student's code runs in that process and can write to the pipe): it is size-capped, must
arrive in the order of the steps and have the expected shape, or the submission is "crashed".
Expected values never come here; only the values the expressions produce leave.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import random
import resource
import select
import shutil
import signal
import stat
import sys
import time
from typing import Any

MAX_VALUE_BYTES = 64 * 1024  # one case's JSON outcome; larger values are not graded
MAX_LINE_BYTES = MAX_VALUE_BYTES + 16 * 1024  # one result line from the child
MAX_ERROR_CHARS = 2000
AS_HEADROOM = 2 * 2**30  # RLIMIT_AS = memory_bytes + this (libraries, thread stacks, arenas)
POLL_SECONDS = 0.1  # how often the zygote checks the child's processes and memory
GUARD = "__sandbox_size_guard__"
OOM_MARKERS = ("MemoryError", "can't allocate memory", "DefaultCPUAllocator")
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
IPC_RMID = 0
EXIT_FATAL = 70

_libc = ctypes.CDLL(None, use_errno=True)
# The sandbox is Linux only. Unsandboxed (a reader's own `check` on macOS, say) the runner
# also works without prctl and /proc, with fewer guards: limits are best effort, and leftover
# processes are found through the child's process group instead of /proc.
ON_LINUX = sys.platform.startswith("linux")
HAVE_PROC = os.path.isdir("/proc/self")


def _prctl(option: int, value: int) -> None:
    if not ON_LINUX:
        return
    if _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def describe(error: BaseException) -> str:
    """``"ZeroDivisionError: division by zero"``; never raises (the error is the student's)."""
    name = type(error).__name__
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001 - a broken __str__ must not break the report
        text = ""
    return (f"{name}: {text}" if text else name)[:MAX_ERROR_CHARS]


def _mentions_oom(text: str | None) -> bool:
    return bool(text) and any(marker in text for marker in OOM_MARKERS)


def _is_oom(error: BaseException | None) -> bool:
    if error is None:
        return False
    if isinstance(error, MemoryError):
        return True
    return isinstance(error, RuntimeError) and _mentions_oom(describe(error))


class _TooLarge(Exception):
    pass


def _size_guard(value: Any) -> Any:
    """Pass ``value`` through, or refuse it early when its JSON would clearly exceed the cap.

    Cheap and bounded: it looks at lengths and element counts (every JSON element costs at least
    a few bytes), so a ``list(range(10**7))`` is refused at once instead of being converted.
    """
    import numpy as np
    import torch

    from lecture_utils.checks import Unplain

    budget = MAX_VALUE_BYTES // 3

    def spend(n: int) -> None:
        nonlocal budget
        budget -= n
        if budget < 0:
            raise _TooLarge

    def visit(v: Any, depth: int) -> None:
        if isinstance(v, torch.Tensor):
            spend(int(v.numel()))
        elif isinstance(v, np.ndarray):
            spend(int(v.size))
        elif isinstance(v, (str, bytes)):
            spend(len(v) // 3)
        elif isinstance(v, (list, tuple, dict)):
            spend(len(v))
            if depth < 64:
                for item in (list(v.items()) if isinstance(v, dict) else v):
                    visit(item, depth + 1)
        else:
            spend(1)

    try:
        visit(value, 0)
    except _TooLarge:
        raise Unplain("a value too large to grade") from None
    return value


# --------------------------------------------------------------------------- the child


class _Child:
    """Runs one submission's steps in the forked child. Never returns: always ``os._exit``."""

    def __init__(self, shell: Any, out_fd: int, limits: dict[str, Any]) -> None:
        self.shell = shell
        self.out = out_fd
        self.limits = limits
        self.seconds = float(limits["cell_seconds"])
        self.me = os.getpid()
        self.fired = False
        self.reserve: bytearray | None = None

    # -- setup
    def setup(self, close_fds: list[int]) -> None:
        os.setsid()
        for fd in close_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # student output is discarded: bounds huge prints and plots
            os.dup2(null, fd)
        os.close(null)
        mem = int(self.limits["memory_bytes"])
        cpu = int(self.limits["cpu_seconds"])
        for which, value in (
            (resource.RLIMIT_DATA, mem),
            (resource.RLIMIT_AS, mem + AS_HEADROOM),
            (resource.RLIMIT_CPU, (cpu, cpu + 2)),  # SIGXCPU at the soft limit, then SIGKILL
            (resource.RLIMIT_NPROC, int(self.limits["processes"])),
            (resource.RLIMIT_FSIZE, int(self.limits["file_bytes"])),
            (resource.RLIMIT_NOFILE, 256),
            (resource.RLIMIT_CORE, 0),
        ):
            soft, hard = value if isinstance(value, tuple) else (value, value)
            try:
                resource.setrlimit(which, (soft, hard))
            except (ValueError, OSError):
                if ON_LINUX:
                    raise
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write fails, not the process
        signal.signal(signal.SIGALRM, self._alarm)
        import numpy as np
        import torch

        random.seed(0)
        np.random.seed(0)
        torch.manual_seed(0)
        torch.set_num_threads(1)
        self.reserve = bytearray(2**20)  # freed to report a MemoryError

    # -- helpers
    def _alarm(self, signum: int, frame: Any) -> None:
        self.fired = True
        raise TimeoutError(f"cell ran past {self.seconds:g} s")

    def _guarded(self, fn: Any) -> tuple[Any, BaseException | None]:
        """Run ``fn`` under a one-shot SIGALRM; return (result, escaped exception)."""
        self.fired = False
        signal.signal(signal.SIGALRM, self._alarm)  # the student may have replaced it
        try:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            try:
                return fn(), None
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException as escaped:  # noqa: BLE001 - SystemExit, a late alarm, ...
            return None, escaped

    def _mine(self) -> None:
        """A process the student forked that returned into this loop stops here, silently."""
        if os.getpid() != self.me:
            os._exit(0)

    def emit(self, message: dict[str, Any]) -> None:
        data = memoryview((json.dumps(message) + "\n").encode())
        while data:
            data = data[os.write(self.out, data):]

    def _room(self, oom: bool) -> None:
        if oom:
            self.reserve = None

    # -- steps
    def cell(self, index: int, source: str) -> None:
        start = time.monotonic()
        result, escaped = self._guarded(lambda: self.shell.run_cell(source, store_history=True))
        seconds = time.monotonic() - start
        self._mine()
        error = escaped
        if result is not None:
            error = result.error_before_exec or result.error_in_exec
        timed_out = self.fired
        oom = not timed_out and _is_oom(error)
        self._room(oom)
        if timed_out:
            text = f"TimeoutError: cell ran past {self.seconds:g} s"
        else:
            text = None if error is None else describe(error)
        if error is not None or timed_out:
            # The traceback IPython keeps would hold the failed frames' locals (say, a
            # memory bomb's list) alive and starve every later cell; let them go.
            sys.last_type = sys.last_value = sys.last_traceback = None
            self.shell._last_traceback = None
            del error, escaped, result
            gc.collect()
        self.emit({"cell": index, "error": text, "seconds": round(seconds, 4),
                   "timeout": timed_out, "oom": oom})

    def _evaluate(self, call: str) -> dict[str, Any]:
        from lecture_utils.checks import Case, evaluate

        namespace = self.shell.user_ns
        namespace[GUARD] = _size_guard
        outcome = evaluate(Case(f"{GUARD}(\n{call}\n)", None), namespace)
        if outcome.error is not None:
            return {"error": str(outcome.error)[:MAX_ERROR_CHARS]}
        payload = {"value": outcome.value}
        try:
            text = json.dumps(payload)
        except (ValueError, TypeError, RecursionError) as problem:
            return {"error": f"returned a value that cannot be sent back ({describe(problem)})"}
        if len(text) > MAX_VALUE_BYTES:
            return {"error": "returned a value too large to grade"}
        return payload

    def cases(self, grade_id: str, calls: list[str]) -> None:
        gave_up = False
        for number, call in enumerate(calls):
            if gave_up:  # one check already ran out of time: the exercise has failed anyway
                self.emit({"case": grade_id, "call": number, "timeout": False, "oom": False,
                           "outcome": {"error": "skipped: an earlier check of this exercise "
                                                "timed out"}})
                continue
            payload, escaped = self._guarded(lambda call=call: self._evaluate(call))
            self._mine()
            timed_out = self.fired
            if timed_out:
                payload = {"error": f"timed out after {self.seconds:g} s"}
            elif escaped is not None:
                payload = {"error": f"raised {describe(escaped)}"}
            oom = not timed_out and (_is_oom(escaped) or _mentions_oom(payload.get("error")))
            self._room(oom)
            self.emit({"case": grade_id, "call": number, "outcome": payload,
                       "timeout": timed_out, "oom": oom})
            gave_up = timed_out

    def run(self, steps: list[dict[str, Any]]) -> None:
        index = 0
        for step in steps:
            if "cell" in step:
                self.cell(index, step["cell"])
                index += 1
            else:
                self.cases(step["cases"], step["calls"])
            if self.reserve is None:
                try:
                    self.reserve = bytearray(2**20)
                except MemoryError:
                    pass
        self.emit({"done": True})


def _child_main(shell: Any, steps: list[dict[str, Any]], out_fd: int, limits: dict[str, Any],
                close_fds: list[int]) -> None:
    code = EXIT_FATAL
    child = _Child(shell, out_fd, limits)
    try:
        child.setup(close_fds)
        child.run(steps)
        code = 0
    except BaseException as error:  # noqa: BLE001 - report, then exit: never return to the zygote
        try:
            if os.getpid() == child.me:
                child.reserve = None
                child.emit({"fatal": describe(error)})
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code if os.getpid() == child.me else 0)


# --------------------------------------------------------------------------- the zygote


class _Collector:
    """Checks the child's lines against the steps, in order, and builds the report."""

    def __init__(self, steps: list[dict[str, Any]], limits: dict[str, Any]) -> None:
        self.limits = limits
        self.expected: list[tuple[Any, ...]] = []
        index = 0
        for step in steps:
            if "cell" in step:
                self.expected.append(("cell", index))
                index += 1
            else:
                self.expected += [("case", step["cases"], j) for j in range(len(step["calls"]))]
        self.expected.append(("done",))
        self.position = 0
        self.cells: list[dict[str, Any]] = []
        self.cases: dict[str, list[dict[str, Any]]] = {}
        self.timeout: str | None = None
        self.oom: str | None = None
        self.fatal: str | None = None
        self.done = False

    def feed(self, line: bytes) -> str | None:
        """Take one line; return why it is not acceptable, or None."""
        if len(line) > MAX_LINE_BYTES:
            return "a result line was too long"
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return "a result line was not JSON"
        if not isinstance(message, dict):
            return "a result line was not an object"
        if "fatal" in message:
            self.fatal = str(message["fatal"])[:MAX_ERROR_CHARS]
            return None
        if self.position >= len(self.expected):
            return "more results than steps"
        expected = self.expected[self.position]
        flags_ok = (isinstance(message.get("timeout", False), bool)
                    and isinstance(message.get("oom", False), bool))
        if expected[0] == "done":
            if message != {"done": True}:
                return "results out of order"
            self.done = True
        elif expected[0] == "cell":
            error, seconds = message.get("error"), message.get("seconds")
            if (set(message) != {"cell", "error", "seconds", "timeout", "oom"}
                    or message["cell"] != expected[1] or not flags_ok
                    or not (error is None or isinstance(error, str))
                    or isinstance(seconds, bool) or not isinstance(seconds, (int, float))):
                return "results out of order"
            self.cells.append({"index": expected[1], "error": error, "seconds": seconds})
            self._note_limits(f"cell {expected[1]}", message)
        else:
            _, grade_id, number = expected
            outcome = message.get("outcome")
            if (set(message) != {"case", "call", "outcome", "timeout", "oom"}
                    or message["case"] != grade_id or message["call"] != number or not flags_ok
                    or not isinstance(outcome, dict) or len(outcome) != 1
                    or not ("value" in outcome or isinstance(outcome.get("error"), str))):
                return "results out of order"
            if number == 0:
                self.cases[grade_id] = []
            self.cases[grade_id].append(outcome)
            self._note_limits(f"a check of {grade_id}", message)
        self.position += 1
        return None

    def _note_limits(self, where: str, message: dict[str, Any]) -> None:
        """Remember the first step that ran out of time or memory, for the report."""
        if message["timeout"] and self.timeout is None:
            self.timeout = f"{where} ran past {self.limits['cell_seconds']:g} s"
        if message["oom"] and self.oom is None:
            self.oom = f"{where} ran out of memory (limit {_gib(self.limits['memory_bytes'])})"

    def report(self, verdict: tuple[str, str] | None, wait_status: int | None,
               usage: Any) -> dict[str, Any]:
        status, message = verdict or self._status(wait_status, usage)
        return {"status": status, "message": message, "cells": self.cells, "cases": self.cases}

    def _status(self, wait_status: int | None, usage: Any) -> tuple[str, str]:
        limits = self.limits
        if wait_status is not None and os.WIFSIGNALED(wait_status):
            number = os.WTERMSIG(wait_status)
            cpu = (usage.ru_utime + usage.ru_stime) if usage is not None else 0.0
            rss = (usage.ru_maxrss * 1024) if usage is not None else 0
            if number == signal.SIGXCPU or (number == signal.SIGKILL
                                             and cpu >= limits["cpu_seconds"]):
                return "timeout", f"used more than {limits['cpu_seconds']:g} s of CPU time"
            if number == signal.SIGKILL and (self.oom or rss >= 0.5 * limits["memory_bytes"]):
                return "out of memory", f"used more than {_gib(limits['memory_bytes'])}"
            if self.oom:
                return "out of memory", self.oom
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return "crashed", f"killed by {name}"
        if not self.done:
            if self.fatal:
                return "crashed", f"the sandbox runner failed: {self.fatal}"
            if self.oom:
                return "out of memory", self.oom
            code = os.WEXITSTATUS(wait_status) if wait_status is not None else -1
            return "crashed", f"exited with status {code} before finishing"
        if self.timeout:
            return "timeout", self.timeout
        if self.oom:
            return "out of memory", self.oom
        return "ok", ""


def _read_status(pid: int | str) -> dict[str, int]:
    values: dict[str, int] = {}
    if not HAVE_PROC:
        return values
    with open(f"/proc/{pid}/status", "rb") as handle:
        for line in handle:
            key, _, rest = line.partition(b":")
            if key in (b"Threads", b"RssAnon", b"RssShmem"):
                values[key.decode()] = int(rest.split()[0])
    return values


def _pids() -> list[int]:
    if not HAVE_PROC:
        return []
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return int(data[data.rindex(b")") + 2:].split()[1])


class Zygote:
    def __init__(self, args: argparse.Namespace) -> None:
        self.requests = args.requests
        self.reports = args.reports
        self.limits: dict[str, Any] = json.loads(args.limits)
        self.scratch = {folder: stat.S_IMODE(os.stat(folder).st_mode)
                        for folder in args.scratch or []}
        self.pid = os.getpid()
        # kill(-1) is only ever used where it is certain to stay inside the sandbox: this
        # process's parent is bubblewrap as pid 1 of a pid namespace of its own.
        self.in_sandbox = bool(args.sandbox) and os.getppid() == 1 and _comm(1) == "bwrap"
        if args.sandbox and not self.in_sandbox:
            raise SystemExit("sandbox_runner: --sandbox given but not running under bwrap")
        self.shell: Any = None
        self.last_child = 0

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
        _prctl(PR_SET_DUMPABLE, 0)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        self.base_anon = _read_status("self").get("RssAnon", 0) * 1024

    # -- serve
    def serve(self) -> None:
        import threading

        self._write({"ready": True, "pid": self.pid, "sandbox": self.in_sandbox,
                     "python_threads": threading.active_count(),
                     "tasks": _read_status("self").get("Threads", 0)})
        with os.fdopen(self.requests, "rb", buffering=1 << 16, closefd=False) as requests:
            for line in requests:
                try:
                    steps = json.loads(line)["steps"]
                    report = self.run(steps)
                except Exception as error:  # noqa: BLE001 - a bug here costs one submission
                    self.cleanup()
                    report = {"status": "crashed", "message":
                              f"internal sandbox error: {describe(error)}",
                              "cells": [], "cases": {}}
                self._write(report)

    def _write(self, message: dict[str, Any]) -> None:
        data = memoryview((json.dumps(message) + "\n").encode())
        while data:
            data = data[os.write(self.reports, data):]

    def run(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        limits = self.limits
        collector = _Collector(steps, limits)
        read_end, write_end = os.pipe()
        pid = self.last_child = os.fork()
        if pid == 0:
            os.close(read_end)
            _child_main(self.shell, steps, write_end, limits, [self.requests, self.reports])
        os.close(write_end)
        verdict: tuple[str, str] | None = None
        wait_status = usage = None
        received = 0
        buffer = bytearray()
        deadline = time.monotonic() + float(limits["submission_seconds"])
        poller = select.poll()
        poller.register(read_end, select.POLLIN)
        try:  # readable when the child exits: no polling delay at the end
            child_fd: int | None = os.pidfd_open(pid)
            poller.register(child_fd, select.POLLIN)
        except (AttributeError, OSError):
            child_fd = None
        open_pipe = True
        next_census = 0.0

        def take(chunk: bytes) -> tuple[str, str] | None:
            nonlocal received
            received += len(chunk)
            if received > limits["output_bytes"]:
                return "crashed", f"sent more than {limits['output_bytes']} bytes of results"
            buffer.extend(chunk)
            while (end := buffer.find(b"\n")) >= 0:
                problem = collector.feed(bytes(buffer[:end]))
                del buffer[:end + 1]
                if problem:
                    return "crashed", f"sent malformed results ({problem})"
            if len(buffer) > MAX_LINE_BYTES:
                return "crashed", "sent malformed results (a result line was too long)"
            return None

        try:
            while verdict is None:
                now = time.monotonic()
                if now >= deadline:
                    verdict = ("timeout",
                               f"the submission ran past {limits['submission_seconds']:g} s")
                    break
                wait = min(POLL_SECONDS, deadline - now)
                for fd, _event in poller.poll(wait * 1000):
                    if fd != read_end or not open_pipe:
                        continue  # the child exited: reaped below
                    chunk = os.read(read_end, 1 << 16)
                    if not chunk:
                        open_pipe = False
                        poller.unregister(read_end)
                    else:
                        verdict = take(chunk)
                if verdict:
                    break
                wait_status, usage = self._reap(pid)
                if wait_status is not None:
                    os.set_blocking(read_end, False)  # leftovers may hold the pipe open
                    try:
                        while verdict is None and (chunk := os.read(read_end, 1 << 16)):
                            verdict = take(chunk)
                    except BlockingIOError:
                        pass
                    break
                if time.monotonic() >= next_census:
                    next_census = time.monotonic() + POLL_SECONDS
                    verdict = self._census(limits)
        finally:
            os.close(read_end)
            if child_fd is not None:
                os.close(child_fd)
            if wait_status is None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                _, wait_status, usage = os.wait4(pid, 0)
            self.cleanup()
        return collector.report(verdict, wait_status, usage)

    def _reap(self, child: int) -> tuple[int | None, Any]:
        """Reap exited processes (orphans come to us: we are a subreaper); report the child."""
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return None, None
            if pid == 0:
                return None, None
            if pid == child:
                return status, usage

    def _census(self, limits: dict[str, Any]) -> tuple[str, str] | None:
        """In the sandbox, every process is the submission's: count tasks and private memory."""
        if not self.in_sandbox:
            return None
        tasks, memory = 0, 0
        for pid in _pids():
            try:
                values = _read_status(pid)
            except (OSError, ValueError):
                continue
            tasks += values.get("Threads", 1)
            if pid not in (1, self.pid):
                private = (values.get("RssAnon", 0) + values.get("RssShmem", 0)) * 1024
                memory += max(0, private - self.base_anon)
        memory += _sysv_shm_bytes()
        if tasks >= max(4, int(limits["processes"]) - 1):
            return "crashed", f"started too many processes (the limit is {limits['processes']})"
        if memory > limits["memory_bytes"]:
            return "out of memory", f"used more than {_gib(limits['memory_bytes'])}"
        return None

    # -- cleanup between submissions
    def cleanup(self) -> None:
        if self.in_sandbox:
            self._kill_namespace()
            _remove_sysv_ipc()
        else:
            self._kill_descendants()
        keep = frozenset(_protected())
        for folder, mode in self.scratch.items():
            _wipe(folder, mode, keep)

    def _kill_namespace(self) -> None:
        """Every process here but bwrap (pid 1) and us belongs to the submission: kill them all."""
        give_up = time.monotonic() + 10
        while time.monotonic() < give_up:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if not _reap() and set(_pids()) <= {1, self.pid}:
                return
            time.sleep(0.002)

    def _kill_descendants(self) -> None:
        """Without a pid namespace: kill our descendants (orphans are reparented to us)."""
        if not HAVE_PROC:  # the child made itself a process group (setsid): kill that
            if self.last_child:
                try:
                    os.killpg(self.last_child, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _reap()
            return
        give_up = time.monotonic() + 10
        own_group = os.getpgid(0)
        while time.monotonic() < give_up:
            children = [pid for pid in _pids() if _parent_of(pid) == self.pid]
            for pid in children:
                try:
                    group = os.getpgid(pid)
                    if group != own_group:
                        os.killpg(group, signal.SIGKILL)
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if not _reap():
                return
            time.sleep(0.002)


def _reap() -> bool:
    """Collect children that have exited; False once there are no children left at all."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        return False
    return True


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _sysv_shm_bytes() -> int:
    total = 0
    try:
        with open("/proc/sysvipc/shm") as handle:
            header = handle.readline().split()
            rss = header.index("rss")
            for line in handle:
                total += int(line.split()[rss])
    except (OSError, ValueError, IndexError):
        pass
    return total


def _remove_sysv_ipc() -> None:
    """SysV shared memory, queues and semaphores outlive processes: remove what was left."""
    for kind, remove in (("shm", lambda i: _libc.shmctl(i, IPC_RMID, None)),
                         ("msg", lambda i: _libc.msgctl(i, IPC_RMID, None)),
                         ("sem", lambda i: _libc.semctl(i, 0, IPC_RMID))):
        try:
            with open(f"/proc/sysvipc/{kind}") as handle:
                handle.readline()
                ids = [int(line.split()[1]) for line in handle if line.strip()]
        except (OSError, ValueError, IndexError):
            continue
        for ident in ids:
            remove(ident)


def _unlock(top: str) -> None:
    """Give ourselves rwx on every directory below ``top`` (the student may have removed it)."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            os.chmod(folder, stat.S_IRWXU)
            with os.scandir(folder) as entries:
                stack += [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:
            pass


def _protected() -> set[str]:
    """Read-only mounts that may sit inside the scratch folder (a repository, hence its venv,
    under /tmp): the wipe must leave them and the folders leading to them in place."""
    import lecture_utils

    here = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.abspath(__file__)),
            os.path.dirname(os.path.abspath(lecture_utils.__file__))]
    return {os.path.abspath(p) for p in here} | {os.path.realpath(p) for p in here}


def _wipe(folder: str, mode: int, keep: frozenset[str] = frozenset()) -> None:
    """Delete everything inside ``folder`` (not the folder), whatever modes the student set,
    except the paths in ``keep`` and the folders above them."""
    try:
        os.chmod(folder, mode)
    except OSError:
        pass
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.path in keep:
            continue
        if any(k.startswith(entry.path + os.sep) for k in keep):
            _wipe(entry.path, 0o755, keep)
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                _unlock(entry.path)
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, required=True, help="fd to read requests from")
    parser.add_argument("--reports", type=int, required=True, help="fd to write reports to")
    parser.add_argument("--limits", required=True, help="autograder.sandbox.Limits as JSON")
    parser.add_argument("--sandbox", action="store_true", help="running inside bwrap")
    parser.add_argument("--scratch", action="append", help="folder to empty after each run")
    args = parser.parse_args(argv)
    zygote = Zygote(args)
    zygote.preload()
    zygote.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())

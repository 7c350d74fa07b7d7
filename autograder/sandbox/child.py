"""The forked child: runs one submission's cells and cases, sending each result at once.

Runs student code, so trusts nothing after ``setup``: the results it sends are checked by
the zygote (``collector.py``). Imports only the standard library, ``autograder.protocol``
(with ``autograder.limits``) and ``lecture_utils``; torch and numpy are already loaded.
"""

from __future__ import annotations

import gc
import json
import os
import random
import resource
import signal
import sys
import time
from typing import Any

from autograder.limits import AS_HEADROOM, ERROR_CHARS, NICENESS, OPEN_FILES, VALUE_BYTES
from autograder.protocol import (
    CaseOutcome,
    CellOutcome,
    Limits,
    RunCell,
    Step,
    case_message,
)

GUARD = "__sandbox_size_guard__"
OOM_MARKERS = ("MemoryError", "can't allocate memory", "DefaultCPUAllocator")
EXIT_FATAL = 70
# Unsandboxed (a reader's own `check` on macOS, say) limits are best effort.
ON_LINUX = sys.platform.startswith("linux")


def describe(error: BaseException) -> str:
    """``"ZeroDivisionError: division by zero"``; never raises (the error is the student's)."""
    name = type(error).__name__
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001 - a broken __str__ must not break the report
        text = ""
    return (f"{name}: {text}" if text else name)[:ERROR_CHARS]


def _raised(error: BaseException) -> str:
    """A case's error for an exception that escaped ``evaluate`` (KeyboardInterrupt, ...)."""
    from lecture_utils.checks import RAISED, RAISED_WITHOUT_MESSAGE

    name, _, text = describe(error).partition(": ")
    return (RAISED.format(error=name, message=text) if text
            else RAISED_WITHOUT_MESSAGE.format(error=name))


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

    from lecture_utils.checks import TOO_LARGE, Unplain

    budget = VALUE_BYTES // 3

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
        raise Unplain(TOO_LARGE) from None
    return value


class _Child:
    """Runs one submission's steps in the forked child. Never returns: always ``os._exit``."""

    def __init__(self, shell: Any, out_fd: int, limits: Limits) -> None:
        self.shell = shell
        self.out = out_fd
        self.limits = limits
        self.seconds = float(limits.cell_seconds)
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
        mem = int(self.limits.memory_bytes)
        cpu = int(self.limits.cpu_seconds)
        for which, value in (
            (resource.RLIMIT_DATA, mem),
            (resource.RLIMIT_AS, mem + AS_HEADROOM),
            (resource.RLIMIT_CPU, (cpu, cpu + 2)),  # SIGXCPU at the soft limit, then SIGKILL
            (resource.RLIMIT_NPROC, int(self.limits.processes)),
            (resource.RLIMIT_FSIZE, int(self.limits.file_bytes)),
            (resource.RLIMIT_NOFILE, OPEN_FILES),
            (resource.RLIMIT_CORE, 0),
        ):
            soft, hard = value if isinstance(value, tuple) else (value, value)
            try:
                resource.setrlimit(which, (soft, hard))
            except (ValueError, OSError):
                if ON_LINUX:
                    raise
        os.setpriority(os.PRIO_PROCESS, 0, NICENESS)  # inherited by whatever it starts
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
        self.emit(CellOutcome(index, text, round(seconds, 4), timed_out, oom).to_wire())

    def _evaluate(self, call: str) -> CaseOutcome:
        from lecture_utils.checks import NOT_SENDABLE, TOO_LARGE, Case, evaluate

        namespace = self.shell.user_ns
        namespace[GUARD] = _size_guard
        outcome = evaluate(Case(f"{GUARD}(\n{call}\n)", None), namespace)
        if outcome.error is not None:
            return CaseOutcome(error=str(outcome.error)[:ERROR_CHARS])
        payload = CaseOutcome(value=outcome.value)
        try:
            text = json.dumps(payload.plain())
        except (ValueError, TypeError, RecursionError) as problem:
            return CaseOutcome(error=NOT_SENDABLE.format(problem=describe(problem)))
        if len(text) > VALUE_BYTES:
            return CaseOutcome(error=TOO_LARGE)
        return payload

    def cases(self, grade_id: str, calls: tuple[str, ...]) -> None:
        # (English: the grader shows them in the reader's language, checks.localized_error)
        from lecture_utils.checks import SKIPPED_AFTER_TIMEOUT, TIMED_OUT

        gave_up = False
        for number, call in enumerate(calls):
            if gave_up:  # one check already ran out of time: the exercise has failed anyway
                skipped = CaseOutcome(error=SKIPPED_AFTER_TIMEOUT)
                self.emit(case_message(grade_id, number, skipped))
                continue
            payload, escaped = self._guarded(lambda call=call: self._evaluate(call))
            self._mine()
            timed_out = self.fired
            if timed_out:
                payload = CaseOutcome(error=TIMED_OUT.format(seconds=f"{self.seconds:g}"))
            elif escaped is not None:
                payload = CaseOutcome(error=_raised(escaped))
            payload.timeout = timed_out
            payload.oom = not timed_out and (_is_oom(escaped) or _mentions_oom(payload.error))
            self._room(payload.oom)
            self.emit(case_message(grade_id, number, payload))
            gave_up = timed_out

    def run(self, steps: list[Step]) -> None:
        index = 0
        for step in steps:
            if isinstance(step, RunCell):
                self.cell(index, step.source)
                index += 1
            else:
                self.cases(step.grade_id, step.calls)
            if self.reserve is None:
                try:
                    self.reserve = bytearray(2**20)
                except MemoryError:
                    pass
        self.emit({"done": True})


def child_main(shell: Any, steps: list[Step], out_fd: int, limits: Limits,
               close_fds: list[int]) -> None:
    """Run ``steps`` in this freshly forked process, sending results to ``out_fd``; exits."""
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

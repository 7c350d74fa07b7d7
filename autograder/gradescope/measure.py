"""What grading one submission costs: wall time, CPU time and peak memory of every process.

Memory is the peak, over samples every quarter second, of the summed proportional set size
(PSS, ``/proc/PID/smaps_rollup``) of this process and all its descendants (the sandbox's
zygote and the submission's child, whatever user they run as): pages shared after the
zygote's fork are counted once, so the sum is what the container's memory limit sees, to
within a sample; CPU time is this process's plus each descendant's as last sampled. Linux
only; elsewhere memory and descendants' CPU read 0. Imports only the standard library.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rfind(")") + 2:].split()[1])
        tree.setdefault(parent, []).append(int(entry.name))
    return tree


def _pss_bytes(pid: int) -> int:
    try:
        for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _cpu_ticks(pid: int) -> int:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
        fields = stat[stat.rfind(")") + 2:].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, ValueError, IndexError):
        return 0


def tree(root: int) -> list[int]:
    """``root`` and its descendants."""
    children, found, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def tree_pss(root: int) -> int:
    """Summed PSS of ``root`` and its descendants, in bytes."""
    return sum(_pss_bytes(pid) for pid in tree(root))


@dataclass
class Cost:
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_bytes: int = 0

    def line(self) -> str:
        return (f"grading took {self.seconds:.1f} s wall, {self.cpu_seconds:.1f} s CPU; peak "
                f"memory {self.peak_bytes / 2**20:.0f} MiB (PSS of all grading processes)")


class Meter:
    """Samples this process tree's memory in a thread while in a ``with`` block."""

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.cost = Cost()
        self._ticks: dict[int, int] = {}  # descendants' CPU time, in clock ticks
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        available = (PROC / "self" / "smaps_rollup").exists()
        while available and not self._stop.is_set():
            pids = [pid for pid in tree(os.getpid()) if pid != os.getpid()]
            self.cost.peak_bytes = max(self.cost.peak_bytes, _pss_bytes(os.getpid())
                                       + sum(_pss_bytes(pid) for pid in pids))
            for pid in pids:  # a process's CPU time, the last time it was seen alive
                self._ticks[pid] = max(self._ticks.get(pid, 0), _cpu_ticks(pid))
            self._stop.wait(self.interval)

    def _cpu(self) -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return own.ru_utime + own.ru_stime

    def __enter__(self) -> Meter:
        self._started, self._cpu_started = time.monotonic(), self._cpu()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.cost.seconds = time.monotonic() - self._started
        self.cost.cpu_seconds = (self._cpu() - self._cpu_started
                                 + sum(self._ticks.values()) / os.sysconf("SC_CLK_TCK"))

"""Clean-up between submissions: the processes, SysV IPC and files a submission left.

Runs in the zygote, inside the sandbox. Reads ``/proc`` (what student processes show there
is only counted, never trusted further). Imports only the standard library and
``lecture_utils`` (to find its own read-only mount).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import stat
import sys
import time

IPC_RMID = 0
HAVE_PROC = os.path.isdir("/proc/self")
_libc = ctypes.CDLL(None, use_errno=True)


def read_status(pid: int | str) -> dict[str, int]:
    values: dict[str, int] = {}
    if not HAVE_PROC:
        return values
    with open(f"/proc/{pid}/status", "rb") as handle:
        for line in handle:
            key, _, rest = line.partition(b":")
            if key in (b"Threads", b"RssAnon", b"RssShmem"):
                values[key.decode()] = int(rest.split()[0])
    return values


def pids() -> list[int]:
    if not HAVE_PROC:
        return []
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return int(data[data.rindex(b")") + 2:].split()[1])


def clean_up(in_sandbox: bool, own_pid: int, last_child: int, scratch: dict[str, int]) -> None:
    """After a submission: no process, IPC object or scratch file of it is left."""
    if in_sandbox:
        kill_namespace(own_pid)
        remove_sysv_ipc()
    else:
        kill_descendants(own_pid, last_child)
    keep = frozenset(protected())
    for folder, mode in scratch.items():
        wipe(folder, mode, keep)


def kill_namespace(own_pid: int) -> None:
    """Every process here but bwrap (pid 1) and us belongs to the submission: kill them all."""
    give_up = time.monotonic() + 10
    while time.monotonic() < give_up:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if not reap_exited() and set(pids()) <= {1, own_pid}:
            return
        time.sleep(0.002)


def kill_descendants(own_pid: int, last_child: int) -> None:
    """Without a pid namespace: kill our descendants (orphans are reparented to us)."""
    if not HAVE_PROC:  # the child made itself a process group (setsid): kill that
        if last_child:
            try:
                os.killpg(last_child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        reap_exited()
        return
    give_up = time.monotonic() + 10
    own_group = os.getpgid(0)
    while time.monotonic() < give_up:
        children = [pid for pid in pids() if parent_of(pid) == own_pid]
        for pid in children:
            try:
                group = os.getpgid(pid)
                if group != own_group:
                    os.killpg(group, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if not reap_exited():
            return
        time.sleep(0.002)


def reap_exited() -> bool:
    """Collect children that have exited; False once there are no children left at all."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        return False
    return True


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def sysv_shm_bytes() -> int:
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


def remove_sysv_ipc() -> None:
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


def protected() -> set[str]:
    """Read-only mounts that may sit inside the scratch folder (a repository, hence its venv,
    under /tmp): the wipe must leave them and the folders leading to them in place."""
    import lecture_utils

    autograder = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # ../..
    here = [sys.prefix, sys.base_prefix, autograder,
            os.path.dirname(os.path.abspath(lecture_utils.__file__))]
    return {os.path.abspath(p) for p in here} | {os.path.realpath(p) for p in here}


def wipe(folder: str, mode: int, keep: frozenset[str] = frozenset()) -> None:
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
            wipe(entry.path, 0o755, keep)
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                _unlock(entry.path)
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass

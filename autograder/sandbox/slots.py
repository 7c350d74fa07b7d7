"""Machine-wide sandbox slots: a running worker holds one, so no two workers share a uid.

As root, slot n runs its submissions as uid ``SANDBOX_UID + n`` (``bwrap.py``), and
``RLIMIT_NPROC`` counts processes per uid across the machine: two sandboxes on one uid would
share one fork budget, and a fork bomb in one would starve the other. Two ``grade`` runs on
one machine (two instructors, a test suite in parallel, several Dask workers) therefore must
not pick the same number. A slot is claimed by an exclusive ``flock`` on its lock file,
released when the worker stops or its process dies, so a crash never leaks a slot.

Trusted side; imports only the standard library.
"""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
from pathlib import Path

SLOT_DIR = Path(tempfile.gettempdir()) / "autograder-slots"
MAX_SLOTS = 1000  # uids SANDBOX_UID .. SANDBOX_UID + 999


class NoFreeSlot(RuntimeError):
    pass


def _lock_dir() -> Path:
    try:
        SLOT_DIR.mkdir(mode=0o1777, exist_ok=True)
        if SLOT_DIR.stat().st_uid == os.geteuid():
            os.chmod(SLOT_DIR, 0o1777)  # any user's grader may take slots (umask aside)
    except OSError as problem:
        raise NoFreeSlot(f"cannot use {SLOT_DIR} for sandbox slots: {problem}") from None
    return SLOT_DIR


def claim_slot(preferred: int = 0) -> tuple[int, int]:
    """``(slot, fd)``: the first free slot from ``preferred`` on (wrapping round), held
    until ``release_slot(fd)`` or the end of this process."""
    folder = _lock_dir()
    for offset in range(MAX_SLOTS):
        slot = (preferred + offset) % MAX_SLOTS
        path = folder / f"{slot}.lock"
        try:
            # read-only is enough for flock, so a lock file made by another user still works
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o444)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as problem:
            os.close(fd)
            if problem.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                continue
            raise
        return slot, fd
    raise NoFreeSlot(f"all {MAX_SLOTS} sandbox slots in {folder} are taken")


def release_slot(fd: int) -> None:
    try:
        os.close(fd)  # closing the only descriptor drops the lock
    except OSError:
        pass

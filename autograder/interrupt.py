"""Ctrl-C that is never lost while ``grade`` runs.

Python raises KeyboardInterrupt wherever the main thread is when SIGINT arrives; if that is
inside a callback whose exceptions are ignored (Dask's garbage-collection diagnosis runs
one on every collection, in this process), the interrupt is printed and dropped, and the
batch goes on. So ``catching_ctrl_c`` also records it, and the loops that wait (for a
result, on either engine) call ``check``, which raises it again.

Imports only the standard library; trusts its caller.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

REQUESTED = threading.Event()


def _on_sigint(signum: int, frame: Any) -> None:
    REQUESTED.set()
    raise KeyboardInterrupt


def check() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed (and possibly swallowed) before."""
    if REQUESTED.is_set():
        raise KeyboardInterrupt


@contextmanager
def catching_ctrl_c() -> Iterator[None]:
    """Record every SIGINT while inside (main thread only; elsewhere, nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    REQUESTED.clear()
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)

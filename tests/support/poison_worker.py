"""Preloaded into a test's `dask worker` (`--preload support.poison_worker`): the worker
process kills itself with SIGKILL, as the kernel's OOM killer would, whenever it starts a
task whose key names the student "poison" (by the hash ``cluster.student_tag`` puts in
keys). A submission cannot do this itself (its sandbox cannot reach the worker); the test
needs a submission that does it every time."""

from __future__ import annotations

import hashlib
import os
import signal

from distributed import WorkerPlugin

POISON = f"-{hashlib.sha256(b'poison').hexdigest()[:12]}-"  # as autograder.cluster.student_tag


class KillOnPoison(WorkerPlugin):
    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and POISON in str(key):
            os.kill(os.getpid(), signal.SIGKILL)


async def dask_setup(worker) -> None:
    await worker.plugin_add(KillOnPoison(), name="kill-on-poison")

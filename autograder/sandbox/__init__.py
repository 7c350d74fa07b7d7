"""Run students' notebook code in a bubblewrap sandbox, a fresh process per submission.

Two sides, in separate files. The trusted side, imported by the grader: ``bwrap.py`` (the
command and its binds) and ``worker.py`` (``Worker``: starts a sandbox, sends it steps,
reads back a ``protocol.Report``). The runner, which runs inside the sandbox next to student
code and imports only ``autograder.protocol`` (with ``autograder.limits``) and
``lecture_utils``: ``zygote.py`` (its main loop), ``child.py`` (the forked child that runs
one submission), ``collector.py`` (checks what the child sends) and ``cleanup.py`` (kills
what a submission left: processes, IPC, files). Every limit is in ``autograder.limits``.
This package's ``__init__`` imports nothing, so the runner does not load the trusted side.

Grading runs hundreds of untrusted submissions. Student code must never reach the answer key,
the gradebook or other students' work, must not change a verdict, and an infinite loop, memory
bomb, fork bomb or crash must cost only that submission. So verdicts are made here, outside the
sandbox: the sandbox only runs the student's cells and evaluates the instructor's case
expressions (``"tensor_bytes(torch.zeros(4, 8))"``) into plain JSON values. Expected values
never enter it, and results come back as JSON, never pickle.

A ``Worker`` is one sandboxed process, ``python -m autograder.sandbox.zygote`` (the *zygote*),
with torch, numpy, IPython, matplotlib and ``lecture_utils`` imported once. For each submission
it forks a child that runs the steps; afterwards it kills every process left in the sandbox,
wipes ``/tmp``, ``/dev/shm``, message queues and SysV IPC, and reports. Layers, outermost first:

- **bubblewrap** (``bwrap.py``): new user, pid, network, ipc, uts and cgroup namespaces (no
  network at all), no capabilities, no nested user namespaces, a fresh environment (no
  ``NBGRADER_*``), and a filesystem holding only read-only binds of ``/usr`` (and the ``/lib``,
  ``/bin`` links), a few files of ``/etc``, the Python installation (``sys.base_prefix``), the
  virtual environment (``sys.prefix``) and the two packages ``lecture_utils/`` and
  ``autograder/``, at their real paths. Not the repository, not ``solutions/``, not the course
  directory, the gradebook or other submissions: student code reaches the sandbox only inside
  the request on a pipe. The root and ``/dev`` are read-only; ``/tmp`` and ``/dev/shm`` are
  small tmpfs (``Limits.scratch_bytes``).
- **the zygote** (``zygote.py``, results checked by ``collector.py``, ``cleanup.py``) is
  non-dumpable, so the children (same uid) cannot ptrace it or read its memory. It enforces the
  submission deadline, caps the bytes of results (``Limits.output_bytes``), checks that results
  come in the order of the steps, and every 0.1 s counts the sandbox's tasks and private memory:
  reaching the process limit (a fork bomb) or more than ``memory_bytes`` over all processes
  stops the submission at once.
- **the child** (``child.py``): stdin, stdout and stderr on ``/dev/null`` (prints and plots are
  discarded), rlimits (``RLIMIT_DATA`` = ``memory_bytes``, ``RLIMIT_AS`` = that +
  ``AS_HEADROOM``, which torch tolerates; ``RLIMIT_CPU``, ``RLIMIT_NPROC``, ``RLIMIT_FSIZE``,
  ``RLIMIT_NOFILE`` = ``OPEN_FILES``, no core files), seeds 0 for random/numpy/torch, one torch
  thread, niceness ``NICENESS`` (its zygote keeps the CPU it needs to stop a fork bomb),
  ``oom_score_adj`` 1000 (the sandbox dies first if the machine runs out of memory), and
  a per-cell ``SIGALRM``.
- **here** (``worker.py``): a watchdog (``submission_seconds`` + ``GRACE_SECONDS``) kills the
  whole worker if the zygote stops answering (e.g. the student stopped or killed it); the next
  ``run`` starts a new one.

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

from typing import Any

_EXPORTS = {"Limits": "autograder.limits", "SANDBOX_UID": "autograder.sandbox.bwrap",
            "SandboxUnavailable": "autograder.sandbox.bwrap",
            "sandbox_available": "autograder.sandbox.bwrap", "Worker": "autograder.sandbox.worker"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """The trusted side's names, imported only when the grader asks for them."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)

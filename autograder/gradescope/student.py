"""Running submissions as an unprivileged user where bubblewrap cannot start.

Gradescope runs ``run_autograder`` as root in a Docker container, where bubblewrap often
cannot make its namespaces. Gradescope's "Code Autograder Best Practices"
(https://gradescope-autograders.readthedocs.io/en/latest/best_practices/, read 2026-12-06)
then advise running student code as a separate non-root user, in a separate process, with the
source and results directories closed to it. That is what ``StudentWorker`` does: the same
worker and runner as ``check`` (``sandbox=False``: rlimits, one child per submission, every
process cleaned up), started with root dropped for good to ``student`` (or ``nobody``), which
owns only the worker's scratch directory. ``lock_down`` closes the key, the results and the
submission to it. Imports ``autograder.sandbox.worker``.
"""

from __future__ import annotations

import os
import pwd
import sys
from pathlib import Path

from autograder.limits import Limits
from autograder.sandbox.bwrap import DROP_ROOT
from autograder.sandbox.worker import Worker

STUDENT_USERS = ("student", "nobody")  # setup.sh adds "student"; "nobody" is everywhere


def student_account(names: tuple[str, ...] = STUDENT_USERS) -> pwd.struct_passwd:
    """The first of ``names`` that exists here."""
    for name in names:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError(f"none of the users {', '.join(names)} exists to run submissions as")


class StudentWorker(Worker):
    """A ``Worker`` without bubblewrap whose processes run as ``account`` (root only)."""

    def __init__(self, limits: Limits, account: pwd.struct_passwd) -> None:
        super().__init__(limits, sandbox=False)
        self.account = account

    def _command(self, requests: int, reports: int) -> tuple[list[str], dict[str, str], str]:
        command, env, scratch = super()._command(requests, reports)
        os.chown(scratch, self.account.pw_uid, self.account.pw_gid)
        return ([sys.executable, "-I", "-S", "-c", DROP_ROOT, str(self.account.pw_uid),
                 str(self.account.pw_gid), *command], env, scratch)


def lock_down(root: Path) -> None:
    """Close what student code must not read or write to every other user: the answer key,
    the results, the submission and its metadata (names, e-mails). The grader (root) reads
    the submission; only its cells reach the worker, over a pipe."""
    for path, mode in ((root / "source" / "key", 0o700), (root / "results", 0o700),
                       (root / "submission", 0o700),
                       (root / "submission_metadata.json", 0o600)):
        if path.exists() and not path.is_symlink():
            os.chmod(path, mode)

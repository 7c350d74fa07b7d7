"""nbgrader's file exchange, closed between students (for a course on a shared JupyterHub).

nbgrader's default exchange (0.9.6, measured in docs/jupyterhub.md) wants its root writable
by everyone (nbgrader #1225), so any student can rename the course's folder away and plant
their own, whose inbound they can read; it leaves each submission folder ``0777``; and
``collect`` takes a student's name from the folder name, so one student can hand in work in
another's name (it only warns when the owner differs). These classes keep nbgrader's layout,
file names and commands, and change only who may do what:

- the exchange root is root's and not writable by students (``ensure_root`` only checks it);
- ``inbound`` is the grader's, ``3733``: students may create entries but not list it, and the
  sticky bit stops them renaming or deleting anyone else's; setgid gives every submission the
  course's grader group;
- a submission is closed to everyone but its author and that group (``2750``/``0640``);
- ``collect`` sets aside (renames to ``.rejected-...``) any entry that is not a plain folder
  owned by the student it names, that holds a symbolic link, or that the grader cannot read,
  before nbgrader picks the latest per student.

Feedback needs no change: nbgrader names it by a hash of the submission's secret, which now
only its author and the graders can read, in a folder students cannot list.

Enable with ``c.ExchangeFactory.<action> = "autograder.exchange.<Class>"`` for every action
(deploy/jupyterhub/nbgrader_exchange_config.py); deploy/jupyterhub/setup-exchange.sh lays
out the folders.
Imports nbgrader; nothing of the grader.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat

from nbgrader.exchange.default import (
    ExchangeCollect,
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeReleaseAssignment,
    ExchangeReleaseFeedback,
    ExchangeSubmit,
)
from nbgrader.utils import check_directory

SUBMISSION_DIR_MODE = 0o2750
SUBMISSION_FILE_MODE = 0o640
REJECTED_PREFIX = ".rejected-"
__all__ = ["Collect", "FetchAssignment", "FetchFeedback", "List", "ReleaseAssignment",
           "ReleaseFeedback", "Submit", "forged_reason"]


class _RootIsAdmins:
    """nbgrader checks (or, when releasing, makes) a world-writable exchange root; here the
    root belongs to root and needs only to be enterable."""

    def ensure_root(self) -> None:
        if not check_directory(self.root, execute=True):
            self.fail(f"The exchange directory {self.root} is missing or closed to you; "
                      "ask the course's admin to run setup-exchange.sh")


class ReleaseAssignment(_RootIsAdmins, ExchangeReleaseAssignment):
    pass


class FetchAssignment(_RootIsAdmins, ExchangeFetchAssignment):
    pass


class List(_RootIsAdmins, ExchangeList):
    pass


class ReleaseFeedback(_RootIsAdmins, ExchangeReleaseFeedback):
    pass


class FetchFeedback(_RootIsAdmins, ExchangeFetchFeedback):
    pass


class Submit(_RootIsAdmins, ExchangeSubmit):
    def copy_files(self) -> None:
        """nbgrader's copy, then the copy closed to other students: nbgrader leaves it
        ``0777`` with ``0644`` files. Nobody can find it in between (the inbound cannot be
        listed and its name ends in 72 random bits)."""
        super().copy_files()
        self.close_submission(os.path.join(self.inbound_path, self.assignment_filename))

    def close_submission(self, path: str) -> None:
        """Copy the submission again into a folder made in the setgid inbound, so that every
        file has the graders' group (nbgrader's copy drops the folder's setgid bit, and a
        student cannot give a file a group they are not in), close it, and put it in place."""
        inbound_group = os.stat(self.inbound_path).st_gid
        folder, name = os.path.split(path)
        staging = os.path.join(folder, f".{name}.closing")  # dot: no glob of nbgrader's sees it
        os.mkdir(staging)  # group and setgid bit from the inbound
        shutil.copytree(path, staging, copy_function=shutil.copyfile, dirs_exist_ok=True)
        for here, _, files in os.walk(staging):
            for file in files:
                os.chmod(os.path.join(here, file), SUBMISSION_FILE_MODE)
                if os.stat(os.path.join(here, file)).st_gid != inbound_group:
                    self.fail(f"{file} did not get the graders' group; the inbound folder "
                              "must be setgid (see setup-exchange.sh)")
            os.chmod(here, SUBMISSION_DIR_MODE)
        shutil.rmtree(path)
        os.rename(staging, path)


def forged_reason(path: str, student: str) -> str | None:
    """Why the inbound entry ``path`` cannot be ``student``'s own submission, or None."""
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        return "not a plain folder"
    try:
        owner = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        owner = f"uid {info.st_uid}"
    if owner != student:
        return f"named for {student} but owned by {owner}"
    # one folder or file the grader cannot read would stop the whole class's collect
    unreadable: list[OSError] = []
    for folder, dirs, files in os.walk(path, onerror=unreadable.append):
        for name in dirs + files:
            if os.path.islink(os.path.join(folder, name)):
                return f"holds a symbolic link ({name})"
            if not os.access(os.path.join(folder, name), os.R_OK):
                return f"not readable by the grader ({name})"
    if unreadable:
        return "not readable by the grader"
    return None


class Collect(_RootIsAdmins, ExchangeCollect):
    def init_src(self) -> None:
        """Set aside what a student placed in another's name (or made of links) first, so
        that nbgrader's choice of each student's latest submission sees only real ones."""
        inbound = os.path.join(self.root, self.coursedir.course_id, "inbound")
        suffix = f"+{self.coursedir.assignment_id}+"
        if os.path.isdir(inbound):
            for name in sorted(os.listdir(inbound)):
                if suffix not in name or name.startswith("."):
                    continue
                path = os.path.join(inbound, name)
                reason = forged_reason(path, name.rsplit("+", 3)[0])
                if reason:
                    self.log.error("Not collecting %s: %s; moved to %s%s", name, reason,
                                   REJECTED_PREFIX, name)
                    os.rename(path, os.path.join(inbound, REJECTED_PREFIX + name))
        super().init_src()

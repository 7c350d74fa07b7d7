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
- ``collect`` sets aside (renames to ``.rejected-...``) any entry whose name nbgrader cannot
  read, that is not a plain folder owned by the student it names, that holds a symbolic link
  or something the grader cannot read, or that lacks a well-formed submission secret, before
  nbgrader picks the latest per student: one such entry stopped the whole class's collect
  or release_feedback;
- and it copies without trusting that first look (the author owns the folder and can swap a
  file for a link to the answer key between the look and the copy): each file is opened with
  ``O_NOFOLLOW`` beside its already-open folder, must be the author's plain file on that very
  descriptor, and is capped by the bytes read (a FIFO or a growing file cannot hang or fill
  collect).

Feedback needs no change: nbgrader names it by a hash of the submission's secret, which now
only its author and the graders can read, in a folder students cannot list.

Enable with ``c.ExchangeFactory.<action> = "autograder.exchange.<Class>"`` for every action
(deploy/jupyterhub/nbgrader_exchange_config.py); deploy/jupyterhub/setup-exchange.sh lays
out the folders.
Imports nbgrader; nothing of the grader.
"""

from __future__ import annotations

import datetime
import fnmatch
import os
import pwd
import re
import secrets
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
from nbgrader.utils import check_directory, parse_utc

SUBMISSION_DIR_MODE = 0o2750
SUBMISSION_FILE_MODE = 0o640
REJECTED_PREFIX = ".rejected-"
MAX_DEPTH = 8  # folders in a submission: deeper trees are not a notebook's
MAX_ENTRIES = 1000  # files and folders in one submission
CHANGE_SLACK_S = 300  # a submit's own copying and closing, after the time it names
__all__ = ["Collect", "FetchAssignment", "FetchFeedback", "List", "ReleaseAssignment",
           "ReleaseFeedback", "Submit", "forged_reason", "name_reason"]


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
    """Why the inbound entry ``path`` cannot be ``student``'s own submission, or None. A
    first look, to set bad entries aside before nbgrader picks each student's latest: the
    student owns the folder and can change it afterwards, so ``Collect.do_copy`` checks
    every file again on the descriptor it copies from."""
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
        if folder.count(os.sep) - path.count(os.sep) >= MAX_DEPTH:
            return "folders nested too deep"
        for name in dirs + files:
            mode = os.lstat(os.path.join(folder, name)).st_mode
            if stat.S_ISLNK(mode):
                return f"holds a symbolic link ({name})"
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                return f"holds something not a plain file ({name})"
            if not os.access(os.path.join(folder, name), os.R_OK):
                return f"not readable by the grader ({name})"
    if unreadable:
        return "not readable by the grader"
    secret = os.path.join(path, "submission_secret.txt")
    try:
        with open(secret, "rb") as file:
            if not re.fullmatch(rb"[0-9a-f]{128}", file.read(129)):
                raise ValueError
    except (OSError, ValueError):
        # release_feedback reads it, and stops for the whole class when it is bad
        return "no submission secret as nbgrader's submit writes it"
    return None


def name_reason(name: str, assignment: str) -> str | None:
    """Why nbgrader's collect could not read ``name`` (student+assignment+timestamp[+random])
    as a submission of ``assignment``, or None; one such name would stop the whole collect."""
    parts = name.rsplit("+", 3)
    if len(parts) < 3 or parts[1] != assignment:
        return "not named student+assignment+timestamp"
    try:
        parse_utc(parts[2])
    except (ValueError, OverflowError, TypeError):
        return "its timestamp cannot be read"
    return None


class Collect(_RootIsAdmins, ExchangeCollect):
    def init_src(self) -> None:
        """Set aside what a student placed in another's name (or made of links, or named so
        that nbgrader cannot read it) first, so that nbgrader's choice of each student's
        latest submission sees only real ones."""
        inbound = os.path.join(self.root, self.coursedir.course_id, "inbound")
        suffix = f"+{self.coursedir.assignment_id}+"
        if os.path.isdir(inbound):
            for name in sorted(os.listdir(inbound)):
                if suffix not in name or name.startswith("."):
                    continue  # nbgrader's glob (*+assignment+*) skips these too
                path = os.path.join(inbound, name)
                try:
                    reason = (name_reason(name, self.coursedir.assignment_id)
                              or forged_reason(path, name.rsplit("+", 3)[0]))
                except OSError as error:  # its author changed it while we looked
                    reason = str(error)
                if reason:
                    # a name of our own: a student cannot block it (a folder of theirs
                    # already there) nor make it too long
                    aside = (f"{REJECTED_PREFIX}{secrets.token_hex(8)}-"
                             + re.sub(r"[^A-Za-z0-9._+-]", "_", name)[:100])
                    self.log.error("Not collecting %r: %s; moved to %s", name, reason, aside)
                    try:
                        os.rename(path, os.path.join(inbound, aside))
                    except OSError as error:
                        self.fail(f"could not set aside {name!r}: {error}")
        super().init_src()

    def do_copy(self, src: str, dest: str, log: object = None) -> None:
        """Copy a submission as the grader without following anything its author can change
        under us: every folder and file is opened with ``O_NOFOLLOW`` relative to its
        already-open folder and checked on that descriptor (the author's, a plain file or
        folder) before a byte is copied; FIFOs, devices, links and hard links to others'
        files are skipped, and sizes are capped by what was read, not by a stat taken
        before. What is skipped is logged; the rest of the class is collected."""
        student = os.path.basename(src).rsplit("+", 3)[0]
        limits = _Limits(pwd.getpwnam(student).pw_uid, self.coursedir, self.log)
        try:
            top = os.open(src, _DIR_FLAGS)
        except OSError as error:
            self.log.error("Not collecting %s: %s", src, error)
            return
        try:
            if limits.foreign(top, src, folder=True):
                return
            _copy_folder(top, dest, limits, 0)
            _stamp_changes(src, dest, limits.changed, self.log)
        finally:
            os.close(top)


def _stamp_changes(src: str, dest: str, changed: float, log: object) -> None:
    """The time in a submission's name (and its timestamp.txt) is its author's claim, and
    the author can still change the folder after handing it in; the kernel's change times
    (``st_ctime``, which no user can set) of what was copied are not. When they are later
    than the claim, the collected timestamp.txt says so, for nbgrader's late penalty."""
    try:
        claimed = parse_utc(os.path.basename(src).rsplit("+", 3)[2])  # naive, in UTC
        claimed = claimed.replace(tzinfo=datetime.UTC).timestamp()
    except (ValueError, OverflowError, TypeError, IndexError):
        return
    if changed > claimed + CHANGE_SLACK_S:
        when = datetime.datetime.fromtimestamp(changed, datetime.UTC)
        text = when.strftime("%Y-%m-%d %H:%M:%S.%f %Z")
        log.warning("%s was changed at %s, after the time it claims; collected as of then",
                    src, text)
        with open(os.path.join(dest, "timestamp.txt"), "w") as file:
            file.write(text)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class _Limits:
    """What one submission may hold, and the bytes and entries it has used so far."""

    def __init__(self, uid: int, coursedir: object, log: object) -> None:
        self.uid = uid
        self.log = log
        self.ignore = list(coursedir.ignore)
        self.include = list(coursedir.include)
        self.file_bytes = 1000 * coursedir.max_file_size
        self.bytes_left = 1000 * coursedir.max_dir_size
        self.entries_left = MAX_ENTRIES
        self.changed = 0.0  # the latest st_ctime of what was copied

    def saw(self, info: os.stat_result) -> None:
        self.changed = max(self.changed, info.st_ctime)

    def foreign(self, fd: int, where: str, folder: bool) -> bool:
        """True (and logged) unless ``fd`` is the student's own folder (or plain file)."""
        info = os.fstat(fd)
        self.saw(info)
        if not (stat.S_ISDIR if folder else stat.S_ISREG)(info.st_mode):
            self.log.error("Not collecting %s: not a plain %s", where,
                           "folder" if folder else "file")
            return True
        if info.st_uid != self.uid:
            self.log.error("Not collecting %s: owned by uid %d, not its author", where,
                           info.st_uid)
            return True
        return False


def _copy_folder(folder: int, dest: str, limits: _Limits, depth: int) -> None:
    os.mkdir(dest)
    for name in sorted(os.listdir(folder)):
        where = os.path.join(dest, name)
        limits.entries_left -= 1
        if limits.entries_left < 0 or depth >= MAX_DEPTH:
            limits.log.error("Not collecting %s: too many files or folders", where)
            return
        if any(fnmatch.fnmatch(name, glob) for glob in limits.ignore):
            continue
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                sub = os.open(name, _DIR_FLAGS, dir_fd=folder)
                try:
                    if not limits.foreign(sub, where, folder=True):
                        _copy_folder(sub, where, limits, depth + 1)
                finally:
                    os.close(sub)
            elif stat.S_ISREG(info.st_mode):
                if any(fnmatch.fnmatch(name, glob) for glob in limits.include):
                    _copy_file(folder, name, where, limits)
            else:
                limits.log.error("Not collecting %s: not a plain file or folder", where)
        except OSError as error:  # a link swapped in (ELOOP), unreadable, vanished
            limits.log.error("Not collecting %s: %s", where, error)


def _copy_file(folder: int, name: str, where: str, limits: _Limits) -> None:
    source = os.open(name, _FILE_FLAGS, dir_fd=folder)
    try:
        if limits.foreign(source, where, folder=False):
            return
        cap = min(limits.file_bytes, limits.bytes_left)
        size = 0
        with open(where, "xb") as out:
            while size <= cap:  # the size read, not one stat'ed before: the file may grow
                chunk = os.read(source, min(1 << 20, cap + 1 - size))
                if not chunk:
                    break
                out.write(chunk)
                size += len(chunk)
        limits.saw(os.fstat(source))  # changed while we read it
        if size > cap:
            os.unlink(where)
            limits.log.error("Not collecting %s: over the size limit "
                             "(CourseDirectory.max_file_size, max_dir_size)", where)
            return
        limits.bytes_left -= size
    finally:
        os.close(source)

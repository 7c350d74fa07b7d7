"""autograder/exchange.py's checks of an inbound entry and its copy, without a hub or other
users: what ``Collect`` sets aside before nbgrader picks each student's latest submission,
and what its copy refuses when the student changes the folder after that first look. The
whole exchange, with real users, is in test_jupyterhub.py."""

from __future__ import annotations

import datetime
import os
import pwd
import threading

import pytest
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default import ExchangeCollect

from autograder.exchange import Collect, forged_reason, name_reason

ME = pwd.getpwuid(os.getuid()).pw_name
SECRET = "ab" * 64  # as nbgrader's submit writes it: 128 hex digits
WHOLE = ["a.ipynb", "submission_secret.txt", "timestamp.txt"]  # an entry of _entry's


def _entry(tmp_path, name: str = "nb", when: datetime.datetime | None = None) -> str:
    """An inbound entry as nbgrader's submit makes it, claiming ``when`` (now, by default)."""
    when = when or datetime.datetime.now(datetime.UTC)
    stamp = when.strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    folder = tmp_path / f"{ME}+a+{stamp}+x{name}"
    folder.mkdir()
    (folder / "a.ipynb").write_text("{}")
    (folder / "submission_secret.txt").write_text(SECRET)
    (folder / "timestamp.txt").write_text(stamp)
    return str(folder)


def _collect(entry: str, dest: str, **limits: int) -> list[str]:
    """``Collect.do_copy`` of ``entry`` into ``dest``: the names it copied."""
    collect = Collect(coursedir=CourseDirectory(**limits), authenticator=Authenticator())
    collect.do_copy(entry, dest)
    return sorted(os.listdir(dest))


def test_a_students_own_folder_is_collected(tmp_path):
    entry = _entry(tmp_path)
    assert forged_reason(entry, ME) is None
    assert _collect(entry, str(tmp_path / "dest")) == WHOLE


def test_a_folder_named_for_someone_else_is_set_aside(tmp_path):
    reason = forged_reason(_entry(tmp_path), "someone-else")
    assert reason == f"named for someone-else but owned by {ME}"


def test_a_link_in_place_of_the_folder_is_set_aside(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(_entry(tmp_path))
    assert forged_reason(str(link), ME) == "not a plain folder"


def test_a_link_inside_the_folder_is_set_aside(tmp_path):
    """A link could make the grader's collect copy what it points at (the answer key)."""
    entry = _entry(tmp_path)
    os.symlink("/etc/hostname", os.path.join(entry, "sub.ipynb"))
    assert forged_reason(entry, ME) == "holds a symbolic link (sub.ipynb)"


def test_a_folder_without_nbgraders_secret_is_set_aside(tmp_path):
    """release_feedback names feedback by it, and stops for everyone when it is missing."""
    entry = _entry(tmp_path)
    os.unlink(os.path.join(entry, "submission_secret.txt"))
    assert forged_reason(entry, ME) == "no submission secret as nbgrader's submit writes it"


@pytest.mark.parametrize("name", ["me+a+not a time+x", "me+b+a+2026-01-01 00:00:00 UTC",
                                  "me+a"])
def test_a_name_nbgraders_collect_cannot_read_is_set_aside(name):
    assert name_reason(name, "a") is not None
    assert name_reason("me+a+2026-01-01 00:00:00.000000 UTC+x", "a") is None


def test_a_link_swapped_in_after_the_check_is_not_followed(tmp_path):
    """The author owns the folder: between the check and the copy they can replace their
    notebook by a link to the answer key; nbgrader's copy (shutil.copytree) follows it."""
    key = tmp_path / "source.ipynb"
    key.write_text("THE ANSWER KEY")
    entry = _entry(tmp_path)
    assert forged_reason(entry, ME) is None
    os.replace(_link(tmp_path, key), os.path.join(entry, "a.ipynb"))
    stock = ExchangeCollect(coursedir=CourseDirectory(), authenticator=Authenticator())
    stock.do_copy(entry, str(tmp_path / "stock"))
    assert (tmp_path / "stock" / "a.ipynb").read_text() == "THE ANSWER KEY"  # nbgrader's
    os.symlink(tmp_path, os.path.join(entry, "folder"))
    assert _collect(entry, str(tmp_path / "dest")) == ["submission_secret.txt", "timestamp.txt"]


def _link(tmp_path, target) -> str:
    link = str(tmp_path / "new-link")
    os.symlink(target, link)
    return link


def test_a_fifo_or_an_oversized_file_neither_hangs_nor_fills_collect(tmp_path):
    entry = _entry(tmp_path)
    os.mkfifo(os.path.join(entry, "pipe.ipynb"))
    assert forged_reason(entry, ME) == "holds something not a plain file (pipe.ipynb)"
    with open(os.path.join(entry, "big.bin"), "wb") as big:
        big.truncate(3000)  # over max_file_size (in kB) below
    done = threading.Thread(target=_collect, args=(entry, str(tmp_path / "dest")),
                            kwargs={"max_file_size": 2}, daemon=True)
    done.start()
    done.join(timeout=20)
    assert not done.is_alive(), "collect hung on a FIFO"
    assert sorted(os.listdir(tmp_path / "dest")) == WHOLE


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file another owner needs root")
def test_a_file_of_someone_elses_in_the_folder_is_not_collected(tmp_path):
    """What a hard link to another's file looks like (where fs.protected_hardlinks is off)."""
    entry = _entry(tmp_path)
    other = os.path.join(entry, "other.ipynb")
    with open(other, "w") as file:
        file.write("NOT MINE")
    os.chown(other, 65534, 65534)
    assert _collect(entry, str(tmp_path / "dest")) == WHOLE


def test_a_submission_changed_after_the_time_it_claims_is_collected_as_of_the_change(tmp_path):
    """Its name and timestamp.txt are its author's word; st_ctime is the kernel's."""
    claimed = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1)
    late = _entry(tmp_path, "late", claimed)
    _collect(late, str(tmp_path / "late"))
    stamp = (tmp_path / "late" / "timestamp.txt").read_text()
    assert abs(datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f UTC").replace(
        tzinfo=datetime.UTC) - datetime.datetime.now(datetime.UTC)).total_seconds() < 60
    on_time = _entry(tmp_path, "on-time")
    _collect(on_time, str(tmp_path / "on-time"))
    assert (tmp_path / "on-time" / "timestamp.txt").read_text() == (
        open(os.path.join(on_time, "timestamp.txt")).read())

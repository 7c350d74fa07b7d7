"""autograder/exchange.py's check of an inbound entry, without a hub or other users: what
``Collect`` sets aside before nbgrader picks each student's latest submission. The whole
exchange, with real users, is in test_jupyterhub.py."""

from __future__ import annotations

import os
import pwd

from autograder.exchange import forged_reason

ME = pwd.getpwuid(os.getuid()).pw_name


def _entry(tmp_path, name: str = "nb") -> str:
    folder = tmp_path / f"{ME}+a+2026-01-01 00:00:00.000000 UTC+x{name}"
    folder.mkdir()
    (folder / "a.ipynb").write_text("{}")
    return str(folder)


def test_a_students_own_folder_is_collected(tmp_path):
    assert forged_reason(_entry(tmp_path), ME) is None


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

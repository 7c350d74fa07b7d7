"""`%check_my_work`: which notebook it grades, what it says outside JupyterLab, that every
kernel of the course environment offers it (the browser suite runs it in JupyterLab), and on
Colab, where the notebook comes from the browser through a stand-in ``google.colab``."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import start_new_kernel
from support.ipython_shell import shared_shell as get_ipython
from support.submissions import perfect_submission

from lecture_utils import self_check


def test_the_notebook_is_the_one_jupyter_names(tmp_path, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    notebook = tmp_path / "01.ipynb"
    notebook.write_text("{}")
    assert self_check.notebook_path({"__session__": str(notebook)}) == notebook
    assert self_check.notebook_path({}) is None
    assert self_check.notebook_path({"__session__": str(tmp_path / "gone.ipynb")}) is None
    assert self_check.notebook_path({"__session__": "console-1"}) is None  # not a notebook
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))  # what jupyter_server sets
    assert self_check.notebook_path({}) == notebook


def test_outside_jupyterlab_it_names_the_terminal_command(capsys, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    shell = get_ipython()
    self_check.load_ipython_extension(shell)
    shell.user_ns.pop("__session__", None)
    capsys.readouterr()
    assert shell.run_cell("%check_my_work").success
    out = capsys.readouterr().out
    assert "needs JupyterLab" in out and "python -m autograder check" in out


@pytest.mark.slow
def test_every_kernel_of_the_environment_offers_it(monkeypatch):
    """scripts/setup.sh configures the environment's kernels to load the extension, so the
    magic works before the notebook imports anything."""
    if Path(sys.prefix).resolve() != (self_check.REPO / ".venv").resolve():
        pytest.skip("not running in the environment scripts/setup.sh built")
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        seen = []
        client.execute_interactive("%check_my_work", timeout=60,
                                   output_hook=lambda m: seen.append(m["content"]))
        text = "".join(c.get("text", "") + c.get("evalue", "") for c in seen)
        assert "needs JupyterLab" in text, text
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


# --- On Colab: the notebook comes from the browser (google.colab._message), not a file ---

COLAB_NB = "02_strides_and_views"


def _fake_colab(monkeypatch, reply):
    """Put a stand-in google.colab in sys.modules, as a Colab kernel has it; its
    blocking_request answers like Colab's (colabtools' google/colab/_message.py) and records
    what it was asked."""
    asked = []

    class MessageError(Exception):
        pass

    def blocking_request(request_type, request="", timeout_sec=5, parent=None):
        asked.append((request_type, request, timeout_sec))
        if reply == "error":  # the front end answered with an error
            raise MessageError("the front end refused")
        return reply

    message = types.ModuleType("google.colab._message")
    message.blocking_request, message.MessageError = blocking_request, MessageError
    package = types.ModuleType("google.colab")
    package._message = message
    monkeypatch.setitem(sys.modules, "google.colab", package)
    monkeypatch.setitem(sys.modules, "google.colab._message", message)
    return asked


def _solved(language=None) -> dict:
    notebook = perfect_submission(COLAB_NB)
    if language:
        notebook.metadata["lecture"] = {"language": language}
    return json.loads(nbformat.writes(notebook))


def test_on_colab_the_notebook_is_asked_of_the_browser_and_named_by_its_cells(
        tmp_path, monkeypatch):
    notebook = _solved()
    asked = _fake_colab(monkeypatch, {"ipynb": notebook})
    assert self_check.on_colab()
    path = self_check.colab_notebook(tmp_path / "check")
    assert asked == [("get_ipynb", "", self_check.COLAB_SECONDS)]
    # named after the assignment its graded cells belong to, whatever Colab calls the tab
    assert path == tmp_path / "check" / f"{COLAB_NB}.ipynb"
    assert json.loads(path.read_text("utf-8")) == notebook


def test_without_a_content_folder_the_copy_goes_to_the_temporary_folder(tmp_path, monkeypatch):
    """Colab always has /content; a machine without it (the Colab twin in CI) gets no
    /content made for it."""
    _fake_colab(monkeypatch, {"ipynb": _solved()})
    monkeypatch.setattr(self_check, "COLAB_FOLDER", tmp_path / "content" / "cs336-check")
    monkeypatch.setattr(self_check.tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert self_check.colab_notebook() == tmp_path / "tmp" / "cs336-check" / f"{COLAB_NB}.ipynb"
    assert not (tmp_path / "content").exists()
    (tmp_path / "content").mkdir()
    assert self_check.colab_notebook() == (
        tmp_path / "content" / "cs336-check" / f"{COLAB_NB}.ipynb")


def test_a_notebook_of_no_assignment_is_still_written_for_check_to_refuse(tmp_path, monkeypatch):
    _fake_colab(monkeypatch, {"ipynb": {"cells": [], "metadata": {}, "nbformat": 4,
                                        "nbformat_minor": 5}})
    assert self_check.colab_notebook(tmp_path).name == "notebook.ipynb"


@pytest.mark.parametrize("reply", [None, {}, {"ipynb": None}, "not a dict", "error"])
def test_no_answer_from_the_browser_says_so_and_checks_nothing(reply, tmp_path, monkeypatch,
                                                               capsys):
    _fake_colab(monkeypatch, reply)
    monkeypatch.setattr(self_check, "COLAB_FOLDER", tmp_path)
    monkeypatch.setattr(self_check.subprocess, "run", _must_not_run)
    self_check.check_my_work()
    assert "Colab did not send the notebook within 60 s" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def _must_not_run(*args, **kwargs):
    raise AssertionError("no check may run without a notebook")


@pytest.mark.parametrize(("language", "says"), [
    (None, "Checking 02_strides_and_views as it is open in Colab, unsaved edits included"),
    ("zh-CN", "正在检查 Colab 中打开的 02_strides_and_views"),
])
def test_on_colab_the_magic_checks_the_copy_from_the_repository(language, says, tmp_path,
                                                                 monkeypatch, capsys):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setenv("LECTURE_LANGUAGE", "en")
    _fake_colab(monkeypatch, {"ipynb": _solved(language)})
    monkeypatch.setattr(self_check, "COLAB_FOLDER", tmp_path)
    ran = []

    def run(command, **options):
        ran.append((command, options))
        return subprocess.CompletedProcess(command, 0, stdout="the check's table\n", stderr="")

    monkeypatch.setattr(self_check.subprocess, "run", run)
    shell = get_ipython()
    self_check.load_ipython_extension(shell)
    shell.user_ns.pop("__session__", None)
    capsys.readouterr()
    assert shell.run_cell("%check_my_work").success
    out = capsys.readouterr().out
    copy = tmp_path / f"{COLAB_NB}.ipynb"
    assert [command for command, _ in ran] == [
        [sys.executable, "-m", "autograder", "check", str(copy)]]
    assert ran[0][1]["cwd"] == self_check.REPO
    assert says in out and str(copy) in out
    assert out.rstrip().endswith("the check's table")


@pytest.mark.slow
def test_on_colab_without_bubblewrap_it_grades_and_says_it_ran_unsandboxed(tmp_path,
                                                                          monkeypatch, capsys):
    """A real ``autograder check`` of a solved notebook, as on Colab: the copy from the
    browser, and no bubblewrap on PATH (Colab has none), so the check says it ran unsandboxed."""
    monkeypatch.setenv("LECTURE_LANGUAGE", "en")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no bwrap to be found
    _fake_colab(monkeypatch, {"ipynb": _solved()})
    monkeypatch.setattr(self_check, "COLAB_FOLDER", tmp_path / "content")
    self_check.check_my_work()
    out = capsys.readouterr().out
    assert "No sandbox here (bubblewrap is not installed)" in out, out
    assert "score: 9/9" in out, out

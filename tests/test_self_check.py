"""`%check_my_work`: which notebook it grades, what it says outside JupyterLab, and that every
kernel of the course environment offers it (the browser suite runs it in JupyterLab)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel
from support.ipython_shell import shared_shell as get_ipython

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

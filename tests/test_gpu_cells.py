import pytest
import torch
from support.ipython_shell import shared_shell as get_ipython

from lecture_utils import gpu_cells
from lecture_utils.i18n import tr


def test_marker_detection():
    assert gpu_cells.is_gpu_only("%%gpu_only\n# NBVAL_IGNORE_OUTPUT\nx = 1")
    assert gpu_cells.is_gpu_only("\n  %%gpu_only\nx = 1")
    assert not gpu_cells.is_gpu_only("x = 1  # %%gpu_only")


@pytest.fixture(scope="module")
def shell():
    ip = get_ipython()  # a real IPython shell, as in a notebook kernel
    gpu_cells.register_if_in_ipython()
    assert "gpu_only" in ip.magics_manager.magics["cell"]
    return ip


BODY = "%%gpu_only\nbody_ran = True\nraise RuntimeError('the body ran')\n"


def test_without_cuda_the_body_never_runs_and_the_skip_is_said(shell, capsys, monkeypatch):
    """On any machine (CUDA faked absent): the cell succeeds, prints the skip line and nothing
    else, and no statement of its body ran. Kills: ``gpu_only`` running the body without CUDA,
    with or without the skip line."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    shell.user_ns.pop("body_ran", None)
    capsys.readouterr()
    result = shell.run_cell(BODY)
    assert result.success, result.error_in_exec
    assert capsys.readouterr().out == gpu_cells.SKIP_MESSAGE + "\n"
    assert "body_ran" not in shell.user_ns


def test_the_skip_line_is_in_the_notebooks_language(shell, capsys, monkeypatch):
    """A Chinese notebook says it skipped the cell in Chinese (the English line is the
    catalog's key, and what an English notebook prints)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setenv("LECTURE_LANGUAGE", "zh-CN")
    capsys.readouterr()
    assert shell.run_cell(BODY).success
    printed = capsys.readouterr().out
    assert printed == tr(gpu_cells.SKIP_MESSAGE, "zh-CN") + "\n"
    assert "GPU" in printed and printed != gpu_cells.SKIP_MESSAGE + "\n"


def test_with_cuda_the_body_runs_and_its_errors_fail_the_cell(shell, monkeypatch):
    """The other branch, on any machine (CUDA faked present; the body needs no GPU).
    Kills: ``gpu_only`` always skipping, or swallowing the body's errors."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    shell.user_ns.pop("body_ran", None)
    result = shell.run_cell(BODY)
    assert shell.user_ns["body_ran"] is True
    assert isinstance(result.error_in_exec, RuntimeError)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cell_runs_with_cuda_and_errors_propagate(shell):
    assert shell.run_cell("%%gpu_only\nran_the_gpu_cell = True\n").success
    assert shell.user_ns["ran_the_gpu_cell"] is True
    assert not shell.run_cell("%%gpu_only\n1 / 0\n").success

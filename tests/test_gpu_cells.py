import pytest
import torch
from IPython.testing.globalipapp import get_ipython

from lecture_utils import gpu_cells


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


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the skip path without CUDA")
def test_cell_is_skipped_cleanly_without_cuda(shell, capsys):
    result = shell.run_cell("%%gpu_only\nran_the_gpu_cell = True\n")
    assert result.success
    assert gpu_cells.SKIP_MESSAGE in capsys.readouterr().out
    assert "ran_the_gpu_cell" not in shell.user_ns


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cell_runs_with_cuda_and_errors_propagate(shell):
    assert shell.run_cell("%%gpu_only\nran_the_gpu_cell = True\n").success
    assert shell.user_ns["ran_the_gpu_cell"] is True
    assert not shell.run_cell("%%gpu_only\n1 / 0\n").success

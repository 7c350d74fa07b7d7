"""The ``%%gpu_only`` cell magic: run a cell only where a CUDA GPU exists.

A notebook marks a GPU-only cell by starting it with ``%%gpu_only``. Without a GPU the cell
prints one line saying it was skipped and why (in the notebook's language), and the notebook
carries on. The test suite's nbval replay recognises the same marker (see the root
``conftest.py``) and reports such cells as skipped on a CPU machine, and runs them on a GPU
machine.
"""

from __future__ import annotations

from lecture_utils.i18n import N_, tr

MARKER = "%%gpu_only"
# English, as benchmarks/replay_notebooks.py looks for it; shown through tr
SKIP_MESSAGE = N_("Skipped: this cell needs a CUDA GPU, and none was found.")


def is_gpu_only(source: str) -> bool:
    """Whether a code cell's source is marked GPU-only."""
    return source.lstrip().startswith(MARKER)


def gpu_only(line: str, cell: str) -> None:
    """Cell magic body: run ``cell`` in the user namespace if CUDA is available."""
    import torch  # here, so that importing lecture_utils stays light for the grader's CLI

    if not torch.cuda.is_available():
        print(tr(SKIP_MESSAGE))
        return
    from IPython import get_ipython

    # exec (not run_cell) so that an error inside fails this cell, as it would without the magic
    exec(compile(cell, "<gpu_only cell>", "exec"), get_ipython().user_ns)


def register_if_in_ipython() -> None:
    """Register ``%%gpu_only`` when imported inside IPython/Jupyter; otherwise do nothing."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.register_magic_function(gpu_only, magic_kind="cell", magic_name="gpu_only")

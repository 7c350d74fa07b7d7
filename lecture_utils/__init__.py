"""Shared helpers for the Lecture 2 notebooks: devices, timing, FLOP and byte accounting,
hardware peaks, plotting and widgets.

Import the submodule you need (``from lecture_utils import flops``). Heavy libraries
(matplotlib, ipywidgets) load only when a plotting or widget helper is first used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["get_device", "synchronize"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``lecture_utils.get_device`` and ``synchronize``, imported on first use: torch takes
    seconds to import, and the grader's command line uses ``lecture_utils.i18n`` without it."""
    if name in __all__:
        from lecture_utils import device

        return getattr(device, name)
    raise AttributeError(f"module 'lecture_utils' has no attribute {name!r}")

try:  # inside a notebook, offer the %%gpu_only and %check_my_work magics
    from lecture_utils import gpu_cells, self_check

    gpu_cells.register_if_in_ipython()
    self_check.register_if_in_ipython()
except ImportError:  # pragma: no cover - IPython is optional outside notebooks
    pass

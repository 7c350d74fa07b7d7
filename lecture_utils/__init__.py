"""Shared helpers for the Lecture 2 notebooks: devices, timing, FLOP and byte accounting,
hardware peaks, plotting and widgets.

Import the submodule you need (``from lecture_utils import flops``). Heavy libraries
(matplotlib, ipywidgets) load only when a plotting or widget helper is first used.
"""

from __future__ import annotations

from lecture_utils.device import get_device, synchronize

__all__ = ["get_device", "synchronize"]
__version__ = "0.1.0"

try:  # inside a notebook, offer the %%gpu_only and %check_my_work magics
    from lecture_utils import gpu_cells, self_check

    gpu_cells.register_if_in_ipython()
    self_check.register_if_in_ipython()
except ImportError:  # pragma: no cover - IPython is optional outside notebooks
    pass

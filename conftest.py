"""Suite-wide pytest hooks (at the root, so they apply to tests/ and solutions/ alike).

GPU-only notebook cells start with ``%%gpu_only`` (see ``lecture_utils.gpu_cells``). nbval
has no conditional skip, so here each such cell is reported as skipped, with the reason, on a
machine without CUDA, and replayed like any other cell where CUDA exists.
"""

from __future__ import annotations

import pytest
import torch

from lecture_utils.gpu_cells import is_gpu_only


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="GPU-only notebook cell (%%gpu_only); no CUDA GPU here")
    for item in items:
        cell = getattr(item, "cell", None)  # nbval's notebook-cell items carry the cell
        if cell is not None and cell.get("cell_type") == "code" and is_gpu_only(cell.source):
            item.add_marker(skip)

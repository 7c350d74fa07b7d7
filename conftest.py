"""Suite-wide pytest hooks (at the root, so they apply to tests/ and solutions/ alike).

GPU-only notebook cells start with ``%%gpu_only`` (see ``lecture_utils.gpu_cells``). nbval
has no conditional skip, so here each such cell is reported as skipped, with the reason, on a
machine without CUDA, and replayed like any other cell where CUDA exists.

Parallel runs (``scripts/test.sh`` uses pytest-xdist's ``--dist loadgroup``): each test file
is one group, kept in one worker so that its module fixtures (a graded course, a JupyterLab)
are built once. The files in ``SPLIT_BY_NOTEBOOK`` build one course per notebook, so each
notebook's tests are a group of their own and the notebooks are shared out between workers;
those in ``SPLIT_BY_FUNCTION`` are shared out one test function (all its notebooks) per group.

Every test starts in English: the variables that choose a notebook's language
(``LECTURE_LANGUAGE``, and ``JPY_SESSION_NAME`` when pytest runs from a Chinese notebook) are
removed, so a developer's environment cannot change what the English tests read.
"""

from __future__ import annotations

import pytest
import torch

from lecture_utils.gpu_cells import is_gpu_only

SPLIT_BY_NOTEBOOK = {"tests/test_nbgrader_grading.py", "tests/test_answer_variants.py"}
# Long files whose tests are shared out by test function (each group starts its own lab).
SPLIT_BY_FUNCTION = {"tests/browser/test_notebooks_in_lab.py"}
LANGUAGE_VARIABLES = ("LECTURE_LANGUAGE", "JPY_SESSION_NAME")


@pytest.fixture(autouse=True)
def _english_unless_a_test_says_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LANGUAGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = item.nodeid.split("::")[0]
        callspec = getattr(item, "callspec", None)
        if group in SPLIT_BY_NOTEBOOK and callspec is not None:
            # no "]" in a group name: xdist reads the group after the last "@" only when no
            # "]" follows it, and would otherwise give each test a group of its own
            group += f"::{callspec.id.split('-')[0]}"
        elif group in SPLIT_BY_FUNCTION:
            group += f"::{getattr(item, 'originalname', item.name)}"
        item.add_marker(pytest.mark.xdist_group(group))
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="GPU-only notebook cell (%%gpu_only); no CUDA GPU here")
    for item in items:
        cell = getattr(item, "cell", None)  # nbval's notebook-cell items carry the cell
        if cell is not None and cell.get("cell_type") == "code" and is_gpu_only(cell.source):
            item.add_marker(skip)

"""The browser suite: JupyterLab, started by the README's lab command, driven in Chromium.

Every test here is marked `browser` (and `slow`), so either half of the suite runs alone:
`bash scripts/test.sh -m browser` or `bash scripts/test.sh -m "not browser"`. Without Chromium
the tests that need it report themselves skipped, saying how to install it.

One JupyterLab serves each test file (module fixtures), on a fresh working copy that holds the
student's release and, in solved/, the instructor notebooks.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.lab import CHROMIUM, chromium, running_lab

from autograder.course import assignments, instructor_notebook
from autograder.translate import translated_languages
from autograder.translate.build import release_dir


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    no_chromium = pytest.mark.skip(reason="Chromium is not installed (apt install chromium); "
                                   "scripts/test.sh installs it where apt-get is available")
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
            if CHROMIUM is None and "browser" in getattr(item, "fixturenames", ()):
                item.add_marker(no_chromium)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A working copy holding, in solved/, every instructor notebook and, in zh-CN/, the
    Chinese release; scripts/lab.sh copies in the student's release when it starts."""
    workspace = tmp_path_factory.mktemp("student") / "workspace"
    for assignment in assignments():
        (workspace / "solved" / assignment).mkdir(parents=True)
        shutil.copy(instructor_notebook(assignment),
                    workspace / "solved" / assignment / f"{assignment}.ipynb")
        for language in translated_languages():
            shutil.copytree(release_dir(language) / assignment, workspace / language / assignment)
    return workspace


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory, workspace):
    with running_lab(workspace, tmp_path_factory.mktemp("lab")) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(scratch=tmp_path_factory.mktemp("fonts")) as browser:
        yield browser


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    yield page
    page.close()

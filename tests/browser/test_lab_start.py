"""The README's lab command as a newcomer meets it: JupyterLab opens on the student's working
copy (workspace/, not the tracked notebooks/), asks nothing about Jupyter news, and a
calculator widget renders and recomputes when a slider moves, cell by cell as a student runs
them (Shift+Enter; the failing exercise cell must not stop the cells after it).

The working copy holds, before the lab starts, only the student's notebook 00 with two of its
three exercises solved; lab.sh copies in the rest of the release and must keep that one.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from support.lab import REPO, TOKEN, get_json
from support.submissions import perfect_submission, with_answer

from autograder.notebook import grade_id as grade_id_of
from autograder.notebook import read_notebook

NOTEBOOK = "00_napkin_math/00_napkin_math.ipynb"
# What JupyterLab 4 asks on a first start unless its fetchNews setting says otherwise
# (@jupyterlab/apputils-extension:announcements).
NEWS_PROMPT = "Would you like to get notified about official Jupyter news?"


def _has_outputs(notebook: Path) -> bool:
    cells = json.loads(notebook.read_text())["cells"]
    return any(c.get("outputs") for c in cells if c["cell_type"] == "code")


def _students_notebook() -> nbformat.NotebookNode:
    """Notebook 00 with exercises 1 and 2 solved (the calculator runs the student's functions)
    and exercise 3 as released, so its test cell fails."""
    released = read_notebook(REPO / "notebooks" / NOTEBOOK)
    unsolved = next(c.source for c in released.cells
                    if grade_id_of(c) == "max_trainable_params")
    return with_answer(perfect_submission(Path(NOTEBOOK).stem), "max_trainable_params",
                       unsolved)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    workspace = tmp_path_factory.mktemp("student") / "workspace"
    (workspace / NOTEBOOK).parent.mkdir(parents=True)
    nbformat.write(_students_notebook(), workspace / NOTEBOOK)
    return workspace


def test_lab_opens_on_the_working_copy_without_a_news_prompt(lab_url, page, workspace):
    released = sorted(p.relative_to(REPO / "notebooks") for p in REPO.glob("notebooks/*/*.ipynb"))
    assert sorted(p.relative_to(workspace) for p in workspace.glob("*/*.ipynb")) == released
    theirs = json.loads(nbformat.writes(_students_notebook()))
    assert json.loads((workspace / NOTEBOOK).read_text()) == theirs  # lab.sh kept their work
    page.goto(f"{lab_url}/lab?token={TOKEN}")
    listing = page.locator(".jp-DirListing-content")
    listing.get_by_text("00_napkin_math").wait_for(timeout=60_000)
    listing.get_by_text("01_tensors_and_memory").wait_for(timeout=10_000)
    page.wait_for_timeout(5_000)  # with news on, the prompt shows with the file listing
    assert page.get_by_text(NEWS_PROMPT).count() == 0, (
        "JupyterLab asks about Jupyter news: scripts/lab-config/ did not turn news off")
    settings = get_json(f"{lab_url}/lab/api/settings/@jupyterlab/apputils-extension:"
                        f"notification?token={TOKEN}")["schema"]["properties"]
    assert settings["fetchNews"]["default"] == "false"
    assert settings["checkForUpdates"]["default"] is False
    with urllib.request.urlopen(f"{lab_url}/lab?token={TOKEN}", timeout=10) as response:
        page_config = re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>',
                                response.read().decode(), re.S).group(1)
    assert json.loads(page_config)["news"] == {"disabled": True}  # LabApp.news_url is None


def test_the_news_prompt_text_is_jupyterlabs():
    """The prompt is looked for by its text; were the text to change, the check above would
    pass whatever the settings."""
    from jupyterlab.commands import get_app_dir

    static = Path(get_app_dir()) / "static"
    assert any(NEWS_PROMPT in js.read_text(errors="replace") for js in static.glob("*.js"))


def test_calculator_widget_renders_and_updates(lab_url, page, workspace, tmp_path):
    released = (REPO / "notebooks" / NOTEBOOK).read_bytes()
    cells = json.loads((workspace / NOTEBOOK).read_text())["cells"]
    widget_cell = next(i for i, c in enumerate(cells) if "calculator(" in "".join(c["source"]))
    page.goto(f"{lab_url}/lab/tree/{NOTEBOOK}?token={TOKEN}")
    page.locator(".jp-Notebook .jp-Cell").first.click(timeout=60_000)
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(timeout=60_000)
    page.keyboard.press("Escape")  # command mode: Shift+Enter runs the cell and moves on
    for _ in range(widget_cell + 1):
        cell = page.locator(".jp-Notebook .jp-Cell.jp-mod-active").element_handle()
        is_code = "jp-CodeCell" in (cell.get_attribute("class") or "")
        page.keyboard.press("Shift+Enter")
        if is_code:  # wait for it to finish before the next one, as a student would
            page.wait_for_function(
                "cell => /\\[\\d+\\]/.test(cell.querySelector('.jp-InputPrompt').textContent)",
                arg=cell, timeout=60_000)
    slider = page.locator(".jp-OutputArea .widget-slider").first
    slider.wait_for(timeout=60_000)
    result = page.locator(".jp-OutputArea .widget-html-content").last
    before = result.inner_text()
    assert "days" in before.lower()
    slider.locator(".ui-slider-handle, .noUi-handle").first.focus()
    page.keyboard.press("End")
    page.wait_for_function(
        "([el, text]) => el.innerText !== text", arg=[result.element_handle(), before],
        timeout=30_000)
    # Saving writes the outputs into the working copy; the tracked release stays as it was.
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.keyboard.press("Control+s")
    deadline = time.time() + 30
    while not _has_outputs(workspace / NOTEBOOK):
        assert time.time() < deadline, "the notebook was not saved into the working copy"
        time.sleep(0.5)
    assert (REPO / "notebooks" / NOTEBOOK).read_bytes() == released

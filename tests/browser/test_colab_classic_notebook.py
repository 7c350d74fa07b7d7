"""The calculators in the classic Notebook UI of Google Colab's stack, in Chromium.

The Colab twin (scripts/colab_twin.sh: Notebook 6.5.7, ipywidgets 7.7.1, ipykernel 6.17.1,
IPython 7.34.0, a stand-in google.colab) serves a solved student notebook with calculators,
setup cell included; Cell → Run All runs it. Then: no cell failed, every widget rendered (no
"Error displaying widget"), each calculator is named and labelled for a screen reader as in
JupyterLab (widget_checks.check_accessible_names), answers its change with the value worked out
by hand (widget_checks.WIDGET_CHECKS), and a slider moved with the keyboard changes its result.

A screenshot of the page goes to test-artifacts/browser/ after each run; with
COLAB_SCREENSHOT=1 the test also writes the README's docs/images/colab-classic-notebook.png:

    COLAB_SCREENSHOT=1 .venv/bin/python -m pytest -p no:randomly \\
        tests/browser/test_colab_classic_notebook.py
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil

import nbformat
import pytest
from support.colab_twin import REPO, course_tarball, scratch_twin, twin_env, twin_python
from support.lab import ARTIFACTS, TOKEN, free_port, running_server
from support.submissions import perfect_submission
from widget_checks import WIDGET_CHECKS, check_accessible_names, widgets_of

from autograder.course import RELEASE

pytestmark = pytest.mark.xdist_group("colab_twin")  # after the twin's other tests, same worker

ASSIGNMENT = "00_napkin_math"  # two calculators: log sliders, a slider, dropdowns
SHOWN = "#notebook"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
SCREENSHOT = REPO / "docs" / "images" / "colab-classic-notebook.png"
RUN_SECONDS = 300

_CODE_CELLS = "Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code')"
_ALL_RAN = f"() => {_CODE_CELLS}.every(c => typeof c.input_prompt_number === 'number')"
_WIDGET_OUTPUTS = (f"() => {_CODE_CELLS}.flatMap(c => c.output_area.outputs)"
                   f".filter(o => o.data && o.data['{WIDGET_MIME}']).length")


@pytest.fixture(scope="module")
def classic_url(tmp_path_factory):
    """The twin's `jupyter notebook` (classic, 6.5.7) on 127.0.0.1 with a token, serving the
    solved notebook; its setup cell fetches the course from a local tarball."""
    scratch = tmp_path_factory.mktemp("classic")
    workspace = scratch / "workspace"
    shutil.copytree(RELEASE / ASSIGNMENT, workspace / ASSIGNMENT)
    nbformat.write(perfect_submission(ASSIGNMENT),
                   workspace / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    tarball = course_tarball(scratch)
    with scratch_twin(twin_python()) as python:
        port = free_port()
        env = twin_env(python, scratch / "user", CS336_COURSE_SOURCE=str(tarball),
                       CS336_COURSE_HOME=str(scratch / "content" / "cs336-lecture2"))
        command = [str(python), "-m", "notebook", "--no-browser", f"--port={port}",
                   "--ip=127.0.0.1", f"--NotebookApp.token={TOKEN}",
                   f"--notebook-dir={workspace}", "--allow-root",  # Colab runs as root too
                   "--NotebookApp.show_banner=False"]  # no "update to Notebook 7" nag
        with running_server(command, workspace, env, scratch, port) as url:
            yield url


def test_calculators_work_in_the_classic_notebook(page, classic_url):
    page.set_viewport_size({"width": 1100, "height": 900})
    page.goto(f"{classic_url}/notebooks/{ASSIGNMENT}/{ASSIGNMENT}.ipynb?token={TOKEN}")
    page.wait_for_function("() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel"
                           " && Jupyter.notebook.kernel.is_connected()", timeout=60_000)
    try:
        page.locator("#celllink").click()  # Cell → Run All
        page.locator("#run_all_cells").click()
        page.wait_for_function(_ALL_RAN, timeout=RUN_SECONDS * 1000, polling=500)
        errors = page.locator(f"{SHOWN} .output_error").all_inner_texts()
        assert not errors, f"cells failed in the classic notebook: {errors[:3]}"
        setup = page.locator(f"{SHOWN} .output_text").first.inner_text()
        assert setup.startswith("Colab setup: "), f"the setup cell printed {setup!r}"

        expected = page.evaluate(_WIDGET_OUTPUTS)
        assert expected == len(widgets_of(ASSIGNMENT)) >= 2
        views = page.locator(f"{SHOWN} .jupyter-widgets-view .lu-calculator")
        page.wait_for_function(
            f"n => document.querySelectorAll('{SHOWN} .jupyter-widgets-view "
            ".lu-calculator').length >= n", arg=expected, timeout=60_000)
        broken = page.get_by_text(re.compile("Error displaying widget|model not found"))
        assert broken.count() == 0, f"widgets failed: {broken.all_inner_texts()}"
        assert views.count() == expected

        for title in widgets_of(ASSIGNMENT):
            _check_calculator(page, title)
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "colab-classic-notebook.png"))


def _calculator(page, title: str):
    return page.locator(f"{SHOWN} .lu-calculator").filter(has=page.locator(
        ".widget-html-content", has_text=re.compile("^" + re.escape(title) + "$"))).first


def _changed(page, result, act) -> str:
    before = result.text_content()
    act()
    page.wait_for_function("([el, text]) => el.textContent !== text",
                           arg=[result.element_handle(), before], timeout=60_000)
    return result.text_content()


def _check_calculator(page, title: str) -> None:
    box = _calculator(page, title)
    box.scroll_into_view_if_needed()
    check_accessible_names(page, SHOWN, box, f"classic {ASSIGNMENT}", title)
    result = box.locator(".widget-html-content").last

    # the change worked out by hand (at the controls' first values), then a slider moved with
    # the keyboard (jQuery UI's handle, in ipywidgets 7) changes the result again
    act, expected = WIDGET_CHECKS[title]
    shown = _changed(page, result, lambda: act(box))
    flat = re.sub(r"\s+", "", shown)
    missing = [text for text in expected if re.sub(r"\s+", "", text) not in flat]
    assert not missing, f"{title}: {missing} not in what it shows:\n{shown}"
    if os.environ.get("COLAB_SCREENSHOT") and title == widgets_of(ASSIGNMENT)[0]:
        page.evaluate("el => el.closest('.cell').scrollIntoView({block: 'end'})",
                      box.element_handle())
        page.mouse.move(0, 0)
        _write_small_png(page.screenshot(animations="disabled"))

    slider = box.locator(".widget-slider").first
    readout = slider.locator(".widget-readout").text_content()
    slider.locator(".ui-slider-handle").focus()
    after = _changed(page, result, lambda: page.keyboard.press("Home"))
    assert slider.locator(".widget-readout").text_content() != readout, (
        f"{title}: the slider's readout did not move")
    assert after.strip(), f"{title}: the result went blank after the slider moved"



def _write_small_png(raw: bytes) -> None:
    """docs/images/colab-classic-notebook.png, small, as scripts/readme_screenshots.py
    writes the README's other screenshots."""
    spec = importlib.util.spec_from_file_location(
        "readme_screenshots", REPO / "scripts" / "readme_screenshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.small_png(raw, SCREENSHOT)

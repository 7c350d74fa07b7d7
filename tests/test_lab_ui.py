"""The README's lab command, in a real browser: JupyterLab opens on the student's working
copy (workspace/, not the tracked notebooks/), greets a newcomer with no prompt about Jupyter
news, a calculator widget renders and recomputes when a slider moves, and every widget of
every solved notebook answers a change with the right value.

Runs `bash scripts/lab.sh` (the command a newcomer types) on a free port, with the working
copy and JupyterLab's user settings in fresh temporary folders (a first start; the working
copy holds only the student's notebook 00, two of its three exercises solved), then drives
that notebook in headless Chromium the way a student would: Shift+Enter cell by cell (the
failing exercise cell must not stop the cells after it from running).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from support.submissions import perfect_submission, with_answer

from autograder.notebook import grade_id as grade_id_of
from autograder.notebook import read_notebook

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NOTEBOOK = "00_napkin_math/00_napkin_math.ipynb"
TOKEN = "ui-test-token"
# What JupyterLab 4 asks on a first start unless its fetchNews setting says otherwise
# (@jupyterlab/apputils-extension:announcements).
NEWS_PROMPT = "Would you like to get notified about official Jupyter news?"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt install "
                       "chromium); scripts/test.sh installs it where apt-get is available"),
]


def _get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def _has_outputs(notebook: Path) -> bool:
    cells = json.loads(notebook.read_text())["cells"]
    return any(c.get("outputs") for c in cells if c["cell_type"] == "code")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _students_notebook() -> nbformat.NotebookNode:
    """Notebook 00 with exercises 1 and 2 solved (the calculator runs the student's functions)
    and exercise 3 as released, so its test cell fails."""
    released = read_notebook(REPO / "notebooks" / NOTEBOOK)
    unsolved = next(c.source for c in released.cells
                    if grade_id_of(c) == "max_trainable_params")
    return with_answer(perfect_submission(Path(NOTEBOOK).stem), "max_trainable_params",
                       unsolved)


# Widgets are found in the instructor notebooks' stored outputs: each is a VBox whose first
# child is its bold title. Each title needs a check below (what to change, and the value the
# result must then show, worked out by hand); a widget added without one fails the suite.
WIDGET_TITLE = re.compile(r"HTML\(value='<b>(.*?)</b>'\)")


def _widgets() -> list[tuple[str, str]]:
    """(assignment, title) of every widget the instructor notebooks show."""
    from autograder.course import assignments, instructor_notebook

    found = []
    for assignment in assignments():
        for cell in read_notebook(instructor_notebook(assignment)).cells:
            for output in cell.get("outputs", []):
                text = output.get("data", {}).get("text/plain", "")
                found += [(assignment, title) for title in WIDGET_TITLE.findall(text)]
    return found


def _select(label: str, option: str) -> Callable:
    return lambda box: box.locator(".widget-dropdown", has_text=label).locator(
        "select").select_option(label=option)


def _type(label: str, text: str) -> Callable:
    def act(box):
        field = box.locator(".widget-text", has_text=label).locator("input")
        field.fill(text)
        field.press("Enter")
    return act


def _slide_to_max(label: str) -> Callable:
    def act(box):
        box.locator(".widget-slider", has_text=label).locator(
            ".ui-slider-handle, .noUi-handle").first.focus()
        box.page.keyboard.press("End")
    return act


WIDGET_CHECKS: dict[str, tuple[Callable, list[str]]] = {
    # 6·70e9·15e12 FLOPs on 1024 H100s at fp32's 67e12 FLOP/s and MFU 0.5: 2,125.6 days
    "Training-time calculator": (_select("precision", "fp32"), ["2,125.6 days"]),
    # 8 × 80 GB holding 2 bytes per parameter: 320 billion parameters
    "Largest-model calculator": (
        _select("recipe", "inference, bf16 weights only (2 B)"), ["320.0B parameters"]),
    # 49152 × 12288 elements of 2 bytes
    "Bytes of one 2-D tensor": (_select("dtype", "bfloat16"), ["1,207,959,552 bytes"]),
    # x.permute(1, 0)[1, 2] is x[2, 1]: offset 2·4 + 1 = 9 in the 4×4 storage
    "Stride explorer: x = torch.arange(n).view(shape)": (
        _type("permute", "1, 0"), ["x.permute(1, 0)[1, 2]", "storage_offset (elements)9"]),
    # 65520 is half-way between fp16's 65504 and 65536 (past its max): inf; bf16 keeps 65536
    "A number in every dtype": (_type("number", "65520"), ["bf16 65536.0", "fp16 inf"]),
    # m at the slider's maximum: 2 · 65536 · 4096 · 4096 FLOPs
    "Matmul on paper": (_slide_to_max("m"), ["2,199,023,255,552"]),
    # c at its maximum, 2: weights of std 2/sqrt(128) = 0.1768; each layer ×0.9866·2 = 1.973
    "Activation std per layer for weights of std c/sqrt(d)": (
        _slide_to_max("init scale c"), ["std 2/sqrt(128) = 0.1768", "0.9866 × 2 = 1.973"]),
    # ZeRO stage 0 keeps everything on every GPU: 7e9 × 16 B = 112 GB; 80 GB / 16 B = 5e9
    "Training memory per GPU (parameters + gradients + optimizer state)": (
        _select("ZeRO stage", "0"), ["112.0 GB", "5.0 B parameters"]),
}
WIDGETS = _widgets()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A working copy that holds, before the lab starts, the student's notebook 00 and, in
    solved/, the instructor notebooks that show widgets; lab.sh copies in the rest from the
    release."""
    from autograder.course import instructor_notebook

    workspace = tmp_path_factory.mktemp("student") / "workspace"
    (workspace / NOTEBOOK).parent.mkdir(parents=True)
    nbformat.write(_students_notebook(), workspace / NOTEBOOK)
    for assignment in {a for a, _ in WIDGETS}:
        (workspace / "solved" / assignment).mkdir(parents=True)
        shutil.copy(instructor_notebook(assignment),
                    workspace / "solved" / assignment / f"{assignment}.ipynb")
    return workspace


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory, workspace):
    port = _free_port()
    log = tmp_path_factory.mktemp("lab") / "lab.log"
    # A newcomer's first start: a fresh working copy (not this checkout's workspace/), no
    # layout restored, no settings chosen before (a "No" to the news prompt in ~/.jupyter
    # would hide it).
    env = dict(os.environ, LAB_WORKSPACE=str(workspace),
               JUPYTER_RUNTIME_DIR=str(log.parent / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(log.parent / "workspaces"),
               JUPYTERLAB_SETTINGS_DIR=str(log.parent / "user-settings"))
    with log.open("w") as out:
        server = subprocess.Popen(
            ["bash", "scripts/lab.sh", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
             f"--IdentityProvider.token={TOKEN}"],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )
        yield chromium
        chromium.close()


def test_lab_opens_on_the_working_copy_without_a_news_prompt(lab_url, browser, workspace):
    released = sorted(p.relative_to(REPO / "notebooks") for p in REPO.glob("notebooks/*/*.ipynb"))
    assert sorted(p.relative_to(workspace) for p in workspace.glob("*/*.ipynb")) == released
    theirs = json.loads(nbformat.writes(_students_notebook()))
    assert json.loads((workspace / NOTEBOOK).read_text()) == theirs  # lab.sh kept their work
    page = browser.new_page()
    page.goto(f"{lab_url}/lab?token={TOKEN}")
    listing = page.locator(".jp-DirListing-content")
    listing.get_by_text("00_napkin_math").wait_for(timeout=60_000)
    listing.get_by_text("01_tensors_and_memory").wait_for(timeout=10_000)
    page.wait_for_timeout(5_000)  # with news on, the prompt shows with the file listing
    assert page.get_by_text(NEWS_PROMPT).count() == 0, (
        "JupyterLab asks about Jupyter news: scripts/lab-config/ did not turn news off")
    page.close()
    settings = _get_json(f"{lab_url}/lab/api/settings/@jupyterlab/apputils-extension:"
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


def test_calculator_widget_renders_and_updates(lab_url, browser, workspace, tmp_path):
    released = (REPO / "notebooks" / NOTEBOOK).read_bytes()
    cells = json.loads((workspace / NOTEBOOK).read_text())["cells"]
    widget_cell = next(i for i, c in enumerate(cells) if "calculator(" in "".join(c["source"]))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
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
    page.screenshot(path=str(tmp_path / "calculator.png"), full_page=False)
    # Saving writes the outputs into the working copy; the tracked release stays as it was.
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.keyboard.press("Control+s")
    deadline = time.time() + 30
    while not _has_outputs(workspace / NOTEBOOK):
        assert time.time() < deadline, "the notebook was not saved into the working copy"
        time.sleep(0.5)
    assert (REPO / "notebooks" / NOTEBOOK).read_bytes() == released
    page.close()


def test_every_widget_has_a_check():
    assert len(WIDGETS) >= 6
    missing = [title for _, title in WIDGETS if title not in WIDGET_CHECKS]
    assert not missing, f"widgets with no browser check in WIDGET_CHECKS: {missing}"


SHOWN = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook in front (others stay open)


def _run_all(page, url: str) -> None:
    page.goto(url)
    page.locator(f"{SHOWN} .jp-Cell").first.click(timeout=60_000)
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
        timeout=60_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()


@pytest.mark.parametrize(("assignment", "title"), WIDGETS, ids=[t for _, t in WIDGETS])
def test_widget_answers_a_change_with_the_right_value(lab_url, browser, workspace, tmp_path,
                                                      assignment, title):
    act, expected = WIDGET_CHECKS[title]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        _check_widget(page, lab_url, assignment, title, act, expected)
    finally:  # what the page showed, for a person to look at (kept with pytest's tmp files)
        page.screenshot(path=str(tmp_path / f"{assignment}.png"), full_page=True)
        page.close()


ERROR_OUTPUT = f"{SHOWN} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"


def _wait_for_output(page, box, assignment: str, title: str, timeout_s: float = 300) -> None:
    """Waits until the widget is in the page (attached, not necessarily painted: JupyterLab's
    default windowing skips painting cells out of view). The cells before it run first, which
    is slow on a busy CPU; a cell that fails stops Run All, so a traceback ends the wait."""
    deadline = time.time() + timeout_s
    while box.count() == 0:
        errors = [e for e in page.locator(ERROR_OUTPUT).all_text_contents() if "Error" in e]
        assert not errors, f"{assignment}: a cell failed before widget {title!r}:\n{errors[0]}"
        running = page.locator(f"{SHOWN} .jp-InputPrompt", has_text="[*]").count()
        assert time.time() < deadline, (
            f"{assignment}: widget {title!r} not shown after {timeout_s:.0f} s "
            f"({running} cells still running or queued)")
        page.wait_for_timeout(1_000)


def _check_widget(page, lab_url: str, assignment: str, title: str, act: Callable,
                  expected: list[str]) -> None:
    # reset: a fresh layout with only this notebook open, whatever earlier tests left open
    _run_all(page, f"{lab_url}/lab/tree/solved/{assignment}/{assignment}.ipynb"
                   f"?token={TOKEN}&reset")
    box = page.locator(f"{SHOWN} .widget-vbox").filter(
        has=page.locator(".widget-html-content", has_text=re.compile("^" + re.escape(title) + "$")))
    _wait_for_output(page, box, assignment, title)
    box = box.first
    box.scroll_into_view_if_needed()
    # textContent, not innerText: JupyterLab skips rendering cells scrolled out of view, and
    # innerText of an unrendered element is empty
    result = box.locator(".widget-html-content").last
    page.wait_for_function("el => el.textContent.trim().length > 0",
                           arg=result.element_handle(), timeout=60_000)
    before = result.text_content()
    act(box)
    page.wait_for_function("([el, text]) => el.textContent !== text",
                           arg=[result.element_handle(), before], timeout=60_000)
    after = result.text_content()
    flat = re.sub(r"\s+", "", after)
    missing = [text for text in expected if re.sub(r"\s+", "", text) not in flat]
    assert not missing, f"{assignment}, widget {title!r}: {missing} not in what it shows:\n{after}"

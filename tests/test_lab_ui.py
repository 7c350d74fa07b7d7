"""The README's lab command, in a real browser: JupyterLab opens on notebooks/ and a
calculator widget renders and recomputes when a slider moves.

Runs `bash scripts/lab.sh` (the command a newcomer types) on a free port, then drives the
student notebook in headless Chromium the way a student would: Shift+Enter cell by cell
(a failing exercise cell must not stop the cells after it from running).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NOTEBOOK = "00_napkin_math/00_napkin_math.ipynb"
TOKEN = "ui-test-token"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt install "
                       "chromium); scripts/test.sh installs it where apt-get is available"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("lab") / "lab.log"
    # Fresh runtime and workspace folders: a newcomer's first start, with no layout restored.
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(log.parent / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(log.parent / "workspaces"))
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


def test_lab_opens_on_the_student_notebooks(lab_url, browser):
    page = browser.new_page()
    page.goto(f"{lab_url}/lab?token={TOKEN}")
    listing = page.locator(".jp-DirListing-content")
    listing.get_by_text("00_napkin_math").wait_for(timeout=60_000)
    listing.get_by_text("01_tensors_and_memory").wait_for(timeout=10_000)
    page.close()


def test_calculator_widget_renders_and_updates(lab_url, browser, tmp_path):
    cells = json.loads((REPO / "notebooks" / NOTEBOOK).read_text())["cells"]
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
    page.close()

"""JupyterLab in a real browser, for the browser suite (tests/browser/).

`running_lab` starts the README's lab command (`bash scripts/lab.sh`) on a free port with a
fresh working copy and fresh user settings, `chromium` launches Debian's Chromium through
Playwright, and the page helpers drive a notebook the way a person does (Run menu, Run All
Cells; File, Save) and then read back what ran from the notebook JupyterLab saved: outputs
are exact there, while the page says what actually rendered.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TOKEN = "ui-test-token"
SHOWN = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook in front (others stay open)
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# Screenshots for a person to look at after a run (git-ignored, never compared).
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", REPO / "test-artifacts" / "browser"))
RUN_SECONDS = 300  # a notebook's cells, run on a busy 2-core machine
STOPPED_SECONDS = 10  # kernel idle, nothing queued, cells not run: Run All has stopped


def shut_down_kernels(base: str) -> None:
    """Stop every kernel of the server (each notebook opened starts one; idle ones still take
    memory and wake up now and then)."""
    for kernel in get_json(f"{base}/api/kernels?token={TOKEN}"):
        request = urllib.request.Request(f"{base}/api/kernels/{kernel['id']}", method="DELETE",
                                         headers={"Authorization": f"token {TOKEN}"})
        with urllib.request.urlopen(request, timeout=30):
            pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str) -> dict | list:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


@contextmanager
def running_server(command: list[str], cwd: Path, env: dict[str, str], scratch: Path,
                   port: int) -> Iterator[str]:
    """A Jupyter server started by `command` (which serves on `port` with TOKEN), with its
    runtime files and user settings under `scratch` (a first start: no layout restored, no
    settings chosen before); yields its URL and stops it, with all its kernels, at the end."""
    log = scratch / "server.log"
    env = dict(env, JUPYTER_RUNTIME_DIR=str(scratch / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"),
               JUPYTERLAB_SETTINGS_DIR=str(scratch / "user-settings"))
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=cwd, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"{command[:3]} did not start:\n"
                                       f"{log.read_text()[-3000:]}") from None
                time.sleep(0.5)
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):  # a server that died at start
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def server_options(port: int) -> list[str]:
    return ["--no-browser", f"--port={port}", "--ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}"]


@contextmanager
def running_lab(workspace: Path, scratch: Path) -> Iterator[str]:
    """The student's lab: `bash scripts/lab.sh` (the README's command) serving `workspace`."""
    port = free_port()
    with running_server(["bash", "scripts/lab.sh", *server_options(port)], REPO,
                        dict(os.environ, LAB_WORKSPACE=str(workspace)), scratch, port) as url:
        yield url


def font_config(scratch: Path) -> dict[str, str]:
    """Environment for Chromium that adds the course's Chinese font (installed by setup into
    .venv, for the plots) to the system's fonts, so Chinese notebooks render without tofu on a
    machine that has no CJK font of its own."""
    from lecture_utils.plotting import packaged_cjk_font

    font = packaged_cjk_font()
    if font is None:
        return {}
    scratch.mkdir(parents=True, exist_ok=True)
    config = scratch / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{Path(font).parent}</dir>\n"
        f"  <cachedir>{scratch / 'cache'}</cachedir>\n</fontconfig>\n", encoding="utf-8")
    return {"FONTCONFIG_FILE": str(config)}


@contextmanager
def chromium(*extra_args: str, scratch: Path | None = None) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    fonts = font_config(scratch) if scratch is not None else {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            env={**os.environ, **fonts},
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", *extra_args],
        )
        try:
            yield browser
        finally:
            browser.close()


def open_notebook(page, base: str, path: str) -> None:
    """Open `path` (relative to the lab's root) alone in a fresh layout, kernel ready."""
    page.goto(f"{base}/lab/tree/{path}?token={TOKEN}&reset")
    page.locator(f"{SHOWN} .jp-Cell").first.click(timeout=60_000)
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
        timeout=60_000)


def menu(page, top: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


_PROMPTS = f"""() => [...document.querySelectorAll(
    "{SHOWN} .jp-CodeCell .jp-InputPrompt")].map(p => p.textContent.trim())"""


def _dialog(page) -> str:
    """The text of a JupyterLab dialog in front ("Kernel Restarting"...), closed; "" if none."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count() == 0:
        return ""
    text = " ".join(dialog.first.inner_text().split())
    page.keyboard.press("Escape")
    return text


def run_all(page, name: str, timeout_s: float = RUN_SECONDS) -> None:
    """Edit → Clear Outputs of All Cells, Run → Run All Cells, then wait until every code
    cell has run, or the kernel has sat idle with no cell running or queued for
    STOPPED_SECONDS (a failing cell that is not tagged to go on stops the run there: the
    caller's report says which cells never ran).

    Outputs are cleared first so that a numbered prompt can only come from this run (a
    notebook saved with its outputs looks finished before the click takes effect). If nothing
    ran at all (the click was lost, or the kernel died and dropped the queue, as seen once on
    a loaded machine), Run All is clicked once more; a second miss fails, with any dialog
    JupyterLab showed."""
    menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(f"() => ({_PROMPTS})().every(p => !/\\d/.test(p))", timeout=30_000)
    menu(page, "Run", "Run All Cells")
    deadline = time.time() + timeout_s
    clicked_again = False
    idle_since = None
    seen = ""
    while True:
        prompts = page.evaluate(_PROMPTS)
        idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count() > 0
        busy = not idle or any("*" in p for p in prompts)
        numbered = [bool(re.fullmatch(r"\[\d+\]:?", p)) for p in prompts]
        if not busy and all(numbered):
            return
        idle_since = None if busy else (idle_since or time.time())
        if idle_since and time.time() - idle_since > STOPPED_SECONDS:
            if any(numbered):
                return
            seen = _dialog(page) or seen
            assert not clicked_again, (
                f"{name}: Run All Cells, clicked twice, ran nothing"
                + (f"; JupyterLab said: {seen}" if seen else ""))
            menu(page, "Run", "Run All Cells")
            clicked_again, idle_since = True, None
        if time.time() > deadline:
            waiting = sum("*" in p for p in prompts)
            raise AssertionError(f"{name}: still running after {timeout_s:.0f} s, "
                                 f"{waiting} of {len(prompts)} code cells running or queued")
        page.wait_for_timeout(500)


def widget_box(page, title: str):
    """The calculator (a VBox) whose bold title is exactly ``title``, in the notebook in front;
    a locator that may match nothing."""
    return page.locator(f"{SHOWN} .widget-vbox").filter(has=page.locator(
        ".widget-html-content", has_text=re.compile("^" + re.escape(title) + "$")))


def save(page, on_disk: Path) -> nbformat.NotebookNode:
    """File → Save Notebook; returns the notebook as JupyterLab wrote it."""
    before = on_disk.stat().st_mtime_ns
    menu(page, "File", "Save Notebook")
    deadline = time.time() + 60
    while on_disk.stat().st_mtime_ns == before:
        assert time.time() < deadline, f"{on_disk}: JupyterLab did not save it"
        time.sleep(0.25)
    # The server truncates the file, then writes it (no rename): read once it is whole and
    # has stopped changing.
    while True:
        stamp = on_disk.stat().st_mtime_ns
        time.sleep(0.5)
        try:
            notebook = nbformat.read(on_disk, as_version=4)
        except ValueError:  # NotJSONError too
            notebook = None
        if notebook is not None and on_disk.stat().st_mtime_ns == stamp:
            return notebook
        assert time.time() < deadline, f"{on_disk}: JupyterLab's save never finished"


# JupyterLab 4 (rendermime's handleDefaults) sets alt="Image" on every <img> of rendered HTML
# or Markdown that has no alt: what a screen reader then reads says nothing about the plot.
PLACEHOLDER_ALT = "Image"


@dataclass
class Rendered:
    """What the page shows for the notebook in front."""

    images: int = 0           # <img> elements in outputs (image or HTML outputs), decoded
    broken_images: int = 0    # ... that did not decode
    widgets: int = 0          # widget outputs that rendered a widget
    widget_errors: list[str] = field(default_factory=list)
    plot_alt: list[str] = field(default_factory=list)  # alt text of each output image
    plot_cells: list[int] = field(default_factory=list)  # ... and the index of its cell

    def images_without_alt(self) -> list[int]:
        """Cell index of each output image with no alt text of its own: empty, or the
        placeholder JupyterLab puts on an <img> of rendered HTML that has none."""
        return [cell for cell, alt in zip(self.plot_cells, self.plot_alt)
                if alt.strip() in ("", PLACEHOLDER_ALT)]


_RENDERED = f"""() => {{
    const area = document.querySelector("{SHOWN}");
    // every image an output shows: an image/png output, or an <img> inside an HTML output
    const imgs = [...area.querySelectorAll(".jp-OutputArea-output img")];
    const cells = [...area.querySelectorAll(".jp-Cell")];
    // a widget output: an output element with a widget view (a .jupyter-widgets) as a child
    const widgets = [...area.querySelectorAll(".jp-OutputArea-output")].filter(
        o => [...o.children].some(c => c.classList.contains("jupyter-widgets")));
    const failed = [...area.querySelectorAll(".jp-OutputArea-output")].filter(
        o => /Error displaying widget|Loading widget[.][.][.]/.test(o.textContent));
    return {{
        images: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
        broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).length,
        alt: imgs.map(i => i.alt || ""),
        cells: imgs.map(i => cells.indexOf(i.closest(".jp-Cell"))),
        widgets: widgets.length,
        errors: failed.map(o => o.textContent.slice(0, 200)),
    }};
}}"""


def rendered(page) -> Rendered:
    seen = page.evaluate(_RENDERED)
    return Rendered(seen["images"], seen["broken"], seen["widgets"], seen["errors"], seen["alt"],
                    seen["cells"])


def screenshot(page, name: str) -> list[Path]:
    """The whole notebook in one or more tall screenshots (the notebook scrolls inside the
    page, so a full-page shot of the window would show one screen of it)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    scroller = page.locator(f"{SHOWN} .jp-WindowedPanel-outer").first
    height = scroller.evaluate("el => el.scrollHeight")
    width = 1280
    step = 12_000
    shots = []
    original = page.viewport_size
    try:
        page.set_viewport_size({"width": width, "height": min(height, step) + 200})
        for i, top in enumerate(range(0, max(height, 1), step)):
            scroller.evaluate("(el, top) => el.scrollTo(0, top)", top)
            page.wait_for_timeout(500)
            path = ARTIFACTS / f"{name}-{i + 1}.jpg"  # JPEG: quicker to encode than PNG
            page.screenshot(path=str(path), type="jpeg", quality=70)
            shots.append(path)
    finally:
        page.set_viewport_size(original)
    return shots


def code_cells(notebook: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode]]:
    return [(i, c) for i, c in enumerate(notebook.cells) if c.cell_type == "code"]


def errors(notebook: nbformat.NotebookNode) -> list[tuple[int, str, str]]:
    """(cell index, exception name, its message's first line) of every error output."""
    return [(i, o.ename, (o.evalue or "").splitlines()[0] if o.evalue else "")
            for i, c in code_cells(notebook) for o in c.outputs if o.output_type == "error"]


def outputs_with(notebook: nbformat.NotebookNode, mime: str) -> int:
    return sum(mime in o.get("data", {}) for _, c in code_cells(notebook) for o in c.outputs)


def grade_id(cell: nbformat.NotebookNode) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


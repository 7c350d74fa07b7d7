"""Screenshots for the README: what a student sees in JupyterLab (a calculator widget, a plot).

    .venv/bin/python scripts/readme_screenshots.py

Starts the lab the way the browser suite does (tests/support/lab.py: `bash scripts/lab.sh` on a
free port, Debian's Chromium through Playwright), opens the solved 00_napkin_math, runs all its
cells, changes the training-time calculator's precision to fp8, and saves two cropped element
screenshots to docs/images/ as palette PNGs, each under MAX_BYTES (downscaled if needed).
Needs the dev set-up (`bash scripts/setup.sh`) and Chromium (`apt install chromium`).
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from PIL import Image  # noqa: E402
from support.lab import (  # noqa: E402
    SHOWN,
    chromium,
    open_notebook,
    run_all,
    running_lab,
    widget_box,
)

from autograder.course import instructor_notebook  # noqa: E402

OUT = REPO / "docs" / "images"
MAX_BYTES = 150_000
ASSIGNMENT = "00_napkin_math"
WIDGET_TITLE = "Training-time calculator"
SHOTS = {  # file name → what it shows (the README's alt text says the same)
    "widget": "napkin-math-calculator.png",
    "plot": "napkin-math-plot.png",
}


def small_png(raw: bytes, path: Path, max_bytes: int = MAX_BYTES) -> int:
    """Save a screenshot as a 256-colour PNG, halving its scale until it fits `max_bytes`;
    returns the bytes written."""
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    while True:
        buffer = io.BytesIO()
        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
                       ).save(buffer, format="PNG", optimize=True)
        if buffer.tell() <= max_bytes or image.width < 200:
            break
        image = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.LANCZOS)
    path.write_bytes(buffer.getvalue())
    return buffer.tell()


def take(page) -> dict[str, bytes]:
    box = widget_box(page, WIDGET_TITLE).first
    box.scroll_into_view_if_needed()
    result = box.locator(".widget-html-content").last
    before = result.text_content()
    box.locator(".widget-dropdown", has_text="precision").locator("select").select_option(
        label="fp8")
    page.wait_for_function("([el, text]) => el.textContent !== text",
                           arg=[result.element_handle(), before], timeout=60_000)
    page.mouse.move(0, 0)  # no hover highlight in the shot
    widget = box.screenshot(animations="disabled")
    plot = page.locator(f"{SHOWN} .jp-OutputArea-output figure img").first
    plot.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=plot.element_handle(), timeout=30_000)
    return {"widget": widget, "plot": plot.screenshot(animations="disabled")}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workspace, scratch = Path(tmp) / "workspace", Path(tmp) / "lab"
        solved = workspace / "solved" / ASSIGNMENT
        solved.mkdir(parents=True)
        scratch.mkdir()
        shutil.copy(instructor_notebook(ASSIGNMENT), solved / f"{ASSIGNMENT}.ipynb")
        with running_lab(workspace, scratch) as url, chromium() as browser:
            page = browser.new_page(viewport={"width": 1100, "height": 900},
                                    device_scale_factor=1)
            path = f"solved/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
            open_notebook(page, url, path)
            run_all(page, path)
            shots = take(page)
    OUT.mkdir(parents=True, exist_ok=True)
    for key, raw in shots.items():
        target = OUT / SHOTS[key]
        size = small_png(raw, target)
        width, height = Image.open(target).size
        print(f"{target.relative_to(REPO)}: {width}×{height}, {size / 1000:.0f} kB")


if __name__ == "__main__":
    main()

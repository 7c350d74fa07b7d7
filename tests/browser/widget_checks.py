"""What each widget of the solved notebooks must show after a change, worked out by hand.

Widgets are found in the instructor notebooks' stored outputs: each is a VBox whose first child
is its bold title. Each title needs an entry here (what to change, and text the result must
then contain); a widget added without one fails the suite.

`check_accessible_names` checks what a screen reader announces: the calculator is a group
named by its title, each control's accessible name is its description (a slider's value as its
readout shows it), and the result is a polite live region.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from autograder.course import assignments, instructor_notebook
from autograder.notebook import read_notebook

WIDGET_TITLE = re.compile(r"HTML\(value='<b>(.*?)</b>'[,)]")


def widgets() -> list[tuple[str, str]]:
    """(assignment, title) of every widget the instructor notebooks show."""
    found = []
    for assignment in assignments():
        for cell in read_notebook(instructor_notebook(assignment)).cells:
            for output in cell.get("outputs", []):
                text = output.get("data", {}).get("text/plain", "")
                found += [(assignment, title) for title in WIDGET_TITLE.findall(text)]
    return found


def widgets_of(assignment: str) -> list[str]:
    return [title for a, title in widgets() if a == assignment]


# a control's CSS class (ipywidgets 8) → the ARIA role its focusable part has
CONTROL_ROLES = {"widget-slider": "slider", "widget-dropdown": "combobox",
                 "widget-text": "textbox"}


def check_accessible_names(page, shown: str, box, name: str, title: str) -> None:
    """Fails, naming the notebook, the widget and the control, unless every control in `box`
    is found by its role and, as accessible name, its description (the label it shows)."""
    from playwright.sync_api import expect

    where = f"{name}, widget {title!r}"
    expect(page.locator(shown).get_by_role("group", name=title, exact=True),
           f"{where}: no group named by the title").to_have_count(1, timeout=10_000)
    checked = 0
    for css, role in CONTROL_ROLES.items():
        for control in box.locator(f".{css}").all():
            description = control.locator(".widget-label").first.text_content()
            assert description.strip(), f"{where}: a {role} without a description"
            named = control.get_by_role(role, name=description, exact=True)
            expect(named, f"{where}: the {role} {description!r} does not have it as its "
                   "accessible name").to_have_count(1, timeout=10_000)
            if role == "slider":  # its value read out as shown (70.0G), not as log10 (10.85)
                readout = control.locator(".widget-readout").text_content()
                expect(named, f"{where}: the slider {description!r} is not read as its "
                       f"readout {readout!r}").to_have_attribute("aria-valuetext", readout,
                                                                 timeout=10_000)
            checked += 1
    labels = [t for t in box.locator(".widget-label").all_text_contents() if t.strip()]
    assert checked == len(labels), (
        f"{where}: {len(labels)} labelled controls ({labels}), {checked} of them of a kind "
        f"checked here ({sorted(CONTROL_ROLES)})")
    expect(box.locator(".widget-html-content").last,
           f"{where}: the result is not a polite live region").to_have_attribute(
        "aria-live", "polite", timeout=10_000)


def select(label: str, option: str) -> Callable:
    return lambda box: box.locator(".widget-dropdown", has_text=label).locator(
        "select").select_option(label=option)


def type_in(label: str, text: str) -> Callable:
    def act(box):
        field = box.locator(".widget-text", has_text=label).locator("input")
        field.fill(text)
        field.press("Enter")
    return act


def slide_to_max(label: str) -> Callable:
    def act(box):
        box.locator(".widget-slider", has_text=label).locator(
            ".ui-slider-handle, .noUi-handle").first.focus()
        box.page.keyboard.press("End")
    return act


WIDGET_CHECKS: dict[str, tuple[Callable, list[str]]] = {
    # 6·70e9·15e12 FLOPs on 1024 H100s at fp32's 67e12 FLOP/s and MFU 0.5: 2,125.6 days
    "Training-time calculator": (select("precision", "fp32"), ["2,125.6 days"]),
    # 8 × 80 GB holding 2 bytes per parameter: 320 billion parameters
    "Largest-model calculator": (
        select("recipe", "inference, bf16 weights only (2 B)"), ["320.0B parameters"]),
    # 49152 × 12288 elements of 2 bytes
    "Bytes of one 2-D tensor": (select("dtype", "bfloat16"), ["1,207,959,552 bytes"]),
    # x.permute(1, 0)[1, 2] is x[2, 1]: offset 2·4 + 1 = 9 in the 4×4 storage
    "Stride explorer: x = torch.arange(n).view(shape)": (
        type_in("permute", "1, 0"), ["x.permute(1, 0)[1, 2]", "storage_offset (elements)9"]),
    # 65520 is half-way between fp16's 65504 and 65536 (past its max): inf; bf16 keeps 65536
    "A number in every dtype": (type_in("number", "65520"), ["bf16 65536.0", "fp16 inf"]),
    # m at the slider's maximum: 2 · 65536 · 4096 · 4096 FLOPs
    "Matmul on paper": (slide_to_max("m"), ["2,199,023,255,552"]),
    # c at its maximum, 2: weights of std 2/sqrt(128) = 0.1768; each layer ×0.9866·2 = 1.973
    "Activation std per layer for weights of std c/sqrt(d)": (
        slide_to_max("init scale c"), ["std 2/sqrt(128) = 0.1768", "0.9866 × 2 = 1.973"]),
    # ZeRO stage 0 keeps everything on every GPU: 7e9 × 16 B = 112 GB; 80 GB / 16 B = 5e9
    "Training memory per GPU (parameters + gradients + optimizer state)": (
        select("ZeRO stage", "0"), ["112.0 GB", "5.0 B parameters"]),
    # 08 data loading: entries go here
    # 09 training loop and checkpoints: entries go here
    # min_lr / max_lr at its maximum 0.5: half-way through the decay (step (100 + 1000) // 2
    # = 550) the rate is 5e-4 + 0.5 · 5e-4 · (1 + cos(π/2)) = 7.5e-4; at total_steps, 5e-4
    "Learning-rate schedule (max_lr = 1e-3)": (
        slide_to_max("min_lr / max_lr"),
        # a label → value table: its text has each label right before its value
        ["half-way through the decay (step 550)7.50e-04", "total_steps (step 1000)5.00e-04"]),
    # 10 mixed precision: entries go here
    # k at its end, 32: the 81 values 10^-12, 10^-11.9, ..., 10^-4 times 2^32 = 4.29e9 run from
    # 4.3e-3 (no underflow) up to 4.3e5; 10^-4.8 · 2^32 = 68,000 is past fp16's 65,504, so the
    # 9 values 10^-4.8 ... 10^-4 overflow to inf (10^-4.9 · 2^32 = 54,000 still fits)
    "Loss scale vs fp16 underflow and overflow": (
        slide_to_max("loss scale 2^k"),
        ["2^32 = 4,294,967,296", "81-value sample, lost to underflow0 of 81 (0.0%)",
         "81-value sample, overflowed to inf9 of 81"]),
}

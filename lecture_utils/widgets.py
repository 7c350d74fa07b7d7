"""Small calculators built from ipywidgets. ipywidgets loads on first use, not at import.

``calculator(compute, controls)`` lays out one control per argument of ``compute`` and shows
its result, recomputed whenever a control changes. ``compute`` returns either text (HTML) or a
mapping of label → value, shown as a two-column table.

For screen readers: every control's description is its accessible name, a slider's value is
read as its readout shows it, the calculator is a group named by its title, and the result is
a polite live region, announced when it changes.
ipywidgets names a dropdown or a text box by its description (a ``<label for>``) but leaves
a slider's handle unnamed (and, in 7, without a role) and has no option for roles or live
regions; ``calculator`` therefore tags its parts with ``_dom_classes`` and sends a small script
(``A11Y_SCRIPT``) that sets those ARIA attributes in the page.

The same code runs on ipywidgets 8 (JupyterLab) and 7.7.1 (Google Colab); where the two differ,
``lecture_utils.widget_compat`` says how.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from lecture_utils import widget_compat as compat
from lecture_utils.exercises import unfinished_message
from lecture_utils.i18n import tr

# CSS classes (ipywidgets' _dom_classes) on a calculator's parts, read by A11Y_SCRIPT
CALCULATOR_CLASS = "lu-calculator"
TITLE_CLASS = "lu-calculator-title"
RESULT_CLASS = "lu-calculator-result"

# Runs in the page (an application/javascript output, run only where the output is trusted, as
# outputs of a live kernel are; widgets need a live kernel anyway; on Colab, in the cell's
# output frame, beside the calculator it labels). Idempotent: one observer per
# page, and attributes are set only where missing, also on widgets drawn later.
A11Y_SCRIPT = """
(() => {
  const label = () => {
    for (const box of document.querySelectorAll(".lu-calculator")) {
      const title = box.querySelector(".lu-calculator-title .widget-html-content");
      if (title && !box.hasAttribute("aria-labelledby")) {
        title.id = title.id || "lu-title-" + Math.random().toString(36).slice(2);
        box.setAttribute("role", "group");
        box.setAttribute("aria-labelledby", title.id);
      }
      for (const slider of box.querySelectorAll(".widget-slider")) {
        const text = slider.querySelector(".widget-label");
        const handle = slider.querySelector("__SLIDER_HANDLE__");
        if (text && handle && handle.getAttribute("aria-label") !== text.textContent) {
          handle.setAttribute("aria-label", text.textContent);
        }
        if (handle && !handle.hasAttribute("role")) {  // ipywidgets 7's jQuery UI handle
          handle.setAttribute("role", "slider");
        }
        // the value as the readout shows it (70.0G), not the slider's own (10.85 = log10)
        const readout = slider.querySelector(".widget-readout");
        const value = readout && readout.style.display !== "none" ? readout.textContent : "";
        if (handle && value && handle.getAttribute("aria-valuetext") !== value) {
          handle.setAttribute("aria-valuetext", value);
        }
      }
      const result = box.querySelector(".lu-calculator-result .widget-html-content");
      if (result && !result.hasAttribute("aria-live")) {
        result.setAttribute("aria-live", "polite");
      }
    }
  };
  label();
  if (window.luCalculatorA11y) return;
  let queued = false;
  window.luCalculatorA11y = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; label(); });
  });
  window.luCalculatorA11y.observe(document.body, {childList: true, subtree: true});
})();
""".replace("__SLIDER_HANDLE__", compat.SLIDER_HANDLE)


def log_slider(description: str, value: float, low: float, high: float) -> Any:
    """A slider over powers of ten, for quantities spanning orders of magnitude; its readout
    uses SI prefixes (70.0G parameters, 15.0T tokens, 1.02k GPUs)."""
    import math

    import ipywidgets as w

    return w.FloatLogSlider(
        value=value, base=10, min=math.log10(low), max=math.log10(high), step=0.01,
        description=compat.description(tr(description)), readout_format=".3s",
        continuous_update=False,
        style={"description_width": "initial"}, layout=w.Layout(width="420px"),
    )


def slider(description: str, value: float, low: float, high: float, step: float) -> Any:
    import ipywidgets as w

    integral = all(isinstance(v, int) for v in (value, low, high, step))
    cls = w.IntSlider if integral else w.FloatSlider
    return cls(value=value, min=low, max=high, step=step,
               description=compat.description(tr(description)),
               continuous_update=False, style={"description_width": "initial"},
               layout=w.Layout(width="420px"))


def choice(description: str, options: Any, value: Any = None) -> Any:
    """A dropdown; ``options`` is a list or a {label: value} mapping."""
    import ipywidgets as w

    if isinstance(options, Mapping):  # {label: value}: the labels are shown
        options = {tr(label): value for label, value in options.items()}
    dropdown = w.Dropdown(options=compat.options(options),
                          description=compat.description(tr(description)),
                          style={"description_width": "initial"})
    if value is not None:
        dropdown.value = value
    return dropdown


def render_result(result: str | Mapping[str, Any]) -> str:
    """HTML for a calculator's result: text as-is, a mapping as a two-column table."""
    if isinstance(result, str):
        return result
    rows = "".join(
        f"<tr><td style='padding-right:1em'>{html.escape(tr(str(k)))}</td>"
        f"<td><b>{html.escape(tr(str(v)))}</b></td></tr>"
        for k, v in result.items()
    )
    return f"<table>{rows}</table>"


def calculator(
    compute: Callable[..., str | Mapping[str, Any]],
    controls: Mapping[str, Any],
    title: str = "",
    uses_exercises: tuple[int, ...] = (),
) -> Any:
    """A VBox of ``controls`` (argument name → widget) and a live result of ``compute``.

    The result is an HTML widget (not captured print output), so it updates the same way in
    JupyterLab, in a saved notebook and in a test without a kernel. A ``compute`` built on the
    student's solutions names their exercises in ``uses_exercises``: until they are written
    (their stubs raise NotImplementedError) the calculator says which ones to finish.
    """
    import ipywidgets as w

    output = w.HTML()

    def refresh(_change: Any = None) -> None:
        try:
            result = compute(**{name: c.value for name, c in controls.items()})
            output.value = render_result(result)
        except NotImplementedError:
            output.value = html.escape(
                unfinished_message(*uses_exercises) if uses_exercises
                else tr("Finish the exercises above to use this calculator."))
        except Exception as error:  # show the problem in the widget instead of losing it
            output.value = f"<span style='color:#b00'>{html.escape(repr(error))}</span>"

    for control in controls.values():
        control.observe(refresh, names="value")
    refresh()
    output.add_class(RESULT_CLASS)
    children = ([w.HTML(f"<b>{html.escape(tr(title))}</b>")] if title else [])
    for child in children:
        child.add_class(TITLE_CLASS)
    box = w.VBox([*children, *controls.values(), output])
    box.add_class(CALCULATOR_CLASS)
    _send_a11y_script()
    return box


def _send_a11y_script() -> None:
    """Display A11Y_SCRIPT (with empty plain text, so that viewers without JavaScript show
    nothing) when running in a notebook; outside IPython, nothing."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return
    if get_ipython() is not None:
        display({"application/javascript": A11Y_SCRIPT, "text/plain": ""}, raw=True)

"""ipywidgets 7 and 8 behind the same calls, for the calculators (lecture_utils.widgets).

Google Colab ships ipywidgets 7.7.1 and breaks when a notebook upgrades it; the project's
JupyterLab uses 8. The calculators use only what both have (sliders, FloatLogSlider, Dropdown,
Text, HTML, VBox, Layout, ``style={"description_width": ...}``, ``add_class``, ``observe(...,
names="value")``) and none of what 8 added or renamed (``tooltip`` for 7's
``description_tooltip``, ``description_allow_html``). Three differences remain, handled here:

- A dropdown's options: 7.7 warns that a {label: value} mapping is deprecated, 8 takes it;
  a list of (label, value) pairs means the same to both (``options``).
- A description: 7 puts it into the page as HTML (and MathJax typesets it), 8 as text;
  text escaped for 7 reads the same in both (``description``).
- A slider's handle in the page: 7 draws sliders with jQuery UI (``.ui-slider-handle``), 8 with
  noUiSlider (``.noUi-handle``; ipywidgets 8.0 changelog, "Slider implementation now uses
  nouislider instead of jquery-ui"). ``SLIDER_HANDLE`` matches either, for the accessibility
  script and the browser tests.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

SLIDER_HANDLE = ".noUi-handle, .ui-slider-handle"


def major_version() -> int:
    """7 or 8: the major version of the ipywidgets this kernel imports."""
    import ipywidgets

    return int(ipywidgets.__version__.split(".")[0])


def options(choices: Any) -> Any:
    """Dropdown options as both versions take them: a mapping becomes (label, value) pairs,
    in its order; anything else is passed on as it is."""
    if isinstance(choices, Mapping):
        return list(choices.items())
    return choices


def description(text: str) -> str:
    """``text`` as a control's description that shows as written: escaped where ipywidgets
    renders descriptions as HTML (7), as it is where it renders them as text (8)."""
    return html.escape(text, quote=False) if major_version() < 8 else text

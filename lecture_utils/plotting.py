"""One plotting style for every notebook, and ``show(fig, alt)`` to display a figure with alt
text. matplotlib loads on first use, not at import.

The style tells lines apart by colour, line style and marker together (a legend must not rely on
colour alone); bars are told apart by hatching (``HATCHES``).

Text falls back glyph by glyph from matplotlib's default sans-serif font (DejaVu Sans, which has
no Chinese) to a Simplified Chinese font, so the Chinese edition's plots show no tofu boxes:
the Noto Sans SC file that the ``pylopdf-fonts-zh-cn`` package installs (trusted as a font file
from our own dependencies), else a CJK font the system already has.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import logging
import math
from typing import Any

STYLE: dict[str, Any] = {
    "figure.figsize": (6.4, 3.6),
    "figure.dpi": 100,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "legend.frameon": False,
    "lines.linewidth": 2,
    "lines.markersize": 5,
    "hatch.linewidth": 0.8,
    "axes.prop_cycle": None,  # filled in by use_style (needs matplotlib's cycler)
}
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
# one per colour, cycled together with it: the n-th line differs from the others in all three
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "X")
HATCHES = ("//", "\\\\", "xx", "..", "oo", "++")
# a line with more points than this gets about MARKERS_PER_LINE markers, not one on every point
DENSE_LINE_POINTS = 20
MARKERS_PER_LINE = 10


def prop_cycle() -> Any:
    """The style's property cycle: colour, line style and marker change together."""
    from cycler import cycler

    return (cycler(color=COLORS) + cycler(linestyle=LINESTYLES)
            + cycler(marker=MARKERS))


# Simplified Chinese fonts a system may already have, looked for when the packaged one is
# missing (e.g. a conda environment without pip's extras); the first one present is used
SYSTEM_CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC",
                       "Microsoft YaHei", "WenQuanYi Micro Hei", "Noto Sans SC")


def packaged_cjk_font() -> str | None:
    """Path of the Noto Sans SC file installed with the course's dependencies, or None."""
    try:
        import pylopdf_fonts_zh_cn
    except ImportError:
        return None
    path = pylopdf_fonts_zh_cn.sans_path()
    return str(path) if path.is_file() else None


@functools.cache
def cjk_family() -> str | None:
    """The family name of the Chinese fallback font, registered with matplotlib once (it is not
    a system font, so matplotlib would not find it otherwise); None when there is none."""
    from matplotlib import font_manager

    path = packaged_cjk_font()
    if path is not None:
        font_manager.fontManager.addfont(path)
        family = font_manager.FontProperties(fname=path).get_name()
    else:
        known = {entry.name for entry in font_manager.fontManager.ttflist}
        family = next((name for name in SYSTEM_CJK_FAMILIES if name in known), None)
    if family is not None:
        logging.getLogger(font_manager.__name__).addFilter(_BoldFallbackQuiet(family))
    return family


class _BoldFallbackQuiet(logging.Filter):
    """Drops matplotlib's "Failed to find font weight bold for <the CJK font>" warning: the
    font has one weight, and as the fallback of every bold title (English ones too) it would
    print that warning under the first bold title of every notebook."""

    def __init__(self, family: str) -> None:
        super().__init__()
        self.family = family

    def filter(self, record: logging.LogRecord) -> bool:
        return not (str(record.msg).startswith("findfont: Failed to find font weight")
                    and isinstance(record.args, tuple) and len(record.args) > 1
                    and record.args[1] == self.family)


def font_families() -> list[str]:
    """``font.family`` for the style: the default sans-serif font first, so English text looks
    as it always did, then the Chinese font for the glyphs the first one lacks (matplotlib
    falls back per glyph through this list). Only fonts that exist are named: matplotlib warns
    about every missing family on every text it draws."""
    family = cjk_family()
    return ["sans-serif"] if family is None else ["sans-serif", family]


def use_style() -> None:
    """Apply the course style to matplotlib's global settings."""
    import matplotlib as mpl

    mpl.rcParams.update(dict(STYLE, **{"axes.prop_cycle": prop_cycle(),
                                       "font.family": font_families()}))


def subplots(nrows: int = 1, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
    """``plt.subplots`` in the course style, sized so each panel keeps the default shape."""
    import matplotlib.pyplot as plt

    use_style()
    width, height = STYLE["figure.figsize"]
    kwargs.setdefault("figsize", (width * ncols, height * nrows))
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, **kwargs)


def _space_out_markers(fig: Any) -> None:
    """Markers on a line of many points every so many points instead of on every one (the
    style gives every line a marker; on a curve of 1000 points they would merge into a thick
    line). Lines of one axes start their markers at different points, so that lines lying on
    top of each other still show each one's marker."""
    for ax in fig.axes:
        dense = [line for line in ax.get_lines()
                 if line.get_marker() not in ("None", "", " ", None)
                 and line.get_markevery() is None
                 and len(line.get_xdata()) > DENSE_LINE_POINTS]
        for k, line in enumerate(dense):
            step = max(math.ceil(len(line.get_xdata()) / MARKERS_PER_LINE), len(dense))
            line.set_markevery((k * step // len(dense), step))


def translate_figure(fig: Any) -> None:
    """Show a figure's fixed texts in the notebook's language (``lecture_utils.i18n``): titles,
    axis labels, legend entries and free text. A text with no translation stays as it is."""
    from lecture_utils.i18n import ENGLISH, current_language, tr

    if current_language() == ENGLISH:
        return
    texts = [t for t in (fig._suptitle, fig._supxlabel, fig._supylabel) if t is not None]
    for ax in fig.axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
                  *ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
    for text in texts:
        if text.get_text():
            text.set_text(tr(text.get_text()))
    for ax in fig.axes:  # the CJK fallback font has one weight: a bold title mixes weights
        for title in (ax.title, ax._left_title, ax._right_title):
            title.set_fontweight("normal")
    if fig._suptitle is not None:
        fig._suptitle.set_fontweight("normal")


def figure_bundle(fig: Any, alt: str) -> dict[str, str]:
    """The display bundle ``show`` sends: the PNG inside an HTML ``<figure>`` whose ``<img>``
    carries ``alt`` (JupyterLab puts no alt on a plain ``image/png`` output), the same PNG as
    ``image/png`` for viewers that show no HTML, and ``alt`` as the plain-text version."""
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("say what the plot shows: alt text must not be empty")
    from lecture_utils.i18n import tr

    alt = tr(alt)
    translate_figure(fig)
    _space_out_markers(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    alt = " ".join(alt.split())
    return {
        "text/html": (f'<figure style="margin: 0"><img src="data:image/png;base64,{png}" '
                      f'alt="{html.escape(alt, quote=True)}"></figure>'),
        "image/png": png,
        "text/plain": f"[plot] {alt}",
    }


def show(fig: Any, alt: str) -> None:
    """Display ``fig`` as one output whose image has ``alt`` as its alt text, then close it
    (so the notebook's inline backend does not show it a second time).

    ``alt`` says what the plot shows: its axes, what is plotted and the trend to see; an empty
    one is refused (ValueError).
    """
    import matplotlib.pyplot as plt
    from IPython.display import display

    try:
        bundle = figure_bundle(fig, alt)
    finally:
        plt.close(fig)
    display(bundle, raw=True)

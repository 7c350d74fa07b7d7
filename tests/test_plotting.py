"""plotting.show: one output, an <img> with alt text inside HTML plus the PNG; the course style
tells lines apart by more than colour."""

from __future__ import annotations

import base64
import html
import io
import re

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402

from lecture_utils import exercises, plotting  # noqa: E402


def _shown(monkeypatch, fig, alt):
    sent = []
    monkeypatch.setattr("IPython.display.display",
                        lambda *objs, **kw: sent.append((objs, kw)))
    plotting.show(fig, alt)
    assert len(sent) == 1, "one output per figure"
    (objs, kw), = sent
    assert kw == {"raw": True} and len(objs) == 1
    return objs[0]


def test_show_sends_html_with_escaped_alt_and_the_png(monkeypatch):
    fig, ax = plotting.subplots()
    ax.plot([1, 2, 3], [3, 1, 2], label="a")
    alt = 'Loss <falls> & "rises" again;\n  time on the x axis.'
    bundle = _shown(monkeypatch, fig, alt)
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    page = bundle["text/html"]
    assert page.startswith("<figure") and page.endswith("</figure>")
    assert page.count("<img ") == 1
    flat = " ".join(alt.split())
    assert f'alt="{html.escape(flat, quote=True)}"' in page
    assert "<falls>" not in page and '"rises"' not in page
    src = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page).group(1)
    assert src == bundle["image/png"], "the HTML and the fallback carry the same PNG"
    image = Image.open(io.BytesIO(base64.b64decode(bundle["image/png"])))
    image.load()
    assert image.format == "PNG" and image.size[0] > 300 and image.size[1] > 150
    assert flat in bundle["text/plain"]


def test_show_closes_the_figure(monkeypatch):
    fig, _ = plotting.subplots()
    assert plt.fignum_exists(fig.number)
    _shown(monkeypatch, fig, "An empty frame.")
    assert not plt.fignum_exists(fig.number)


@pytest.mark.parametrize("alt", ["", "   \n ", None])
def test_show_refuses_empty_alt_text(monkeypatch, alt):
    sent = []
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: sent.append(objs))
    fig, _ = plotting.subplots()
    with pytest.raises(ValueError, match="alt text"):
        plotting.show(fig, alt)
    assert not sent


def test_style_cycle_varies_linestyle_and_marker_with_colour():
    plotting.use_style()
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()
    assert {"color", "linestyle", "marker"} <= set(cycle)
    n = len(cycle["color"])
    for key in ("color", "linestyle", "marker"):
        values = [str(v) for v in cycle[key]]
        assert len(values) == n and len(set(values)) == n, f"{key} repeats within the cycle"
    fig, ax = plotting.subplots()
    lines = [ax.plot([0, 1], [i, i])[0] for i in range(3)]
    assert len({(str(ln.get_linestyle()), ln.get_marker()) for ln in lines}) == 3
    plt.close(fig)


def test_dense_lines_get_spaced_markers_sparse_ones_keep_every_marker(monkeypatch):
    fig, ax = plotting.subplots()
    dense, = ax.plot(range(500), range(500))
    sparse, = ax.plot(range(5), range(5))
    plain, = ax.plot(range(500), range(500), "k:")
    twin, = ax.plot(range(500), range(500))
    _shown(monkeypatch, fig, "Four lines.")
    start, step = dense.get_markevery()
    assert start == 0 and 500 / step <= plotting.MARKERS_PER_LINE
    assert twin.get_markevery()[0] > 0, "a line on top of another shows its markers elsewhere"
    assert sparse.get_markevery() is None and plain.get_markevery() is None


def test_a_demo_that_stops_early_leaves_no_half_drawn_figure(capsys):
    with exercises.uses_exercise(3):
        fig, _ = plotting.subplots()
        raise NotImplementedError
    assert not plt.fignum_exists(fig.number)
    assert "Finish exercise 3 above" in capsys.readouterr().out


def test_nbval_compares_the_alt_text_but_not_the_png_bytes():
    from pathlib import Path

    from nbval.plugin import get_sanitize_patterns

    cfg = Path(__file__).parent / "nbval_sanitize.cfg"
    patterns = get_sanitize_patterns(cfg.read_text())

    def sanitized(points, alt):
        fig, ax = plotting.subplots()
        ax.plot(points)
        page = plotting.figure_bundle(fig, alt)["text/html"]
        plt.close(fig)
        for regex, replace in patterns:
            page = re.sub(regex, replace, page)
        return page

    assert sanitized([1, 2], "A line.") == sanitized([2, 1, 3], "A line.")
    assert sanitized([1, 2], "A line.") != sanitized([1, 2], "Another line.")

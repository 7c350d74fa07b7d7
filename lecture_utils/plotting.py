"""One plotting style for every notebook. matplotlib loads on first use, not at import."""

from __future__ import annotations

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
    "axes.prop_cycle": None,  # filled in by use_style (needs matplotlib's cycler)
}
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")


def use_style() -> None:
    """Apply the course style to matplotlib's global settings."""
    import matplotlib as mpl
    from cycler import cycler

    style = dict(STYLE, **{"axes.prop_cycle": cycler(color=COLORS)})
    mpl.rcParams.update(style)


def subplots(nrows: int = 1, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
    """``plt.subplots`` in the course style, sized so each panel keeps the default shape."""
    import matplotlib.pyplot as plt

    use_style()
    width, height = STYLE["figure.figsize"]
    kwargs.setdefault("figsize", (width * ncols, height * nrows))
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, **kwargs)

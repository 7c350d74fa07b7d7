"""Pictures of how a tensor sits in its storage, for notebook 02 (strides, views and copies).

A view reads some cells of a flat storage. ``draw_storage`` draws that storage as a row of
cells with the cells a view reads filled in (hatched and numbered, so colour is not the only
clue), and ``stride_explorer`` is a widget that builds a view from a shape, a permutation and
an index, then shows its strides, offset, contiguity and the same drawing as HTML.

Every figure here is torch's own: strides come from ``.stride()``, offsets from
``.storage_offset()``, and the cells a view reads from running ``as_strided`` over a tensor
of storage indices. Nothing computes a stride or an offset from a shape: that arithmetic is
the notebook's exercises. matplotlib and ipywidgets load on first use, not at import.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import torch

__all__ = ["draw_storage", "explore", "explorer_html", "parse_index", "parse_sizes",
           "storage_cells", "storage_html", "storage_index_map", "stride_explorer",
           "view_facts"]

# The explorer draws at most this many storage cells (4 × 4 × 4); bigger shapes are refused.
MAX_EXPLORER_CELLS = 64
# These helpers list storage cells one by one: they are for small teaching tensors only.
MAX_MAPPED_CELLS = 1 << 16


def storage_cells(t: torch.Tensor) -> int:
    """How many elements of ``t``'s dtype its whole storage holds."""
    return t.untyped_storage().nbytes() // t.element_size()


def storage_index_map(t: torch.Tensor) -> torch.Tensor:
    """A tensor shaped like ``t`` whose every element is the storage index that element of
    ``t`` reads, found by torch: ``as_strided`` with ``t``'s own stride and offset over a
    tensor that holds 0, 1, 2, ... in place of the storage."""
    n_cells = storage_cells(t)
    if n_cells > MAX_MAPPED_CELLS or t.numel() > MAX_MAPPED_CELLS:
        raise ValueError(f"{t.numel():,} elements over a storage of {n_cells:,} cells is too "
                         f"big to map cell by cell (at most {MAX_MAPPED_CELLS:,} of each): "
                         "use a small example tensor")
    indices = torch.arange(n_cells)
    return indices.as_strided(t.shape, t.stride(), t.storage_offset())


def view_facts(t: torch.Tensor) -> dict[str, Any]:
    """What torch reports about ``t``'s layout, as plain values."""
    read = storage_index_map(t).flatten().tolist()
    return {
        "shape": tuple(t.shape),
        "stride": tuple(t.stride()),
        "storage_offset": t.storage_offset(),
        "is_contiguous": t.is_contiguous(),
        "numel": t.numel(),
        "storage_cells": storage_cells(t),
        "cells_read": sorted(set(read)),
        # bytes from the start of the storage to the view's first element
        "data_ptr_minus_storage_ptr": t.data_ptr() - t.untyped_storage().data_ptr(),
    }


def _readers(t: torch.Tensor) -> dict[int, list[int]]:
    """storage index → positions (in the view's row-major order) of the elements reading it."""
    readers: dict[int, list[int]] = {}
    for position, cell in enumerate(storage_index_map(t).flatten().tolist()):
        readers.setdefault(cell, []).append(position)
    return readers


def draw_storage(views: Sequence[tuple[str, torch.Tensor]], *, title: str = "") -> Any:
    """One row of storage cells per ``(label, view)``; returns the matplotlib figure.

    A cell the view reads is filled, hatched and shows the position of the element that
    reads it (counting the view's elements in row-major order; "0,4" when two elements
    read the same cell, as after ``expand``); a cell it does not read is left white. A
    triangle marks the storage offset, where the view's first element sits.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    from lecture_utils import plotting

    if not views:
        raise ValueError("give at least one (label, view) pair to draw")
    all_readers = [_readers(view) for _, view in views]   # refuses big tensors first
    n_cells = max(storage_cells(v) for _, v in views)
    fig, axes = plotting.subplots(len(views), 1, squeeze=False,
                                  figsize=(max(6.4, 0.42 * n_cells + 1.0),
                                           0.95 * len(views) + 0.9))
    fill = plotting.COLORS[0]
    for ax, (label, view), readers in zip(axes[:, 0], views, all_readers):
        for cell in range(storage_cells(view)):
            read = cell in readers
            ax.add_patch(Rectangle((cell, 0), 1, 1, facecolor=fill if read else "white",
                                   alpha=0.45 if read else 1.0, hatch="//" if read else None,
                                   edgecolor="black", linewidth=0.8))
            if read:
                text = ",".join(str(p) for p in readers[cell][:3])
                text += "…" if len(readers[cell]) > 3 else ""
                ax.text(cell + 0.5, 0.5, text, ha="center", va="center", fontsize=8,
                        fontweight="bold",
                        bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
        if view.numel():
            ax.plot(view.storage_offset() + 0.5, 1.25, marker="v", color=plotting.COLORS[1],
                    markersize=7, clip_on=False)
        ax.set_xlim(0, n_cells)
        ax.set_ylim(0, 1.45)
        ax.set_yticks([])
        ax.grid(False)
        ax.spines[["left", "bottom"]].set_visible(False)
        ax.set_xticks([c + 0.5 for c in range(n_cells)], [str(c) for c in range(n_cells)],
                      fontsize=7)
        ax.tick_params(axis="x", length=0)
        ax.set_title(f"{label}   shape {tuple(view.shape)}, stride {tuple(view.stride())}, "
                     f"offset {view.storage_offset()}", fontsize=9, loc="left",
                     fontweight="normal")
    axes[-1, 0].set_xlabel("storage index (elements from the start of the storage)")
    handles = [Patch(facecolor=fill, alpha=0.45, hatch="//", edgecolor="black",
                     label="read by the view (number: element's position in the view)"),
               Patch(facecolor="white", edgecolor="black", label="not read"),
               Line2D([], [], marker="v", color=plotting.COLORS[1], linestyle="none",
                      label="storage offset (first element)")]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=7)
    if title:
        fig.suptitle(title, fontweight="bold")
    return fig


def storage_html(t: torch.Tensor) -> str:
    """The drawing of ``draw_storage`` as an HTML row of cells, for widgets: a read cell is
    shaded, bold and shows ● with the element's position; an unread one shows a dot."""
    readers = _readers(t)
    cells = []
    for cell in range(storage_cells(t)):
        read = cell in readers
        mark = ("●" + ",".join(str(p) for p in readers[cell][:2])) if read else "·"
        style = ("background:#a9c8e6;font-weight:bold;border:2px solid #1f77b4;" if read
                 else "background:#fff;color:#999;border:1px solid #bbb;")
        offset = " ▼" if read and cell == t.storage_offset() and t.numel() else ""
        cells.append(
            f"<td style='{style}padding:2px 4px;text-align:center;min-width:1.8em'"
            f" title='storage index {cell}' data-cell='{cell}' data-read='{int(read)}'>"
            f"<div style='font-size:70%;color:#555'>{cell}{offset}</div>{mark}</td>")
    return ("<table style='border-collapse:collapse;font-family:monospace'><tr>"
            + "".join(cells) + "</tr></table>")


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"4, 4"`` → ``(4, 4)``: comma-separated whole numbers (empty: no dimensions)."""
    if not isinstance(text, str):
        raise TypeError(f"expected text such as '4, 4', got {type(text).__name__}")
    parts = [p.strip() for p in text.strip().strip("()[]").split(",")]
    return tuple(int(p) for p in parts if p)


def _parse_slice_part(part: str) -> int | slice:
    if ":" not in part:
        return int(part)
    pieces = part.split(":")
    if len(pieces) > 3:
        raise ValueError(f"a slice has at most two colons: {part!r}")
    start, stop, step = ([int(p) if p.strip() else None for p in pieces] + [None])[:3]
    return slice(start, stop, step)


def parse_index(text: str) -> tuple[int | slice, ...]:
    """``"1:, ::2"`` → ``(slice(1, None), slice(None, None, 2))``: what goes inside ``x[...]``,
    integers and slices only (empty: no indexing)."""
    if not isinstance(text, str):
        raise TypeError(f"expected text such as '1:, ::2', got {type(text).__name__}")
    parts = [p.strip() for p in text.strip().strip("[]").split(",")]
    if parts == [""]:
        return ()
    if "" in parts:
        raise ValueError(f"an empty entry in the index {text!r}")
    return tuple(_parse_slice_part(p) for p in parts)


def _index_text(index: tuple[int | slice, ...]) -> str:
    def one(i: int | slice) -> str:
        if isinstance(i, int):
            return str(i)
        text = ":".join("" if v is None else str(v) for v in (i.start, i.stop))
        return text + (f":{i.step}" if i.step is not None else "")
    return ", ".join(one(i) for i in index)


def explore(shape: str, permutation: str, index: str) -> dict[str, Any]:
    """The stride explorer's callback: ``x = torch.arange(n).view(shape)``, then
    ``v = x.permute(permutation)[index]``; torch's layout facts about ``v`` and the HTML
    drawing of the storage cells it reads. Arguments are text, as typed in the widget
    (permutation empty: keep the order)."""
    sizes = parse_sizes(shape)
    if not sizes:
        raise ValueError("give the shape as sizes separated by commas, such as 4, 4")
    if any(s < 1 for s in sizes):
        raise ValueError("every size must be at least 1")
    n = 1
    for s in sizes:
        n *= s
    if n > MAX_EXPLORER_CELLS:
        raise ValueError(f"at most {MAX_EXPLORER_CELLS} elements, to keep the drawing readable")
    order = parse_sizes(permutation) or tuple(range(len(sizes)))
    if sorted(order) != list(range(len(sizes))):
        raise ValueError(f"the permutation must list each of 0..{len(sizes) - 1} once")
    picks = parse_index(index)
    x = torch.arange(n).view(sizes)
    view = x.permute(order)
    if picks:
        view = view[picks]
    expression = "x"
    if order != tuple(range(len(sizes))):
        expression += f".permute{order}" if len(order) > 1 else f".permute(({order[0]},))"
    if picks:
        expression += f"[{_index_text(picks)}]"
    facts = view_facts(view)
    facts["expression"] = expression
    facts["values"] = view.tolist()
    facts["drawing"] = storage_html(view)
    return facts


def explorer_html(facts: dict[str, Any]) -> str:
    """The explorer's result as HTML: a table of torch's figures, then the storage row."""
    rows = [
        ("view", facts["expression"]),
        ("shape", facts["shape"]),
        ("stride (elements)", facts["stride"]),
        ("storage_offset (elements)", facts["storage_offset"]),
        ("data_ptr − storage data_ptr (bytes, int64)", facts["data_ptr_minus_storage_ptr"]),
        ("is_contiguous()", facts["is_contiguous"]),
        ("elements it shows", facts["numel"]),
        ("storage cells it reads", f"{len(facts['cells_read'])} of {facts['storage_cells']}"),
    ]
    table = "".join(f"<tr><td style='padding-right:1em'>{html.escape(k)}</td>"
                    f"<td><b>{html.escape(str(v))}</b></td></tr>" for k, v in rows)
    return (f"<table>{table}</table><div style='margin-top:6px'>storage of "
            f"<code>x = torch.arange({facts['storage_cells']})</code>, one cell per element "
            f"(● and shading: read by the view, with the element's position in it; "
            f"▼ the storage offset):</div>{facts['drawing']}")


def stride_explorer(shape: str = "4, 4", permutation: str = "0, 1", index: str = "1, 2") -> Any:
    """A widget: type a shape, a permutation and an index; see torch's strides, offset and
    contiguity for ``x.permute(...)[...]`` and which storage cells it reads."""
    import ipywidgets as w

    from lecture_utils.widgets import calculator

    def text(description: str, value: str, placeholder: str) -> Any:
        return w.Text(value=value, description=description, placeholder=placeholder,
                      continuous_update=False, style={"description_width": "initial"},
                      layout=w.Layout(width="420px"))

    controls = {
        "shape": text("shape of x", shape, "e.g. 4, 4 or 2, 3, 4"),
        "permutation": text("permute", permutation, "e.g. 1, 0 (empty: keep the order)"),
        "index": text("then index [ ]", index, "e.g. 1:, ::2 (empty: no indexing)"),
    }
    return calculator(lambda **kw: explorer_html(explore(**kw)), controls,
                      title="Stride explorer: x = torch.arange(n).view(shape)")


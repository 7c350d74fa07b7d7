"""lecture_utils.layout: the storage drawing and the stride explorer of notebook 02.

The figures these helpers show must be torch's own (strides, offsets, the cells a view
reads), and the explorer widget must recompute when a control changes.
"""

from __future__ import annotations

import re

import matplotlib
import pytest
import torch

from lecture_utils import layout

matplotlib.use("Agg")


def _read_cells(html_text: str) -> list[int]:
    return [int(c) for c in re.findall(r"data-cell='(\d+)' data-read='1'", html_text)]


def test_storage_cells_counts_elements_of_the_whole_storage():
    x = torch.zeros(4, 4)
    assert layout.storage_cells(x[1:, 2]) == 16
    assert layout.storage_cells(torch.zeros(10, dtype=torch.float64)[3:5]) == 10
    assert layout.storage_cells(torch.zeros(8, dtype=torch.int8).view(torch.float32)) == 2


@pytest.mark.parametrize("make", [
    lambda x: x,
    lambda x: x.t(),
    lambda x: x[1:3, 1:],
    lambda x: x[:, 2],
    lambda x: x[::2, ::2],
    lambda x: x[1, 2],
    lambda x: x[0].expand(3, 4),
    lambda x: x.t()[1:].unsqueeze(1),
])
def test_storage_index_map_names_the_cell_each_element_reads(make):
    x = torch.arange(16.0).view(4, 4)      # every value is its own storage position
    view = make(x)
    assert torch.equal(layout.storage_index_map(view).to(view.dtype), view)


def test_view_facts_are_what_torch_reports():
    x = torch.arange(24.0).view(4, 6)
    view = x[1:, ::2]
    facts = layout.view_facts(view)
    assert facts["shape"] == (3, 3) and facts["stride"] == (6, 2)
    assert facts["storage_offset"] == 6 and facts["is_contiguous"] is False
    assert facts["numel"] == 9 and facts["storage_cells"] == 24
    assert facts["cells_read"] == [6, 8, 10, 12, 14, 16, 18, 20, 22]
    assert facts["data_ptr_minus_storage_ptr"] == 6 * 4


def test_the_lecture_example_is_cell_6():
    facts = layout.view_facts(torch.zeros(4, 4)[1, 2])
    assert facts["storage_offset"] == 6 and facts["cells_read"] == [6]


def test_expand_reads_the_same_cells_again():
    facts = layout.view_facts(torch.zeros(3).expand(4, 3))
    assert facts["numel"] == 12 and facts["cells_read"] == [0, 1, 2]


def test_storage_html_marks_read_cells_with_more_than_colour():
    html_text = layout.storage_html(torch.arange(16.0).view(4, 4)[:, 2])
    assert _read_cells(html_text) == [2, 6, 10, 14]
    assert html_text.count("data-read='0'") == 12
    assert html_text.count("●") == 4 and "▼" in html_text     # marker and offset, not colour


def test_draw_storage_draws_one_row_per_view():
    x = torch.arange(16.0).view(4, 4)
    fig = layout.draw_storage([("x", x), ("x.t()", x.t()), ("x[1, 2]", x[1, 2])], title="t")
    try:
        axes = fig.axes
        assert len(axes) == 3
        assert all(len(ax.patches) == 16 for ax in axes)
        hatched = [sum(1 for p in ax.patches if p.get_hatch()) for ax in axes]
        assert hatched == [16, 16, 1]
        labels = [t.get_text() for t in axes[1].texts]
        assert labels[:5] == ["0", "4", "8", "12", "1"]   # x.t() reads cell 1 as element 4
        assert "offset 6" in axes[2].get_title(loc="left")
        assert axes[-1].get_xlabel().startswith("storage index")
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_draw_storage_needs_a_view():
    with pytest.raises(ValueError):
        layout.draw_storage([])


@pytest.mark.parametrize(("text", "expected"), [
    ("1, 2", (1, 2)),
    ("1:, ::2", (slice(1, None), slice(None, None, 2))),
    ("[1:3, 0]", (slice(1, 3), 0)),
    ("", ()),
    ("  ", ()),
])
def test_parse_index(text, expected):
    assert layout.parse_index(text) == expected


@pytest.mark.parametrize("bad", ["1,,2", "1:2:3:4", "a"])
def test_parse_index_refuses_what_is_not_an_index(bad):
    with pytest.raises(ValueError):
        layout.parse_index(bad)


def test_parse_sizes():
    assert layout.parse_sizes("4, 4") == (4, 4)
    assert layout.parse_sizes("(2, 3, 4)") == (2, 3, 4)
    assert layout.parse_sizes("") == ()
    with pytest.raises(TypeError):
        layout.parse_sizes((4, 4))


@pytest.mark.parametrize(("shape", "permutation", "index", "expression"), [
    ("4, 4", "0, 1", "1, 2", "x[1, 2]"),
    ("4, 4", "1, 0", "", "x.permute(1, 0)"),
    ("4, 4", "1, 0", "1:, ::2", "x.permute(1, 0)[1:, ::2]"),
    ("2, 3, 4", "2, 0, 1", "::2, 1:", "x.permute(2, 0, 1)[::2, 1:]"),
    ("4, 1", "1, 0", "", "x.permute(1, 0)"),
    ("6", "", "1::2", "x[1::2]"),
])
def test_explore_reports_torchs_view(shape, permutation, index, expression):
    facts = layout.explore(shape, permutation, index)
    sizes = layout.parse_sizes(shape)
    x = torch.arange(len(torch.empty(sizes).flatten())).view(sizes)
    order = layout.parse_sizes(permutation) or tuple(range(len(sizes)))
    view = x.permute(order)
    picks = layout.parse_index(index)
    view = view[picks] if picks else view
    assert facts["expression"] == expression
    assert facts["shape"] == tuple(view.shape) and facts["stride"] == view.stride()
    assert facts["storage_offset"] == view.storage_offset()
    assert facts["is_contiguous"] == view.is_contiguous()
    assert facts["values"] == view.tolist()
    assert _read_cells(facts["drawing"]) == sorted(set(view.flatten().tolist()))


def test_explore_default_is_the_lecture_example():
    facts = layout.explore("4, 4", "0, 1", "1, 2")
    assert facts["storage_offset"] == 6 and facts["cells_read"] == [6]
    assert facts["values"] == 6 and facts["data_ptr_minus_storage_ptr"] == 48


def test_explore_size_one_dimensions_keep_contiguity():
    facts = layout.explore("4, 1", "1, 0", "")
    assert facts["shape"] == (1, 4) and facts["stride"] == (1, 1)
    assert facts["is_contiguous"] is True


@pytest.mark.parametrize(("shape", "permutation", "index"), [
    ("", "", ""),                 # no shape
    ("0, 4", "", ""),             # an empty size
    ("9, 9", "", ""),             # too many cells to draw
    ("4, 4", "0, 0", ""),         # not a permutation
    ("4, 4", "0, 1, 2", ""),      # wrong length
])
def test_explore_refuses_bad_input(shape, permutation, index):
    with pytest.raises(ValueError):
        layout.explore(shape, permutation, index)


def test_explore_index_out_of_range_raises():
    with pytest.raises(IndexError):
        layout.explore("4, 4", "", "7")


def test_stride_explorer_widget_recomputes_when_a_control_changes():
    pytest.importorskip("ipywidgets")
    box = layout.stride_explorer()
    title, shape, permutation, index, output = box.children
    assert "Stride explorer" in title.value
    assert (shape.value, permutation.value, index.value) == ("4, 4", "0, 1", "1, 2")
    assert "<b>6</b>" in output.value and _read_cells(output.value) == [6]

    permutation.value = "1, 0"           # the transpose, at index (1, 2): storage cell 9
    assert _read_cells(output.value) == [9]
    index.value = ":, 1"                 # a column of the transpose: a row of x
    assert _read_cells(output.value) == [4, 5, 6, 7]
    assert "<b>(1,)</b>" in output.value          # stride of that row
    shape.value = "2, 3, 4"              # a bad permutation for 3 dimensions: shown, not raised
    assert "ValueError" in output.value
    permutation.value = "2, 0, 1"
    index.value = ""
    assert "<b>(1, 12, 4)</b>" in output.value and "<b>False</b>" in output.value
    assert len(_read_cells(output.value)) == 24


def test_explorer_html_escapes_its_values():
    facts = layout.explore("4, 4", "", "")
    facts["expression"] = "<script>alert(1)</script>"
    assert "<script>" not in layout.explorer_html(facts)


def test_big_storages_are_refused_before_anything_is_allocated():
    big = torch.empty(49152, 12288, device="meta")
    with pytest.raises(ValueError, match="too big"):
        layout.storage_index_map(big[:1])
    with pytest.raises(ValueError, match="too big"):
        layout.view_facts(big)
    with pytest.raises(ValueError, match="too big"):
        layout.draw_storage([("expanded", torch.zeros(3).expand(10**6, 3))])

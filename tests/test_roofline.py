"""lecture_utils.roofline: sweeps record counted FLOPs and real tensor bytes; ceilings and the
roofline follow from measurements; the plots carry titles, units and markers."""

from __future__ import annotations

import inspect

import matplotlib
import pytest
import torch

from lecture_utils import roofline
from lecture_utils.timing import Timing

matplotlib.use("Agg")


def _point(label: str, size: int, flops: int, bytes_moved: int, seconds: float):
    timing = Timing(label="", times=(seconds,), calls_per_block=1, device="cpu")
    return roofline.MatmulPoint(label=label, size=size, flops=flops, bytes_moved=bytes_moved,
                                timing=timing)


@pytest.fixture(scope="module")
def sweep():
    return roofline.time_square_matmuls([8, 32], dtype=torch.float32, device="cpu",
                                        num_threads=1, min_run_time=0.0, min_blocks=1)


def test_sweep_records_counted_flops_and_the_tensors_bytes(sweep):
    assert [p.size for p in sweep] == [8, 32]
    for p in sweep:
        # FlopCounterMode's count and the three fp32 tensors' nbytes, not a formula of ours
        assert p.flops == 2 * p.size**3
        assert p.bytes_moved == 3 * p.size**2 * 4
        assert p.label == "fp32" and p.timing.device == "cpu" and p.seconds > 0
        assert p.flops_per_second == p.flops / p.timing.median
        assert p.intensity == pytest.approx(p.size / 6)


def test_sweep_labels_dtypes_and_refuses_tf32_off_cuda():
    points = roofline.time_square_matmuls([4], dtype=torch.bfloat16, device="cpu",
                                          min_run_time=0.0, min_blocks=1)
    assert points[0].label == "bf16" and points[0].bytes_moved == 3 * 16 * 2
    with pytest.raises(ValueError, match="CUDA"):
        roofline.time_square_matmuls([4], dtype=torch.float32, device="cpu", tf32=True)
    assert roofline.dtype_label(torch.float32, tf32=True) == "tf32"
    assert roofline.dtype_label(torch.float16) == "fp16"
    with pytest.raises(ValueError, match="float32"):
        roofline.dtype_label(torch.float16, tf32=True)


def test_sweep_leaves_the_tf32_setting_alone():
    before = torch.backends.cuda.matmul.allow_tf32
    roofline.time_square_matmuls([4], dtype=torch.float32, device="cpu", min_run_time=0.0,
                                 min_blocks=1)
    assert torch.backends.cuda.matmul.allow_tf32 == before


def test_measured_ceiling_is_the_best_rate_per_label():
    points = [_point("fp32", 8, 100, 10, 1.0), _point("fp32", 16, 800, 40, 2.0),
              _point("bf16", 8, 100, 5, 0.1)]
    assert roofline.measured_ceiling(points, "fp32") == 400.0
    assert roofline.measured_ceiling(points) == 1000.0
    with pytest.raises(ValueError, match="tf32"):
        roofline.measured_ceiling(points, "tf32")
    assert list(roofline.by_label(reversed(points))) == ["bf16", "fp32"]
    assert [p.size for p in roofline.by_label(reversed(points))["fp32"]] == [8, 16]


def test_roofline_is_the_lower_of_the_two_roofs():
    # H100 SXM bf16: 989.5e12 FLOP/s over 3.35e12 bytes/s puts the ridge near 295 FLOPs/byte
    assert roofline.ridge_point(989.5e12, 3.35e12) == pytest.approx(295.37, rel=1e-4)
    assert roofline.attainable(10.0, 989.5e12, 3.35e12) == 33.5e12
    assert roofline.attainable(1000.0, 989.5e12, 3.35e12) == 989.5e12


def test_copy_bandwidth_is_a_plausible_rate():
    # a median over 0.2 s of copies: one copy can be preempted on a loaded machine
    rate = roofline.copy_bandwidth(device="cpu", nbytes=2**20, min_run_time=0.2)
    assert 1e8 < rate < 1e13  # between 0.1 GB/s and 10 TB/s on any machine


def test_plots_have_titles_units_markers_and_source_labels(sweep):
    ax = roofline.flops_vs_size_plot(sweep, title="sweep", ceilings={"fp32": 1e12})
    assert ax.get_title() == "sweep" and "FLOP/s" in ax.get_ylabel() and "n" in ax.get_xlabel()
    assert ax.lines[0].get_marker() == "o"
    assert any("datasheet" in t.get_text() for t in ax.get_legend().get_texts())

    ax = roofline.roofline_plot(sweep, ceilings={"fp32": 5e10}, bandwidth=1e10,
                                bandwidth_label="measured copy_", ceiling_kind="measured",
                                title="roofline")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("measured copy_" in t for t in legend)
    assert any(t.startswith("fp32 measured") for t in legend)
    assert "FLOPs per byte" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel()
    assert ax.get_xscale() == ax.get_yscale() == "log"


def test_helpers_cannot_be_called_like_the_exercises():
    # Notebook 04's exercises take (m, k, n), (a_shape, b_shape), (flops, seconds, peak) and
    # (m, k, n, bytes_per_element); a helper answering such a call would ship an answer
    # (tests/test_no_answers_shipped.py tries them all). Sweeps and bandwidths need keywords.
    for helper in (roofline.time_square_matmuls, roofline.copy_bandwidth):
        positional = [p for p in inspect.signature(helper).parameters.values()
                      if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert len(positional) <= 1

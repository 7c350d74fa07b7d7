import math

import pytest
import torch
from torch import nn

from lecture_utils.init_stats import (
    forward_with_weight,
    layer_stds,
    tie,
    truncated_std_factor,
    weight_stats,
)


def test_truncated_std_factor_matches_sampling():
    assert truncated_std_factor(3.0) == pytest.approx(0.98658, abs=1e-5)
    assert truncated_std_factor(50.0) == pytest.approx(1.0)
    torch.manual_seed(0)
    w = torch.nn.init.trunc_normal_(torch.empty(1_000_000), a=-2.0, b=2.0)
    assert float(w.std()) == pytest.approx(truncated_std_factor(2.0), abs=3e-3)


class _Layer(nn.Module):
    def __init__(self, d_in, d_out, std):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_in, d_out) * std)


def test_weight_stats_reports_in_units_of_one_over_sqrt_d_in():
    stats = weight_stats(lambda i, o: _Layer(i, o, 1 / math.sqrt(i)), 1024, 256)
    assert stats["std"] == pytest.approx(1.0, abs=0.01)
    assert stats["max"] > 3.5                      # untruncated: tails beyond 3 std
    assert abs(stats["mean"]) < 0.01
    again = weight_stats(lambda i, o: _Layer(i, o, 1 / math.sqrt(i)), 1024, 256)
    assert again == stats                          # seeded


def test_forward_with_weight_sets_the_weight_then_runs():
    layer = nn.Linear(2, 3, bias=False)            # weight (3, 2), forward x @ weight.T
    out = forward_with_weight(layer, [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                              torch.tensor([[1.0, 2.0]]))
    assert out.tolist() == [[1.0, 2.0, 3.0]]
    with pytest.raises(RuntimeError):
        forward_with_weight(layer, torch.zeros(2, 3), torch.ones(1, 2))


def test_tie_shares_one_parameter():
    model = tie(nn.Linear(4, 4), nn.Linear(4, 4))
    assert model[0].weight is model[1].weight
    assert len(list(model.parameters())) == 3      # parameters() lists a shared one once


def test_layer_stds_follows_the_stack():
    stds = layer_stds([lambda t: 2 * t, lambda t: 3 * t], torch.tensor([1.0, -1.0]))
    assert stds == pytest.approx([math.sqrt(2), 2 * math.sqrt(2), 6 * math.sqrt(2)])

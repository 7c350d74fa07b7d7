import gc

import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from lecture_utils import saved_tensors
from lecture_utils.probes.autograd import saves_while


def test_records_what_a_matmul_chain_saves():
    x = torch.ones(4, 3)                        # data: no gradient
    w1 = torch.randn(3, 3, requires_grad=True)
    w2 = torch.randn(3, 2, requires_grad=True)
    with saved_tensors.record_saved() as saved:
        h1 = x @ w1
        h2 = h1 @ w2
        h2.pow(2).mean()
    # x for w1's gradient; h1 and w2 for layer 2; h2 for pow. w1 serves only x's gradient.
    names = saved.names({"x": x, "w1": w1, "w2": w2, "h1": h1, "h2": h2})
    assert sorted(names) == ["h1", "h2", "w2", "x"]
    assert saved.total_bytes == (12 + 6 + 12 + 8) * 4
    assert saved.new_bytes(exclude=[x, w1, w2]) == (12 + 8) * 4
    assert len(saved) == 4 and "4 saved tensors" in str(saved)


def test_input_that_requires_grad_makes_the_first_weight_saved_too():
    x = torch.ones(4, 3, requires_grad=True)
    w1 = torch.randn(3, 3, requires_grad=True)
    with saved_tensors.record_saved() as saved:
        x @ w1
    assert sorted(saved.names({"x": x, "w1": w1})) == ["w1", "x"]


def test_shared_storage_counted_once_and_views_marked():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16, bias=False), nn.ReLU(), nn.Linear(16, 8, bias=False))
    x = torch.randn(5, 8)
    with saved_tensors.record_saved() as saved:
        model(x)
    # linear1 saves x; ReLU saves its output, which linear2 saves again, with its weight's view
    assert len(saved) == 4
    assert any(s.is_view for s in saved)                      # linear2's weight, transposed
    assert saved.new_bytes(exclude=[x, *model.parameters()]) == 5 * 16 * 4
    assert saved.total_bytes == (5 * 8 + 5 * 16 + 5 * 16 + 16 * 8) * 4
    table = saved.table({"x": x})
    assert table.splitlines()[2].startswith("x ") and "view" in table


def test_nothing_is_saved_without_grad_or_after_the_block():
    w = torch.randn(3, 3, requires_grad=True)
    with torch.no_grad(), saved_tensors.record_saved() as saved:
        torch.ones(2, 3) @ w
    assert len(saved) == 0
    with saved_tensors.record_saved() as saved:
        pass
    torch.ones(2, 3) @ w                       # after the block: not recorded
    assert len(saved) == 0 and saved.new_bytes() == 0


def test_the_record_keeps_no_tensor_alive():
    w = torch.randn(64, 64, requires_grad=True)
    with saved_tensors.record_saved() as saved:
        loss = (torch.ones(32, 64) @ w).sum()
    del loss
    gc.collect()
    assert all(isinstance(s.storage, tuple) for s in saved)
    assert not any(isinstance(v, torch.Tensor) for s in saved for v in vars(s).values())


def test_backward_still_works_under_the_hooks():
    w = torch.randn(3, 2, requires_grad=True)
    x = torch.randn(4, 3)
    with saved_tensors.record_saved():
        loss = (x @ w).pow(2).sum()
    loss.backward()
    assert torch.allclose(w.grad, x.T @ (2 * (x @ w.detach())))


def test_checkpointing_leaves_only_block_inputs_to_the_record():
    torch.manual_seed(0)
    blocks = [nn.Sequential(nn.Linear(4, 16, bias=False), nn.GELU(),
                            nn.Linear(16, 4, bias=False)) for _ in range(3)]
    x = torch.randn(2, 4)
    with saved_tensors.record_saved() as saved:
        h = x
        for block in blocks:
            h = checkpoint(block, h, use_reentrant=False, preserve_rng_state=False)
    assert [s.shape for s in saved] == [(2, 4)] * 3


def test_allocated_during_matches_the_bytes_a_forward_pass_keeps():
    torch.manual_seed(0)
    w = torch.randn(64, 128, requires_grad=True)
    x = torch.randn(32, 64)
    with saved_tensors.allocated_during("cpu") as kept:
        h = x @ w
        out = torch.relu(h)             # saves its output; h itself is kept alive by us
    assert kept.allocated == 2 * 32 * 128 * 4 and kept.peak is None
    del h, out


def test_allocated_during_restores_garbage_collection():
    assert gc.isenabled()
    with saved_tensors.allocated_during("cpu"):
        assert not gc.isenabled()
    assert gc.isenabled()


def test_allocated_during_names_the_devices_it_measures():
    with pytest.raises(ValueError, match="cpu and cuda"), saved_tensors.allocated_during("meta"):
        pass


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_allocated_during_on_cuda_counts_saved_activations():
    w = torch.randn(1024, 1024, device="cuda", requires_grad=True)
    x = torch.randn(512, 1024, device="cuda")
    (x @ w).sum().backward()                   # warm up cuBLAS outside the measurement
    w.grad = None
    with saved_tensors.allocated_during("cuda") as kept, saved_tensors.record_saved() as saved:
        h = torch.relu(x @ w)
    # relu saves its output h, which is all that stays: x @ w is freed once relu has run
    assert kept.allocated == saved.new_bytes(exclude=[x, w]) == h.nbytes == 512 * 1024 * 4
    assert kept.peak >= 2 * h.nbytes


def test_saves_while_counts_saves_and_none_for_a_hand_derived_backward():
    x, w = torch.ones(2, 3), torch.ones(3, 4)
    assert saves_while(lambda a, b: (a.T @ (a @ b)), x, w) == 0
    w_grad = w.clone().requires_grad_()

    def with_autograd() -> None:
        (x @ w_grad).sum().backward()

    assert saves_while(with_autograd) >= 1


def test_the_table_speaks_the_notebooks_language_and_keeps_its_columns():
    """The English table is the one notebook 05 stores (header, rule, rows at fixed widths);
    in Chinese the header and the "view" note are translated and every column still starts
    at the same display column in every line."""
    from lecture_utils.i18n import use_language
    from lecture_utils.tables import display_width

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16, bias=False), nn.ReLU(), nn.Linear(16, 8, bias=False))
    x = torch.randn(5, 8)
    with saved_tensors.record_saved() as saved:
        model(x)
    with use_language("en"):
        english = saved.table({"x": x}).splitlines()
    assert english[0] == f"{'tensor':<6}  {'shape':<14}  {'dtype':<15}  {'bytes':>11}  note"
    assert english[1] == f"{'-' * 6}  {'-' * 14}  {'-' * 15}  {'-' * 11}  ----"
    assert english[2] == f"{'x':<6}  {'(5, 8)':<14}  {'torch.float32':<15}  {160:>11,}"
    with use_language("zh-CN"):
        chinese = saved.table({"x": x}).splitlines()
    assert chinese[0].startswith("张量") and "视图" in "\n".join(chinese)
    assert "tensor" not in chinese[0] and "view" not in "\n".join(chinese[2:])

    rule = chinese[1].split("  ")
    edges = [display_width("  ".join(rule[:i + 1])) for i in range(len(rule))]
    header_bytes_end = display_width(chinese[0][:chinese[0].index("字节") + 2])
    row_bytes_end = display_width(chinese[2][:chinese[2].index("160") + 3])
    assert header_bytes_end == row_bytes_end == edges[3]
    assert display_width(chinese[0][:chinese[0].index("形状")]) == edges[0] + 2

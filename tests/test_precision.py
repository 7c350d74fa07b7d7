"""lecture_utils.precision: fp16's range, dtypes under autocast, master weights, the loop."""

import torch
from torch import nn

from lecture_utils import precision


def _model(dtype: torch.dtype = torch.float32) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(dtype)


def _batches(steps: int = 5) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(16, 4, generator=generator)
    return [(x, x.sum(-1, keepdim=True).sin())] * steps  # one batch: the loss must fall


def test_fp16_constants_are_fp16s_own():
    info = torch.finfo(torch.float16)
    assert precision.FP16_SMALLEST_NORMAL == info.tiny
    assert precision.FP16_SMALLEST_SUBNORMAL == info.smallest_normal * info.eps
    assert precision.FP16_MAX == info.max
    sub = torch.tensor(precision.FP16_SMALLEST_SUBNORMAL, dtype=torch.float16)
    assert sub.item() > 0 and (sub / 2).item() == 0  # nothing smaller survives


def test_activation_dtypes_follow_autocast():
    model, x = _model(), torch.randn(2, 4)
    assert precision.activation_dtypes(model, x) == {
        "0": "torch.float32", "1": "torch.float32", "2": "torch.float32"}
    inside = precision.activation_dtypes(model, x, torch.bfloat16)
    assert inside == {"0": "torch.bfloat16", "1": "torch.bfloat16", "2": "torch.bfloat16"}
    assert all(not h for h in (model[0]._forward_hooks, model[2]._forward_hooks))


def test_master_weights_match_fp32_adamw_on_the_first_step():
    reference, low = _model(), _model(torch.bfloat16)
    opt = torch.optim.AdamW(reference.parameters(), lr=1e-2)
    master = precision.MasterWeights(low, lr=1e-2)
    x, y = _batches(1)[0]
    (reference(x) - y).pow(2).mean().backward()
    (low(x.bfloat16()).float() - y).pow(2).mean().backward()
    opt.step()
    assert master.step() is True
    for ref, m, p in zip(reference.parameters(), master.master, low.parameters()):
        assert m.dtype == torch.float32 and p.dtype == torch.bfloat16
        assert torch.allclose(m, ref, atol=2e-2)   # one AdamW step moves each by ~lr
        assert torch.equal(p, m.bfloat16())        # rounded back into the model
        assert m.grad is None and p.grad is not None
    state = master.optimizer.state[master.master[0]]
    assert state["exp_avg"].dtype == state["exp_avg_sq"].dtype == torch.float32


def test_master_weights_skip_non_finite_and_can_keep_fp32_grads():
    low = _model(torch.float16)
    master = precision.MasterWeights(low, keep_fp32_grads=True, lr=1e-2)
    before = [p.clone() for p in low.parameters()]
    for p in low.parameters():
        p.grad = torch.full_like(p, float("inf"))
    assert master.step() is False
    assert all(torch.equal(a, b) for a, b in zip(before, low.parameters()))
    assert all(m.grad is None for m in master.master)
    x, y = _batches(1)[0]
    (low(x.half()).float() - y).pow(2).mean().mul(1024).backward()
    assert master.step(grad_scale=1024) is True
    assert all(p.grad is None for p in low.parameters())
    assert all(m.grad.dtype == torch.float32 for m in master.master)


def test_train_losses_fp16_needs_a_loss_scale_for_tiny_gradients():
    tiny = 2.0**-30
    fp32, zeros32 = precision.train_losses(_model(), _batches(), loss_factor=tiny)
    fp16, zeros16 = precision.train_losses(_model(), _batches(), loss_factor=tiny,
                                           autocast_dtype=torch.float16)
    scaled, zeros_s = precision.train_losses(
        _model(), _batches(), loss_factor=tiny, autocast_dtype=torch.float16,
        scaler=torch.amp.GradScaler("cpu", init_scale=2.0**24))
    assert len(fp32) == len(zeros32) == 5 and fp32[-1] < fp32[0]
    assert zeros32[0] == 0 and zeros16[0] > 0.9     # fp16 backward flushed them to zero
    assert fp16[-1] > fp32[-1] and zeros_s[0] < 0.5
    assert abs(scaled[-1] - fp32[-1]) < 0.1 * fp32[0]


def test_flat_grads_and_bytes_held():
    model = _model()
    x, y = _batches(1)[0]
    (model(x) - y).pow(2).mean().backward()
    grads = precision.flat_grads(model)
    assert grads.shape == (4 * 8 + 8 + 8 + 1,) and grads.dtype == torch.float32
    weight = model[0].weight
    assert precision.bytes_held([weight, weight, None, weight.grad]) == 2 * 32 * 4
    assert precision.bytes_held([torch.zeros(3, dtype=torch.bfloat16)]) == 6

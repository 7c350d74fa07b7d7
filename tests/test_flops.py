import torch

from lecture_utils import flops


def test_counter_agrees_with_formula_for_matmul():
    a, b = flops.random_matmul_operands(64, 32, 16)
    assert flops.count_flops(torch.matmul, a, b) == 2 * 64 * 32 * 16


def test_counter_works_on_meta_device_without_allocating():
    a = torch.empty(4096, 8192, device="meta")
    b = torch.empty(8192, 1024, device="meta")
    assert flops.count_flops(torch.mm, a, b) == 2 * 4096 * 8192 * 1024


def test_elementwise_work_counts_zero():
    x = torch.randn(100, 100)
    assert flops.count_flops(lambda t: (t * 2 + 1).relu(), x) == 0


def test_backward_of_linear_is_twice_forward():
    layer = torch.nn.Linear(32, 64, bias=False)
    x = torch.randn(8, 32, requires_grad=True)

    def step() -> None:
        layer(x).sum().backward()

    # forward 2BP, backward 4BP (input and weight gradients)
    assert flops.count_flops(step) == 6 * 8 * 32 * 64


def test_by_op_names_the_operators():
    a, b = flops.random_matmul_operands(4, 5, 6)
    assert flops.count_flops_by_op(torch.mm, a, b) == {"aten.mm": 240}


def test_random_operands_are_not_zero_and_are_reproducible():
    a1, _ = flops.random_matmul_operands(8, 8, 8, dtype=torch.bfloat16)
    a2, _ = flops.random_matmul_operands(8, 8, 8, dtype=torch.bfloat16)
    assert a1.dtype == torch.bfloat16
    assert a1.abs().sum() > 0
    assert torch.equal(a1, a2)


def test_achieved_rate_divides_the_counted_flops_not_the_formula():
    # A train step whose input needs no gradient runs 6·N·D − 2·D·d² FLOPs (the first
    # layer's input-gradient matmul is skipped); the rate must use that, not 6·N·D.
    torch.manual_seed(0)
    d, layers, tokens = 32, 3, 64
    net = torch.nn.Sequential(*[torch.nn.Linear(d, d, bias=False) for _ in range(layers)])
    x = torch.randn(tokens, d)

    def step():
        net.zero_grad(set_to_none=True)
        net(x).pow(2).mean().backward()

    rate = flops.achieved_rate(step, device="cpu", min_run_time=0.01, min_blocks=2)
    n_params = layers * d * d
    assert rate.flops == 6 * n_params * tokens - 2 * tokens * d * d
    assert rate.flops_per_second == rate.flops / rate.timing.median

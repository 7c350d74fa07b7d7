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


def test_counts_pass_keyword_arguments_and_name_ops_without_their_overload():
    """Kills: keyword arguments dropped when counting (a wrong count for ``fn(x, out=...)``-style
    calls), op names keeping ``.default`` or mangled, and a per-op count that starts at 1."""

    def mm(a, *, b):
        return a @ b

    a, b = torch.ones(4, 8), torch.ones(8, 2)
    assert flops.count_flops(mm, a, b=b) == 2 * 4 * 8 * 2
    assert flops.count_flops_by_op(mm, a, b=b) == {"aten.mm": 2 * 4 * 8 * 2}


def test_random_operands_are_the_same_every_call_and_as_asked():
    """Kills: operands seeded differently between calls (timings would not be comparable),
    or not on the device and dtype asked for."""
    a, b = flops.random_matmul_operands(3, 4, 5, dtype=torch.float64, device="meta")
    assert (a.shape, b.shape, a.dtype, b.dtype) == ((3, 4), (4, 5), torch.float64,
                                                    torch.float64)
    assert a.device.type == b.device.type == "meta"
    a1, b1 = flops.random_matmul_operands(3, 4, 5)
    a2, b2 = flops.random_matmul_operands(3, 4, 5)
    assert torch.equal(a1, a2) and torch.equal(b1, b2) and not torch.equal(a1[:, :4], b1[:, :4])
    generator = torch.Generator().manual_seed(0)
    assert torch.equal(a1, torch.randn(3, 4, generator=generator))
    assert torch.equal(b1, torch.randn(4, 5, generator=generator))


def test_achieved_rate_passes_its_timer_options():
    """Kills: achieved_rate ignoring the timing options it is given."""
    rate = flops.achieved_rate(lambda: None, warmup=0, min_run_time=0.0, min_blocks=2,
                               max_blocks=2)
    assert len(rate.timing.times) == 2


def test_counts_by_op_are_the_whole_runs_not_the_last_submodules():
    """Kills: a per-op count taken from whichever module FlopCounterMode lists last (here the
    second layer's 48 FLOPs) instead of the largest, the whole run's (240)."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 4, bias=False),
                                torch.nn.Linear(4, 2, bias=False))
    x = torch.ones(3, 8)
    assert flops.count_flops_by_op(model, x) == {"aten.mm": 2 * 3 * 8 * 4 + 2 * 3 * 4 * 2}


def test_an_op_that_does_no_work_counts_zero():
    """Kills: a per-op count that starts from 1 (an empty matmul would show one FLOP)."""
    assert flops.count_flops_by_op(lambda: torch.ones(0, 3) @ torch.ones(3, 2)) == {"aten.mm": 0}

import torch
from torch.utils.flop_counter import FlopCounterMode

from lecture_utils import flops, hardware
from lecture_utils.probes.formula import measuring_tools_called, uses_measuring_tool


def _meta(*shape: int) -> torch.Tensor:
    return torch.empty(shape, device="meta")


def test_a_formula_uses_no_tool():
    assert not uses_measuring_tool(lambda m, k, n: 2 * m * k * n, 2, 3, 4)
    # torch arithmetic that is not the counter is fine
    assert not uses_measuring_tool(lambda: (_meta(2, 3) @ _meta(3, 4)).numel() * 6)


def test_count_flops_is_seen_however_it_was_imported():
    counter = flops.count_flops  # a renamed reference to the same function

    def answer(m: int, k: int, n: int) -> int:
        return counter(torch.matmul, _meta(m, k), _meta(k, n))

    assert measuring_tools_called(answer, 2, 3, 4)[0] == "lecture_utils.flops.count_flops"


def test_flop_counter_mode_and_its_rules_are_seen():
    def by_hand() -> int:
        with FlopCounterMode(display=False) as counter:
            _meta(2, 3) @ _meta(3, 4)
        return counter.get_total_flops()

    assert measuring_tools_called(by_hand) == ["torch.utils.flop_counter"]
    from torch.utils.flop_counter import mm_flop
    assert uses_measuring_tool(lambda: mm_flop((2, 3), (3, 4)))


def test_fraction_of_peak_is_seen():
    share = hardware.fraction_of_peak
    assert measuring_tools_called(lambda: share(1.0, 2.0)) == [
        "lecture_utils.hardware.fraction_of_peak"]


def test_the_previous_profiler_is_restored_and_errors_propagate():
    import sys

    def boom() -> None:
        raise ValueError("student bug")

    before = sys.getprofile()
    try:
        uses_measuring_tool(boom)
    except ValueError:
        pass
    else:
        raise AssertionError("the exception should propagate")
    assert sys.getprofile() is before

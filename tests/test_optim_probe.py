"""The optimizer probe of notebook 07: it drives an optimizer and reports plain data."""

from __future__ import annotations

import importlib

import pytest
import torch

from lecture_utils.probes.optim import buffers, probe_groups, stepped, trajectory, uses_torch_optim


def test_trajectory_is_plain_and_deterministic():
    first = trajectory(torch.optim.SGD(probe_groups(), lr=0.1), steps=3)
    assert first == trajectory(torch.optim.SGD(probe_groups(), lr=0.1), steps=3)
    assert len(first) == 3 and all(len(step) == 15 for step in first)
    assert all(isinstance(x, float) for step in first for x in step)


def test_c_never_moves_and_d_moves_only_on_odd_steps():
    steps = trajectory(torch.optim.SGD(probe_groups(), lr=0.1), steps=4)
    c = [step[13:] for step in steps]
    d = [step[10:13] for step in steps]
    assert c[0] == c[1] == c[2] == c[3]
    assert d[0] == d[1] != d[2] == d[3]


def test_the_second_group_gets_its_own_settings():
    optimizer = torch.optim.AdamW(probe_groups({"lr": 0.5}), lr=0.1)
    assert [g["lr"] for g in optimizer.param_groups] == [0.1, 0.5]
    assert [len(g["params"]) for g in optimizer.param_groups] == [2, 2]


def test_other_parameters_are_refused():
    with pytest.raises(ValueError, match="probe_groups"):
        trajectory(torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1))


def test_buffers_follow_torchs_lazy_and_eager_state():
    assert buffers(torch.optim.AdamW(probe_groups()), steps=0) == [0, 0, 0, 0]
    assert buffers(torch.optim.AdamW(probe_groups()), steps=1) == [2, 2, 2, 0]
    assert buffers(torch.optim.Adagrad(probe_groups()), steps=0) == [1, 1, 1, 1]  # eager


def test_stepped_returns_the_optimizer_after_its_steps():
    optimizer = stepped(torch.optim.RMSprop(probe_groups()), steps=3)
    assert sorted(float(s["step"]) for s in optimizer.state.values()) == [2.0, 3.0, 3.0]


class _HandSGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.sub_(group["lr"] * p.grad)


class _Wrapper(_HandSGD):
    def step(self, closure=None):
        torch.optim.AdamW([p for g in self.param_groups for p in g["params"]]).step()


class _Functional(_HandSGD):
    def step(self, closure=None):
        params = [p for g in self.param_groups for p in g["params"] if p.grad is not None]
        torch.optim._functional.sgd(params, [p.grad for p in params], [None] * len(params),
                                    weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0,
                                    nesterov=False, maximize=False)


def test_uses_torch_optim_tells_hand_written_from_borrowed():
    assert not uses_torch_optim(_HandSGD(probe_groups()))
    assert uses_torch_optim(torch.optim.AdamW(probe_groups()))
    assert uses_torch_optim(torch.optim.SGD(probe_groups(), lr=0.1))
    assert uses_torch_optim(_Wrapper(probe_groups()))
    assert uses_torch_optim(_Functional(probe_groups()))


def test_uses_torch_optim_restores_torch():
    adam = importlib.import_module("torch.optim.adam")
    before = (torch.optim.AdamW.step, torch.optim.Adam.step, adam.adam)
    expected = trajectory(torch.optim.AdamW(probe_groups()), steps=2)
    uses_torch_optim(_Wrapper(probe_groups()))
    assert (torch.optim.AdamW.step, torch.optim.Adam.step, adam.adam) == before
    assert trajectory(torch.optim.AdamW(probe_groups()), steps=2) == expected


def test_no_grad_first_changes_the_order_in_each_group_not_the_results():
    """An optimizer that stops at a parameter without a gradient (``break`` where
    ``continue`` belongs) is caught only when such a parameter comes first."""
    groups = probe_groups(no_grad_first=True)
    assert [[tuple(p.shape) for p in g["params"]] for g in groups] == [[(2,), (2, 3)],
                                                                      [(3,), (4,)]]
    plain = trajectory(torch.optim.SGD(probe_groups(), lr=0.1), steps=2)
    assert trajectory(torch.optim.SGD(groups, lr=0.1), steps=2) == plain

    class StopsAtNoGrad(torch.optim.SGD):
        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        break
                    p.add_(p.grad, alpha=-group["lr"])

    assert trajectory(StopsAtNoGrad(probe_groups(), lr=0.1), steps=2) == plain
    assert trajectory(StopsAtNoGrad(probe_groups(no_grad_first=True), lr=0.1),
                      steps=2) != plain


class _FusedAdamW(_HandSGD):
    """torch's fused AdamW kernel, called directly: no torch.optim in sight."""

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state.update(step=torch.tensor(0.0), m=torch.zeros_like(p),
                                 v=torch.zeros_like(p))
                state["step"] += 1
                torch._fused_adamw_([p], [p.grad], [state["m"]], [state["v"]], [],
                                    [state["step"]], lr=1e-3, beta1=0.9, beta2=0.999,
                                    weight_decay=1e-2, eps=1e-8, amsgrad=False,
                                    maximize=False)


class _FusedSGDByOps(_HandSGD):
    @torch.no_grad()
    def step(self, closure=None):
        params = [p for g in self.param_groups for p in g["params"] if p.grad is not None]
        torch.ops.aten._fused_sgd_(params, [p.grad for p in params], [], weight_decay=0.0,
                                   momentum=0.0, lr=0.1, dampening=0.0, nesterov=False,
                                   maximize=False, is_first_step=True)


class _FusedAdagradByC(_HandSGD):
    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state.update(step=torch.tensor(0.0), sum=torch.zeros_like(p))
                torch._C._VariableFunctions._fused_adagrad_(
                    [p], [p.grad], [state["sum"]], [state["step"]], lr=0.01, lr_decay=0.0,
                    weight_decay=0.0, eps=1e-10, maximize=False)


def test_uses_torch_optim_sees_fused_kernels_by_any_path():
    """The fused kernels live outside torch.optim (torch._fused_adamw_, torch.ops.aten,
    torch._C): the probe watches the ops that run, not the names a step looks up."""
    fused = _FusedAdamW(probe_groups())
    assert trajectory(_FusedAdamW(probe_groups()), steps=2) == \
        trajectory(torch.optim.AdamW(probe_groups()), steps=2)
    assert uses_torch_optim(fused)
    assert uses_torch_optim(_FusedSGDByOps(probe_groups()))
    assert uses_torch_optim(_FusedAdagradByC(probe_groups()))
    assert not uses_torch_optim(_HandSGD(probe_groups()))


def test_state_dtypes_names_the_dtype_of_the_buffers():
    from lecture_utils.probes.optim import state_dtypes

    assert state_dtypes(torch.optim.AdamW(probe_groups()), steps=2) == ["torch.float64"]
    assert state_dtypes(torch.optim.SGD(probe_groups(), lr=0.1), steps=2) == []

    class Float32State(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {})

        def step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self.state[p].setdefault("buf", torch.zeros(p.shape))

    assert state_dtypes(Float32State(probe_groups())) == ["torch.float32"]


def test_grads_kept_tells_an_update_that_writes_into_grad():
    from lecture_utils.probes.optim import grads_kept

    assert grads_kept(torch.optim.AdamW(probe_groups()))
    assert grads_kept(torch.optim.SGD(probe_groups(), lr=0.1))

    class ScalesGrad(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        @torch.no_grad()
        def step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.mul_(group["lr"])
                        p.sub_(p.grad)

    assert not grads_kept(ScalesGrad(probe_groups()))


def test_python_steps_replaces_step_tensors_by_numbers():
    from lecture_utils.probes.optim import python_steps

    optimizer = python_steps(stepped(torch.optim.AdamW(probe_groups()), steps=2))
    steps = [state["step"] for state in optimizer.state.values()]
    assert steps and all(isinstance(s, float) for s in steps)
    assert all(isinstance(v, torch.Tensor) for state in optimizer.state.values()
               for k, v in state.items() if k != "step")

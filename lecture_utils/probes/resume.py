"""Probes that drive a student's training-loop pieces (notebook 09) and report plain numbers,
on the tiny model and loop of ``lecture_utils.tiny_lm``.

Nothing here seeds a run the way ``set_seed`` must, clips a gradient, computes a learning
rate or writes a checkpoint: those are the exercises. The loop takes them as arguments
(``lr_at``, ``clip``), and the probes take the student's functions and report what they did:

* ``seeded_draws(set_seed, seed)``: one draw each from Python's ``random``, NumPy's global
  generator and torch, right after ``set_seed(seed)``;
* ``clipped(clip_grad_norm, max_norm, scale)``: the returned norm and the gradients after
  clipping, on four parameters (one without a gradient) passed as a generator;
  ``uses_torch_clip(clip_grad_norm)``: whether it calls torch's own clipping;
* ``saved_part(save_checkpoint, part)``: whether the file holds the model, the optimizer
  state, the step, or each library's RNG state, and whether saving left every generator
  where it was;
* ``cuda_seeds(set_seed, seed)``: the seed each of two (fake) CUDA devices holds after
  ``set_seed(seed)``;
* ``resumed(save_checkpoint, load_checkpoint, report, steps, k)``: train ``k`` steps, save,
  build FRESH objects (another init), scramble every RNG, load, continue to ``steps``; report
  one thing about the result (or whether loading left the file as it was).
  ``straight(report, steps, k)`` is the same run without the break, for comparison.

The CUDA part is checked without a GPU: inside ``fake_cuda()`` torch.cuda reports two devices
and its RNG functions (``manual_seed(_all)``, ``get_rng_state(_all)``, ``set_rng_state(_all)``,
``seed(_all)``, ``initial_seed``) keep a 16-byte state per device (a seed and an offset, like
the Philox generator's), so a ``set_seed`` or checkpoint that leaves the GPUs out is seen on a
CPU grader. Every probe runs inside it, on any machine, so its numbers are the same everywhere.

Batches are non-overlapping chunks of a token array, the chunk index drawn with
``torch.randint`` from torch's global generator, so torch's RNG state decides the batches
as well as the dropout masks.
"""

from __future__ import annotations

import importlib
import os
import random
import tempfile
import types
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch import nn

from lecture_utils.tiny_lm import TinyLM, train_steps, write_tokens


class FakeCudaRngs:
    """What ``fake_cuda()`` puts in place of torch.cuda's RNG functions: ``n_devices``
    generator states of 16 bytes each (an int64 seed and an int64 offset), device 0 current.
    """

    def __init__(self, n_devices: int = 2) -> None:
        self.states = [self.pack(67280421310721 + i, 0) for i in range(n_devices)]

    @staticmethod
    def pack(seed: int, offset: int) -> torch.Tensor:
        return torch.from_numpy(np.array([seed, offset], dtype="<i8").view(np.uint8).copy())

    @staticmethod
    def unpack(state: torch.Tensor) -> list[int]:
        return [int(v) for v in state.numpy().view("<i8")]

    def seeds(self) -> list[list[int]]:
        """[seed, offset] of every device."""
        return [self.unpack(s) for s in self.states]

    def _index(self, device: Any = "cuda") -> int:
        if isinstance(device, int):
            return device
        index = torch.device(device).index
        return 0 if index is None else index

    def functions(self) -> dict[str, Callable[..., Any]]:
        def is_available() -> bool:
            return True

        def device_count() -> int:
            return len(self.states)

        def current_device() -> int:
            return 0

        def manual_seed(seed: int) -> None:
            self.states[0] = self.pack(int(seed), 0)

        def manual_seed_all(seed: int) -> None:
            self.states = [self.pack(int(seed), 0) for _ in self.states]

        def seed() -> None:
            manual_seed(random.SystemRandom().getrandbits(62))

        def seed_all() -> None:
            manual_seed_all(random.SystemRandom().getrandbits(62))

        def initial_seed() -> int:
            return self.unpack(self.states[0])[0]

        def get_rng_state(device: Any = "cuda") -> torch.Tensor:
            return self.states[self._index(device)].clone()

        def get_rng_state_all() -> list[torch.Tensor]:
            return [s.clone() for s in self.states]

        def set_rng_state(new_state: torch.Tensor, device: Any = "cuda") -> None:
            new_state = torch.as_tensor(new_state)
            if new_state.dtype != torch.uint8 or new_state.numel() != 16:
                raise RuntimeError("a CUDA RNG state is a 16-byte torch.uint8 tensor")
            self.states[self._index(device)] = new_state.clone()

        def set_rng_state_all(new_states: Iterable[torch.Tensor]) -> None:
            for i, new_state in enumerate(new_states):
                set_rng_state(new_state, i)

        return {f.__name__: f for f in (is_available, device_count, current_device,
                                        manual_seed, manual_seed_all, seed, seed_all,
                                        initial_seed, get_rng_state, get_rng_state_all,
                                        set_rng_state, set_rng_state_all)}


_FAKE: list[FakeCudaRngs] = []


@contextmanager
def fake_cuda(n_devices: int = 2) -> Iterator[FakeCudaRngs]:
    """Inside the block torch.cuda (and torch.cuda.random) report ``n_devices`` GPUs whose
    RNG states a ``FakeCudaRngs`` keeps; everything is restored after. ``torch.manual_seed``
    seeds them too, as it seeds real GPUs (it calls ``torch.cuda.manual_seed_all``)."""
    if _FAKE:                                      # nested: keep the outer one
        yield _FAKE[-1]
        return
    fake = FakeCudaRngs(n_devices)
    modules = [torch.cuda, importlib.import_module("torch.cuda.random")]
    saved: list[tuple[types.ModuleType, str, Any]] = []
    try:
        for name, function in fake.functions().items():
            for module in modules:
                if hasattr(module, name):
                    saved.append((module, name, getattr(module, name)))
                    setattr(module, name, function)
        _FAKE.append(fake)
        yield fake
    finally:
        _FAKE.clear()
        for module, name, original in reversed(saved):
            setattr(module, name, original)


def scramble_rngs(seed: int = 1) -> None:
    """Put Python's, NumPy's and torch's global generators in states unrelated to ``seed``'s
    usual ones, as a freshly started process would have."""
    mixed = (seed * 7919 + 104729) % 2**31
    random.seed(mixed + 1)
    np.random.seed(mixed + 2)
    torch.manual_seed(mixed + 3)
    if _FAKE:                                    # fake GPUs: each in a state of its own
        _FAKE[-1].states = [FakeCudaRngs.pack(mixed + 100 + i, 7 * i + 1)
                            for i in range(len(_FAKE[-1].states))]


def rng_draws() -> list[float]:
    """One draw from each global generator: Python ``random``, NumPy, torch."""
    return [random.random(), float(np.random.rand()), torch.rand(()).item()]


@fake_cuda()
def seeded_draws(set_seed: Callable[[int], Any], seed: int) -> list[float]:
    """``rng_draws()`` right after ``set_seed(seed)`` (the generators scrambled before, so a
    library that ``set_seed`` forgets gives another number)."""
    scramble_rngs(seed + 1)
    set_seed(seed)
    return rng_draws()


@fake_cuda()
def cuda_seeds(set_seed: Callable[[int], Any], seed: int) -> list[list[int]]:
    """[seed, offset] of each of two fake CUDA devices right after ``set_seed(seed)``, their
    states scrambled before: ``[[seed, 0], [seed, 0]]`` when every GPU was seeded (by
    ``torch.manual_seed``, which seeds them all, or ``torch.cuda.manual_seed_all``)."""
    scramble_rngs(seed + 1)
    set_seed(seed)
    return _FAKE[-1].seeds()


# ---- clipping -------------------------------------------------------------------------

def _probe_parameters(scale: float) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(3)
    params = []
    for shape, has_grad in (((2, 3), True), ((4,), True), ((3,), False), ((2,), True)):
        p = torch.randn(shape, generator=generator).requires_grad_()
        if has_grad:
            p.grad = torch.randn(shape, generator=generator) * scale
        params.append(p)
    return params


def clipped(clip_grad_norm: Callable[..., Any], max_norm: float,
            scale: float = 1.0) -> list[float]:
    """``clip_grad_norm(parameters, max_norm)`` on four float32 parameters passed as a
    generator, the third without a gradient, the others with gradients ``scale`` times a
    fixed draw: [the returned value, then the 12 gradient entries after the call]."""
    params = _probe_parameters(scale)
    returned = clip_grad_norm((p for p in params), max_norm)
    grads = [x for p in params if p.grad is not None for x in p.grad.flatten().tolist()]
    return [float(returned), *grads]


_CLIP_NAMES = {
    "torch.nn.utils": ("clip_grad_norm_", "clip_grad_norm", "get_total_norm",
                       "clip_grads_with_norm_"),
    "torch.nn.utils.clip_grad": ("clip_grad_norm_", "clip_grad_norm", "_get_total_norm",
                                 "_clip_grads_with_norm_"),
}


class _CalledTorch(Exception):
    pass


@contextmanager
def _sentinels() -> Iterator[list[str]]:
    calls: list[str] = []
    saved: list[tuple[types.ModuleType, str, Any]] = []

    def sentinel(label: str) -> Callable[..., Any]:
        def called(*_args: Any, **_kwargs: Any) -> None:
            calls.append(label)
            raise _CalledTorch(label)
        return called

    try:
        for module_name, names in _CLIP_NAMES.items():
            module = importlib.import_module(module_name)
            for name in names:
                saved.append((module, name, getattr(module, name)))
                setattr(module, name, sentinel(f"{module_name}.{name}"))
        yield calls
    finally:
        for module, name, original in reversed(saved):
            setattr(module, name, original)


def _torch_clip_functions() -> set[int]:
    return {id(getattr(importlib.import_module(m), n))
            for m, names in _CLIP_NAMES.items() for n in names}


def uses_torch_clip(clip_grad_norm: Callable[..., Any]) -> bool:
    """True if ``clip_grad_norm`` is, refers to by a global name, or calls torch's
    ``clip_grad_norm_``, ``clip_grad_norm``, ``get_total_norm`` or
    ``clip_grads_with_norm_`` while it clips the probe's gradients once."""
    originals = _torch_clip_functions()
    if id(clip_grad_norm) in originals:
        return True
    code = getattr(clip_grad_norm, "__code__", None)
    names = getattr(clip_grad_norm, "__globals__", {})
    if code is not None and any(id(names.get(n)) in originals for n in code.co_names
                                if n in names):
        return True
    with _sentinels() as calls:
        try:
            clip_grad_norm((p for p in _probe_parameters(1.0)), 0.5)
        except _CalledTorch:
            pass
    return bool(calls)


# ---- checkpoints ----------------------------------------------------------------------

@contextmanager
def one_thread() -> Iterator[None]:
    """Run torch on one CPU thread inside the block (then restore the count). Models this
    small run many times faster on one thread than on several that wait for each other, and
    the probes' numbers then do not depend on the machine's core count."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _seed_everything(seed: int) -> None:
    random.seed(seed + 11)
    np.random.seed(seed + 12)
    torch.manual_seed(seed + 13)


def _setup(init_seed: int) -> tuple[nn.Module, torch.optim.Optimizer]:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(init_seed)
        model = TinyLM(d_model=16)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2)


def _probe_tokens(folder: str) -> np.memmap:
    return write_tokens(os.path.join(folder, "tokens.bin"), 2048, seed=5)


def _run_until(k: int, folder: str) -> tuple[nn.Module, torch.optim.Optimizer, np.memmap]:
    _seed_everything(0)
    tokens = _probe_tokens(folder)
    model, optimizer = _setup(init_seed=0)
    train_steps(model, optimizer, tokens, range(k))
    random.random()          # the loop's other generators move on too
    np.random.rand()
    if _FAKE:                # and the GPUs' (dropout masks drawn there advance the offsets)
        _FAKE[-1].states = [FakeCudaRngs.pack(4242 + i, 8 * k + i) for i in range(2)]
    return model, optimizer, tokens


def _report(what: str, model: nn.Module, optimizer: torch.optim.Optimizer,
            tokens: np.ndarray, k: int, steps: int) -> Any:
    if what == "rng":
        return rng_draws()
    if what == "cuda_rng":
        return _FAKE[-1].seeds()
    if what == "params":
        flat = torch.cat([p.detach().flatten() for p in model.parameters()])
        return [flat.sum().item(), flat.pow(2).sum().item()]
    if what == "optimizer":
        states = [optimizer.state[p] for p in model.parameters() if p in optimizer.state]
        if not states:
            return [0.0, 0.0]
        return [sum(s["exp_avg_sq"].sum().item() for s in states), float(states[0]["step"])]
    losses = train_steps(model, optimizer, tokens, range(k, steps))
    if what == "losses":
        return losses
    if what == "final":
        return sum(p.detach().sum().item() for p in model.parameters())
    raise ValueError(f"report one of 'step', 'rng', 'cuda_rng', 'params', 'optimizer', 'losses', "
                     f"'final', not {what!r}")


@one_thread()
@fake_cuda()
def straight(report: str, steps: int = 6, k: int = 3) -> Any:
    """What ``resumed`` reports, from one run of ``steps`` steps without a break at ``k``."""
    folder = tempfile.mkdtemp()
    model, optimizer, tokens = _run_until(k, folder)
    if report == "step":
        return k
    if report == "file":
        return True
    return _report(report, model, optimizer, tokens, k, steps)


@one_thread()
@fake_cuda()
def resumed(save_checkpoint: Callable[..., Any], load_checkpoint: Callable[..., Any],
            report: str, steps: int = 6, k: int = 3) -> Any:
    """Train the probe model ``k`` steps, ``save_checkpoint``, then build a fresh model
    (another init) and a fresh AdamW, scramble all RNGs, ``load_checkpoint`` into them and
    report: "step" (what load returned), "rng" (``rng_draws()`` right after loading),
    "cuda_rng" ([seed, offset] of the two fake GPUs' generators right after loading), "file"
    (whether the checkpoint file is byte for byte what ``save_checkpoint`` wrote after
    ``load_checkpoint`` read it),
    "params" (sum and sum of squares of the parameters after loading), "optimizer" (sum of
    AdamW's ``exp_avg_sq`` and the first parameter's step), "losses" (of steps k … steps−1
    after loading) or "final" (sum of the parameters after them)."""
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "checkpoint.pt")
    model, optimizer, tokens = _run_until(k, folder)
    save_checkpoint(path, model, optimizer, k)
    written = _read(path)
    del model, optimizer
    scramble_rngs(k)
    model, optimizer = _setup(init_seed=99)
    step = load_checkpoint(path, model, optimizer)
    if report == "step":
        return step
    if report == "file":
        return written is not None and _read(path) == written
    return _report(report, model, optimizer, tokens, k, steps)


_PARTS = ("file", "model", "optimizer", "step", "python_rng", "numpy_rng", "torch_rng",
          "cuda_rng", "rng_kept")


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _generator_states() -> list[Any]:
    """Every global generator's state (Python, NumPy, torch's CPU one, the fake GPUs'), as
    plain lists that compare with ``==``."""
    return [_as_list(random.getstate()), _as_list(np.random.get_state()[1:]),
            torch.get_rng_state().tolist(), [s.tolist() for s in _FAKE[-1].states]]


def _walk(obj: Any) -> Iterator[Any]:
    yield obj
    if isinstance(obj, dict):
        for value in obj.values():
            yield from _walk(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from _walk(value)


def _as_list(obj: Any) -> Any:
    if isinstance(obj, (list, tuple)):
        return [_as_list(v) for v in obj]
    if isinstance(obj, (torch.Tensor, np.ndarray)):
        return obj.tolist()
    return obj


def _holds_tensor(items: list[Any], wanted: torch.Tensor) -> bool:
    for item in items:
        if isinstance(item, np.ndarray):
            item = torch.from_numpy(item)
        if isinstance(item, torch.Tensor) and item.shape == wanted.shape and \
                torch.equal(item.to(wanted.dtype), wanted):
            return True
    return False


@one_thread()
@fake_cuda()
def saved_part(save_checkpoint: Callable[..., Any], part: str) -> bool:
    """Whether the file ``save_checkpoint(path, model, optimizer, 1234)`` writes (after two
    training steps of the probe model) holds ``part``: "file" (a non-empty file at
    ``path``), "model" (every tensor of the model's state_dict), "optimizer" (AdamW's
    moments), "step" (the number 1234), "python_rng", "numpy_rng" or "torch_rng" (that
    library's generator state at the moment of saving) or "cuda_rng" (the state of each of
    the two fake GPUs); "rng_kept": whether every global generator is where it was before
    saving (a run that saves and goes on must draw what it would have drawn)."""
    if part not in _PARTS:
        raise ValueError(f"part is one of {_PARTS}")
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "checkpoint.pt")
    model, optimizer, _ = _run_until(2, folder)
    states = {"python_rng": _as_list(random.getstate()),
              "numpy_rng": np.random.get_state()[1],
              "torch_rng": torch.get_rng_state()}
    cuda_states = [s.clone() for s in _FAKE[-1].states]
    before = _generator_states()
    save_checkpoint(path, model, optimizer, 1234)
    if part == "rng_kept":
        return _generator_states() == before
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return False
    if part == "file":
        return True
    items = list(_walk(torch.load(path, weights_only=False)))
    if part == "model":
        return all(_holds_tensor(items, t) for t in model.state_dict().values())
    if part == "optimizer":
        return all(_holds_tensor(items, s[m]) for s in optimizer.state.values()
                   for m in ("exp_avg", "exp_avg_sq"))
    if part == "step":
        return any(not isinstance(i, bool) and isinstance(i, (int, float)) and i == 1234
                   or isinstance(i, torch.Tensor) and i.numel() == 1 and i.item() == 1234
                   for i in items)
    if part == "python_rng":
        return any(isinstance(i, (list, tuple)) and _as_list(i) == states["python_rng"]
                   for i in items)
    if part == "numpy_rng":
        key = torch.from_numpy(states["numpy_rng"].astype(np.int64))
        return _holds_tensor(items, key) or any(
            isinstance(i, (list, tuple)) and _as_list(i) == key.tolist() for i in items)
    if part == "cuda_rng":
        return all(_holds_tensor(items, s) for s in cuda_states)
    return _holds_tensor(items, states["torch_rng"])

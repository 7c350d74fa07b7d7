"""lecture_utils.resume_probe: the tiny model, its loop, and the probes notebook 09 grades with."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
import torch

from lecture_utils import tiny_lm
from lecture_utils.probes import resume as rp


def _set_seed(seed):  # a correct set_seed, for the probes (the test's own, not shipped)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def _save(path, model, optimizer, step):
    torch.save({"m": model.state_dict(), "o": optimizer.state_dict(), "s": step,
                "r": (random.getstate(), np.random.get_state(), torch.get_rng_state())}, path)


def _load(path, model, optimizer):
    c = torch.load(path, weights_only=False)
    model.load_state_dict(c["m"])
    optimizer.load_state_dict(c["o"])
    random.setstate(c["r"][0])
    np.random.set_state(c["r"][1])
    torch.set_rng_state(c["r"][2])
    return c["s"]


def _load_without_rng(path, model, optimizer):
    c = torch.load(path, weights_only=False)
    model.load_state_dict(c["m"])
    optimizer.load_state_dict(c["o"])
    return c["s"]


def _torch_clip(parameters, max_norm):
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)


def test_write_tokens_is_a_deterministic_uint16_memmap(tmp_path):
    state = torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate()
    tokens = tiny_lm.write_tokens(tmp_path / "a.bin", 1000, vocab=50, seed=3)
    again = tiny_lm.write_tokens(tmp_path / "b.bin", 1000, vocab=50, seed=3)
    assert isinstance(tokens, np.memmap) and tokens.dtype == np.uint16
    assert os.path.getsize(tmp_path / "a.bin") == 2000
    assert np.array_equal(tokens, again) and tokens.max() < 50
    assert not np.array_equal(tokens, tiny_lm.write_tokens(tmp_path / "c.bin", 1000, 50, seed=4))
    # no global generator moved
    assert torch.equal(torch.get_rng_state(), state[0])
    assert np.array_equal(np.random.get_state()[1], state[1]) and random.getstate() == state[2]


def test_chunk_batch_takes_aligned_chunks_chosen_by_torch(tmp_path):
    tokens = np.arange(10 * 9, dtype=np.uint16)  # 10 chunks of context + 1 = 9 tokens
    torch.manual_seed(0)
    x, y = tiny_lm.chunk_batch(tokens, 6, 8)
    assert x.shape == y.shape == (6, 8) and x.dtype == torch.int64
    assert torch.equal(x[:, 1:], y[:, :-1])           # targets are the next tokens
    assert bool((x[:, 0] % 9 == 0).all())             # each row starts a chunk
    torch.manual_seed(0)
    assert torch.equal(tiny_lm.chunk_batch(tokens, 6, 8)[0], x)


def test_tiny_lm_shapes_and_dropout():
    torch.manual_seed(0)
    model = tiny_lm.TinyLM(d_model=16, dropout=0.5)
    x = torch.randint(tiny_lm.VOCAB, (2, 5))
    assert model(x).shape == (2, 5, tiny_lm.VOCAB)
    assert not torch.equal(model(x), model(x))        # train mode: fresh dropout masks
    model.eval()
    assert torch.equal(model(x), model(x))


def test_train_steps_sets_the_rate_and_clips_every_step(tmp_path):
    tokens = tiny_lm.write_tokens(tmp_path / "t.bin", 4096)
    torch.manual_seed(0)
    model = tiny_lm.TinyLM(d_model=16)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    seen = []

    def clip(parameters, max_norm):
        seen.append((len(list(parameters)), max_norm))

    losses = tiny_lm.train_steps(model, optimizer, tokens, range(3, 7), lr_at=lambda s: s / 10,
                            clip=clip, max_norm=0.3)
    assert len(losses) == 4 and all(isinstance(v, float) for v in losses)
    assert seen == [(5, 0.3)] * 4 and optimizer.param_groups[0]["lr"] == 0.6


def test_scramble_and_seeded_draws():
    _set_seed(5)
    a = rp.rng_draws()
    _set_seed(5)
    rp.scramble_rngs(5)
    b = rp.rng_draws()
    assert all(x != y for x, y in zip(a, b))          # scrambling is not seeding
    assert rp.seeded_draws(_set_seed, 5) == a
    only_torch = rp.seeded_draws(torch.manual_seed, 5)
    assert only_torch[2] == a[2] and only_torch[0] != a[0] and only_torch[1] != a[1]


def test_clipped_matches_torch_and_passes_a_generator():
    kinds = []

    def spy(parameters, max_norm):
        kinds.append(type(parameters).__name__)
        return 0.0

    unclipped = rp.clipped(spy, 1.0)
    assert kinds == ["generator"] and len(unclipped) == 13 and unclipped[0] == 0.0
    reference = rp.clipped(_torch_clip, 1.0)
    assert reference[0] == pytest.approx(3.0292617, rel=1e-6)
    assert reference[1:] == pytest.approx([v / (3.0292617 + 1e-6) for v in unclipped[1:]],
                                          rel=1e-5)
    assert rp.clipped(_torch_clip, 100.0)[1:] == unclipped[1:]


def test_uses_torch_clip_finds_calls_and_aliases_and_restores_torch():
    from torch.nn.utils import clip_grad_norm_ as alias
    original = torch.nn.utils.clip_grad_norm_

    def by_alias(parameters, max_norm):
        return alias(parameters, max_norm)

    def by_hand(parameters, max_norm):
        grads = [p.grad for p in parameters if p.grad is not None]
        total = torch.sqrt(sum((g ** 2).sum() for g in grads))
        for g in grads:
            g.mul_(min(1.0, max_norm / (total.item() + 1e-6)))
        return total

    assert rp.uses_torch_clip(_torch_clip) and rp.uses_torch_clip(by_alias)
    assert rp.uses_torch_clip(torch.nn.utils.clip_grad_norm_)
    assert rp.uses_torch_clip(lambda ps, m: torch.nn.utils.get_total_norm(
        [p.grad for p in ps if p.grad is not None]))
    assert not rp.uses_torch_clip(by_hand)
    assert torch.nn.utils.clip_grad_norm_ is original
    assert rp.clipped(by_hand, 1.0) == pytest.approx(rp.clipped(_torch_clip, 1.0), rel=1e-5)


def test_saved_part_looks_inside_the_file():
    parts = ("file", "model", "optimizer", "step", "python_rng", "numpy_rng", "torch_rng")
    assert all(rp.saved_part(_save, p) for p in parts)

    def model_only(path, model, optimizer, step):
        torch.save(model.state_dict(), path)

    assert [rp.saved_part(model_only, p) for p in parts] == [True, True] + [False] * 5
    assert not any(rp.saved_part(lambda *args: None, p) for p in parts)
    with pytest.raises(ValueError):
        rp.saved_part(_save, "gradients")


def test_resumed_equals_straight_only_with_the_rng_states():
    for report in ("step", "rng", "params", "optimizer", "losses", "final"):
        assert rp.resumed(_save, _load, report) == rp.straight(report), report
    assert rp.resumed(_save, _load, "losses", steps=8, k=5) == rp.straight("losses", 8, 5)
    assert rp.resumed(_save, _load_without_rng, "params") == rp.straight("params")
    assert rp.resumed(_save, _load_without_rng, "rng") != rp.straight("rng")
    assert rp.resumed(_save, _load_without_rng, "losses") != rp.straight("losses")


def test_one_thread_restores_the_thread_count():
    before = torch.get_num_threads()
    with rp.one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def _save_with_gpus(path, model, optimizer, step):
    torch.save({"m": model.state_dict(), "o": optimizer.state_dict(), "s": step,
                "r": (random.getstate(), np.random.get_state(), torch.get_rng_state(),
                      torch.cuda.get_rng_state_all())}, path)


def _load_with_gpus(path, model, optimizer):
    step = _load(path, model, optimizer)
    torch.cuda.set_rng_state_all(torch.load(path, weights_only=False)["r"][3])
    return step


def test_fake_cuda_keeps_two_gpu_states_and_restores_torch_cuda():
    originals = (torch.cuda.is_available, torch.cuda.manual_seed_all, torch.cuda.get_rng_state)
    with rp.fake_cuda() as fake:
        assert torch.cuda.is_available() and torch.cuda.device_count() == 2
        torch.manual_seed(7)                       # seeds the (fake) GPUs too, as on real ones
        assert fake.seeds() == [[7, 0], [7, 0]]
        torch.cuda.manual_seed(9)                  # the current device only
        assert fake.seeds() == [[9, 0], [7, 0]]
        states = torch.cuda.get_rng_state_all()
        torch.cuda.manual_seed_all(1)
        torch.cuda.set_rng_state_all(states)
        assert fake.seeds() == [[9, 0], [7, 0]]
        assert torch.cuda.get_rng_state(1).dtype == torch.uint8
        with pytest.raises(RuntimeError):
            torch.cuda.set_rng_state(torch.zeros(3))
    assert (torch.cuda.is_available, torch.cuda.manual_seed_all,
            torch.cuda.get_rng_state) == originals


def test_cuda_seeds_tells_every_gpu_from_the_cpu_only():
    assert rp.cuda_seeds(_set_seed, 2026) == [[2026, 0], [2026, 0]]

    def cpu_only(seed):
        random.seed(seed)
        np.random.seed(seed)
        torch.default_generator.manual_seed(seed)

    assert rp.cuda_seeds(cpu_only, 2026) != [[2026, 0], [2026, 0]]
    assert rp.seeded_draws(cpu_only, 2026) == rp.seeded_draws(_set_seed, 2026)


def test_gpu_rng_states_are_graded_without_a_gpu():
    assert rp.saved_part(_save_with_gpus, "cuda_rng")
    assert not rp.saved_part(_save, "cuda_rng")
    assert rp.resumed(_save_with_gpus, _load_with_gpus, "cuda_rng") == rp.straight("cuda_rng")
    assert rp.resumed(_save_with_gpus, _load, "cuda_rng") != rp.straight("cuda_rng")
    assert rp.resumed(_save_with_gpus, _load_with_gpus, "losses") == rp.straight("losses")


def test_saving_must_leave_every_generator_and_loading_the_file_alone():
    """``saved_part(..., "rng_kept")``: a save that draws a random number (here: a temporary
    name for an atomic write) moves Python's generator, so a run that saves every N steps and
    goes on differs from one that never saves; ``resumed(..., "file")``: a load that deletes
    or rewrites the checkpoint it was asked to read."""
    assert rp.saved_part(_save, "rng_kept") and rp.saved_part(_save_with_gpus, "rng_kept")

    def save_via_random_name(path, model, optimizer, step):
        temporary = f"{path}.{random.randrange(10**6)}"
        _save(temporary, model, optimizer, step)
        os.replace(temporary, path)

    def save_seeding_torch(path, model, optimizer, step):
        _save(path, model, optimizer, step)
        torch.manual_seed(step)

    assert rp.saved_part(save_via_random_name, "model")
    assert not rp.saved_part(save_via_random_name, "rng_kept")
    assert not rp.saved_part(save_seeding_torch, "rng_kept")
    assert rp.resumed(_save, _load, "file") is True and rp.straight("file") is True

    def load_and_delete(path, model, optimizer):
        step = _load(path, model, optimizer)
        os.remove(path)
        return step

    assert rp.resumed(_save, load_and_delete, "file") is False
    assert rp.resumed(_save, load_and_delete, "losses") == rp.straight("losses")

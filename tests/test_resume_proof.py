"""Resumption across processes, with notebook 09's own solutions.

The notebook proves in one kernel that k steps + save + load into fresh objects + N − k
steps equals N straight steps, bit for bit. A real restart is a new process: nothing shared in
memory, generators in whatever state a fresh interpreter starts with. Here three separate
Python processes run the instructor notebook's solution cells (``set_seed``, ``cosine_lr``,
``clip_grad_norm``, ``save_checkpoint``, ``load_checkpoint``) in the notebook's training loop
(dropout, batches drawn with torch's RNG from a token memmap, the cosine schedule, clipping,
AdamW):

* ``straight``: N steps;
* ``first``: k steps, then ``save_checkpoint``, then exits;
* ``second``: a new interpreter builds a model with another initialisation and a fresh
  optimizer, ``load_checkpoint``s and trains the remaining N − k steps.

Parameters (compared with ``torch.equal``) and losses (compared with ``==``) must match. A
fourth process loads a copy of the checkpoint whose RNG states were replaced by the loading
process's own (what a checkpoint without them amounts to): its results must differ, so this
test would fail if the RNG states were not saved and restored.

Mutation used to check this test: drop ``torch.set_rng_state(...)`` from the notebook's
``load_checkpoint``; ``test_resumed_in_a_new_process_is_bitwise_the_straight_run`` fails.

This file is also the worker: ``python tests/test_resume_proof.py MODE FOLDER``.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ASSIGNMENT = "09_training_loop_and_checkpoints"
N, K = 30, 11
SETTINGS = {"batch_size": 16, "context": 32, "max_norm": 0.4}

pytestmark = pytest.mark.slow


def _solutions() -> dict:
    """The notebook's import statements and solution cells, executed in one namespace."""
    sys.path.insert(0, str(REPO))
    from autograder.course import instructor_notebook
    from autograder.notebook import read_notebook

    namespace: dict = {}
    cells = read_notebook(instructor_notebook(ASSIGNMENT)).cells
    for cell in cells:
        if cell.cell_type != "code" or cell.source.lstrip().startswith("%"):
            continue
        imports = [n for n in ast.parse(cell.source).body
                   if isinstance(n, (ast.Import, ast.ImportFrom))]
        exec(compile(ast.Module(imports, []), "<imports>", "exec"), namespace)  # noqa: S102
    for cell in cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            exec(cell.source, namespace)  # noqa: S102
    return namespace


def _worker(mode: str, folder: Path) -> None:
    import torch

    from lecture_utils import tiny_lm

    ns = _solutions()
    torch.set_num_threads(1)
    tokens = tiny_lm.write_tokens(folder / "tokens.bin", 16_384, seed=2)

    def lr_at(step: int) -> float:
        return ns["cosine_lr"](step, 3e-3, 3e-4, 5, N)

    def fresh(init_seed: int):
        torch.manual_seed(init_seed)
        model = tiny_lm.TinyLM(d_model=64, dropout=0.1)
        return model, torch.optim.AdamW(model.parameters(), lr=0.0, weight_decay=0.1)

    def train(model, optimizer, steps):
        return tiny_lm.train_steps(model, optimizer, tokens, steps, lr_at=lr_at,
                              clip=ns["clip_grad_norm"], **SETTINGS)

    if mode in ("straight", "first"):
        ns["set_seed"](0)
        model, optimizer = fresh(0)
        losses = train(model, optimizer, range(N if mode == "straight" else K))
        if mode == "first":
            ns["save_checkpoint"](str(folder / "checkpoint.pt"), model, optimizer, K)
    else:  # "second" or "second_without_rng": a new process, fresh objects
        model, optimizer = fresh(12345)
        path = folder / "checkpoint.pt"
        if mode == "second_without_rng":
            import random

            import numpy as np

            checkpoint = torch.load(path, weights_only=False)
            assert set(checkpoint["rng"]) >= {"python", "numpy", "torch"}
            checkpoint["rng"].update(python=random.getstate(), numpy=np.random.get_state(),
                                     torch=torch.get_rng_state())
            path = folder / "checkpoint_without_rng.pt"
            torch.save(checkpoint, path)
        step = ns["load_checkpoint"](str(path), model, optimizer)
        assert step == K
        losses = train(model, optimizer, range(step, N))
    torch.save(model.state_dict(), folder / f"{mode}_params.pt")
    (folder / f"{mode}_losses.json").write_text(json.dumps(losses))


def _run(mode: str, folder: Path) -> None:
    result = subprocess.run([sys.executable, __file__, mode, str(folder)], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("resume")
    for mode in ("straight", "first", "second", "second_without_rng"):
        _run(mode, folder)
    return folder


def _result(folder: Path, mode: str):
    import torch

    return (json.loads((folder / f"{mode}_losses.json").read_text()),
            torch.load(folder / f"{mode}_params.pt"))


def test_resumed_in_a_new_process_is_bitwise_the_straight_run(runs):
    import torch

    straight_losses, straight_params = _result(runs, "straight")
    first_losses, _ = _result(runs, "first")
    second_losses, second_params = _result(runs, "second")
    assert len(straight_losses) == N and len(first_losses) == K
    assert first_losses + second_losses == straight_losses
    assert straight_params.keys() == second_params.keys()
    assert all(torch.equal(straight_params[n], second_params[n]) for n in straight_params)


def test_without_the_rng_states_the_resumed_run_differs(runs):
    straight_losses, straight_params = _result(runs, "straight")
    losses, params = _result(runs, "second_without_rng")
    assert losses[0] != straight_losses[K]            # other batches from the first step on
    assert len(losses) == N - K
    difference = max((straight_params[n] - params[n]).abs().max().item() for n in params)
    assert difference > 1e-4


if __name__ == "__main__":
    _worker(sys.argv[1], Path(sys.argv[2]))

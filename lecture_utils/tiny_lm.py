"""A tiny language model and its training loop, for notebook 09's demonstrations and for the
probes that grade its exercises (``lecture_utils.probes.resume``).

``TinyLM`` is a bigram model (each position on its own) with dropout, so its loss falls within a
few steps and every forward pass draws random masks; ``chunk_batch`` draws batches with torch's
global generator. Together they make a run whose result depends on every RNG a checkpoint must
restore.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import torch
from torch import nn

VOCAB = 64


class TinyLM(nn.Module):
    """Embedding → dropout → MLP → logits over the vocabulary (each position on its own:
    a bigram model, enough to have a loss that falls and dropout that draws random masks)."""

    def __init__(self, vocab: int = VOCAB, d_model: int = 32, dropout: float = 0.1) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.hidden = nn.Linear(d_model, 4 * d_model)
        self.out = nn.Linear(4 * d_model, vocab)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.drop(self.embed(x))
        return self.out(self.drop(torch.nn.functional.gelu(self.hidden(h))))


def write_tokens(path: str | os.PathLike, n_tokens: int, vocab: int = VOCAB,
                 seed: int = 0) -> np.memmap:
    """Write ``n_tokens`` uint16 tokens to ``path`` and return them as a read-only memmap.

    The text is a noisy walk (the next token is usually the current one plus 1, 2 or 3), so
    a bigram model can learn it. Uses its own NumPy generator: no global RNG is touched."""
    rng = np.random.default_rng(seed)
    steps = rng.choice([1, 2, 3], size=n_tokens, p=[0.6, 0.3, 0.1])
    noise = rng.random(n_tokens) < 0.1
    tokens = np.cumsum(steps) % vocab
    tokens[noise] = rng.integers(0, vocab, size=int(noise.sum()))
    tokens.astype(np.uint16).tofile(path)
    return np.memmap(path, dtype=np.uint16, mode="r")


def chunk_batch(tokens: np.ndarray, batch_size: int, context: int,
                device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """``batch_size`` of the non-overlapping ``context + 1``-token chunks of ``tokens``,
    chosen with ``torch.randint`` (torch's global RNG): inputs and next-token targets."""
    n_chunks = len(tokens) // (context + 1)
    index = torch.randint(n_chunks, (batch_size,)).tolist()
    rows = np.stack([tokens[i * (context + 1):(i + 1) * (context + 1)] for i in index])
    chunk = torch.from_numpy(rows.astype(np.int64)).to(device)
    return chunk[:, :-1], chunk[:, 1:]


def loss_on(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    logits = model(x)
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def train_steps(model: nn.Module, optimizer: torch.optim.Optimizer, tokens: np.ndarray,
                steps: Iterable[int], *, lr_at: Callable[[int], float] | None = None,
                clip: Callable[[Iterator[torch.Tensor], float], Any] | None = None,
                max_norm: float = 1.0, batch_size: int = 8, context: int = 16) -> list[float]:
    """One optimizer step per step number in ``steps`` on batches from ``chunk_batch``; the
    losses as floats. ``lr_at(step)`` sets every group's learning rate first, ``clip``
    (e.g. your ``clip_grad_norm``) is called as ``clip(model.parameters(), max_norm)``."""
    model.train()
    device = next(model.parameters()).device
    losses = []
    for step in steps:
        if lr_at is not None:
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
        x, y = chunk_batch(tokens, batch_size, context, device)
        loss = loss_on(model, x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if clip is not None:
            clip(model.parameters(), max_norm)
        optimizer.step()
        losses.append(loss.item())
    return losses

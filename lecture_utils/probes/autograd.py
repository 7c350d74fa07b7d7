"""Whether a student's function builds an autograd graph (notebook 05's hand-written backward).

A backward pass written by hand needs no graph: it multiplies the saved inputs by the incoming
gradient. ``saves_while`` counts the tensors autograd was asked to save while a function ran,
through ``lecture_utils.saved_tensors.record_saved``, so a check can tell a derivation from a
call to ``torch.autograd.grad``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lecture_utils.saved_tensors import record_saved


def saves_while(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """How many tensors autograd was asked to save for a backward pass while
    ``fn(*args, **kwargs)`` ran: 0 for code that builds no graph (a hand-derived backward on
    inputs that need no gradient), more for code that records one and calls ``.backward()``
    or ``torch.autograd.grad``. ``torch.func`` transforms refuse to run under the hooks
    this uses, so they raise instead."""
    with record_saved() as saved:
        fn(*args, **kwargs)
    return len(saved)

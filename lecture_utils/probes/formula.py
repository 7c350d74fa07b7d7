"""Does a student's function compute its answer, or ask a measuring tool for it?

Notebooks 02b, 04 and 05 ask for formulas: the FLOPs of an einsum and of a matmul (plain and
batched), an arithmetic intensity, the FLOPs of a forward and a backward pass. Each notebook
also has tools that *measure* those numbers (``FlopCounterMode``,
``lecture_utils.flops.count_flops``), to check the formulas against. A function that calls
one of them returns the right number without the formula the exercise asks for.
(``hardware.fraction_of_peak`` is watched too, but no exercise bans it any more: an MFU is one
division, and any helper doing it is fine.)

``uses_measuring_tool(fn, *args)`` calls ``fn(*args)`` once and says whether any of those
tools ran meanwhile. It watches Python calls with ``sys.setprofile``, by code object, so it
sees the tools however they were imported or renamed. The checks call it; a notebook never
needs it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import torch.utils.flop_counter

from lecture_utils import flops, hardware

_COUNTER_FILE = str(Path(torch.utils.flop_counter.__file__).resolve())


def _watched_codes() -> dict[CodeType, str]:
    tools = {
        flops.count_flops: "lecture_utils.flops.count_flops",
        flops.count_flops_by_op: "lecture_utils.flops.count_flops_by_op",
        flops.achieved_rate: "lecture_utils.flops.achieved_rate",
        hardware.fraction_of_peak: "lecture_utils.hardware.fraction_of_peak",
    }
    return {fn.__code__: name for fn, name in tools.items()}


def measuring_tools_called(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[str]:
    """Call ``fn(*args, **kwargs)`` and return the measuring tools it ran, in the order first
    seen: names from ``lecture_utils`` or ``"torch.utils.flop_counter"`` (FlopCounterMode
    and its counting rules). An exception from ``fn`` propagates."""
    watched = _watched_codes()
    seen: list[str] = []
    files: dict[str, bool] = {}

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        name = watched.get(code)
        if name is None:
            inside = files.get(code.co_filename)
            if inside is None:
                try:
                    inside = str(Path(code.co_filename).resolve()) == _COUNTER_FILE
                except (OSError, ValueError):
                    inside = False
                files[code.co_filename] = inside
            if inside:
                name = "torch.utils.flop_counter"
        if name is not None and name not in seen:
            seen.append(name)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        fn(*args, **kwargs)
    finally:
        sys.setprofile(previous)
    return seen


def uses_measuring_tool(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """True if ``fn(*args, **kwargs)`` ran FlopCounterMode (or anything else of
    ``torch.utils.flop_counter``), ``count_flops``, ``count_flops_by_op``, ``achieved_rate``
    or ``fraction_of_peak`` while it computed its answer."""
    return bool(measuring_tools_called(fn, *args, **kwargs))

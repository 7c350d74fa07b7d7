"""Demos that use the student's own solutions.

A demo cell that calls a graded function runs inside ``uses_exercise(n)``. Until exercise ``n``
is written, its stub raises NotImplementedError: the cell then says which exercise to finish,
instead of failing, so "Run All" on a fresh student notebook still reaches the end. The
solutions themselves never live in ``lecture_utils``: a demo shows what *your* function gives.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from lecture_utils.i18n import tr, tr_format


def _names(numbers: tuple[int, ...]) -> str:
    words = [str(n) for n in numbers]
    if len(words) == 1:
        return tr_format("exercise {number}", number=words[0])
    return tr_format("exercises {numbers} and {last}", numbers=tr(", ").join(words[:-1]),
                     last=words[-1])


def unfinished_message(*numbers: int) -> str:
    return tr_format("Finish {exercises} above to see this.", exercises=_names(numbers))


@contextmanager
def uses_exercise(*numbers: int) -> Iterator[None]:
    """Run a demo built on the solutions of exercises ``numbers``; report, don't fail, when one
    is unfinished (NotImplementedError) or gives another result than the lecture's (an
    ``assert`` in the demo)."""
    if not numbers:
        raise ValueError("name the exercise(s) this demo uses, e.g. uses_exercise(2)")
    figures = _open_figures()
    try:
        yield
    except NotImplementedError:
        _close_figures_since(figures)
        print(unfinished_message(*numbers))
    except AssertionError:
        _close_figures_since(figures)
        print(tr_format("This demo expected the lecture's numbers, and your {exercises} gave "
                        "something else: run the test cells above to see what is off.",
                        exercises=_names(numbers)))


def _open_figures() -> set[int]:
    pyplot = sys.modules.get("matplotlib.pyplot")  # never imported here: only if loaded
    return set(pyplot.get_fignums()) if pyplot else set()


def _close_figures_since(before: set[int]) -> None:
    """Close the figures a demo opened before it stopped: the notebook would otherwise show
    a half-drawn plot (with no alt text) at the end of the cell."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    for number in set(pyplot.get_fignums()) - before if pyplot else ():
        pyplot.close(number)


class Unfilled(dict):
    """A graded table (a dict the student fills in) before it is filled in: looking up a
    key it lacks raises NotImplementedError, which the checks report as "not implemented
    yet", rather than a KeyError that would look like a wrong key."""

    def __missing__(self, key: object) -> None:
        raise NotImplementedError(f"{key!r} is not in the table yet")

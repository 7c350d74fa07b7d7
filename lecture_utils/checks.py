"""Graded checks written as data.

A test cell in a notebook is a list of ``Case`` literals and one call to ``check``::

    check([
        Case("training_flops(70e9, 15e12)", 6.3e24, "the lecture's 70B model on 15T tokens"),
    ])

Each case is an expression to evaluate in the notebook (the student's code), the plain value
it must produce (numbers, bools, strings, None, and lists of those), a tolerance, a reason
shown when it fails, and optionally known wrong values with a message for each (``hints``,
told in place of the comparison when a result matches one). Keeping cases as literals means
a grader can read them straight from the instructor's notebook, run only the expressions
where the student's code lives, and compare the plain results somewhere that code cannot
reach. ``evaluate`` and ``judge`` are those two halves; ``check`` is both, run in the
notebook for students and for nbgrader.
"""

from __future__ import annotations

import math
import numbers
import re
import reprlib
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from lecture_utils.i18n import N_, tr, tr_format

# The numeric policy, one for every notebook. A float is judged at a relative tolerance that
# float32 arithmetic meets (its rounding is 6e-8 a step; a few steps stay under 1e-6), so a
# right answer computed in float32, with torch or NumPy, passes. An int expected value is a
# count, a size in bytes, an offset or a bit pattern: exact, unless the case gives a tolerance
# of its own. ``exact=True`` makes a float exact too (the sign of zero included).
DEFAULT_REL = 1e-6
# Ratios that usually mean a specific slip (bytes vs bits, forward-only FLOPs, a missing 2, ...).
_TELLTALE_FACTORS = (2, 3, 4, 6, 8, 16, 1000, 1024, 1e6, 2**20, 1e9, 2**30, 86400, 3600)


@dataclass(frozen=True)
class Case:
    call: str
    expect: Any
    why: str = ""
    rel: float = DEFAULT_REL
    abs: float = 0.0
    # None: exact for an int expected value (and each int in a list), tolerant for a float;
    # True: every number exact; False: every number within rel/abs.
    exact: bool | None = None
    # True: each number must be a whole-number type (a Python or NumPy int, a 0-d integer
    # tensor); a float fails even when whole (12.0 bytes). For counts and sizes.
    integer: bool = False
    # Known wrong values and what each one means: ((value, message), ...). A result that
    # matches one (within rel/abs) is told that message; see hint_for.
    hints: tuple[tuple[Any, str], ...] = ()


class Unplain(TypeError):
    """A result that is not a plain value the grader can compare; its text is the case's
    error (``NOT_COMPARABLE`` or ``TOO_LARGE``)."""


def to_plain(value: Any) -> Any:
    """Convert a result to JSON-friendly plain data, or raise ``Unplain``.

    Scalars from numpy or 0-d tensors become Python numbers; tuples, ``torch.Size`` and
    tensors become lists; dtypes become their names (``"torch.float32"``).
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().tolist()
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):  # compared like a tensor: its shape kept, as lists
        return to_plain(value.tolist())
    if isinstance(value, np.dtype):
        return str(value)  # "int64", never equal to a torch dtype's "torch.int64"
    if isinstance(value, np.generic):  # numpy scalars, incl. numpy bool
        return to_plain(value.item())
    raise Unplain(NOT_COMPARABLE.format(kind=type(value).__name__))


@dataclass(frozen=True)
class Outcome:
    """What evaluating a case gave: a plain value, or the error it raised (as text)."""

    value: Any = None
    error: str | None = None


def evaluate(case: Case, namespace: dict[str, Any]) -> Outcome:
    """Evaluate ``case.call`` in ``namespace`` and reduce the result to plain data."""
    try:
        return Outcome(value=to_plain(eval(case.call, namespace)))  # noqa: S307 - the point
    except NotImplementedError:
        return Outcome(error=NOT_IMPLEMENTED)
    except Unplain as problem:
        return Outcome(error=str(problem))
    except Exception as problem:  # the student's error, reported, never re-raised
        return Outcome(error=RAISED.format(error=type(problem).__name__, message=problem))


# What evaluating a case can give in place of a value (here or in the sandbox, which knows no
# language): each an English template, made in English and shown by ``localized_error`` in
# the reader's language. Each value's pattern says what may fill it, so a text parses back
# into one template only.
NOT_IMPLEMENTED = N_("is not implemented yet (it raised NotImplementedError)")
NOT_COMPARABLE = N_("returned a {kind}, which the checks cannot compare")
RAISED = N_("raised {error}: {message}")
RAISED_WITHOUT_MESSAGE = N_("raised {error}")
TIMED_OUT = N_("timed out after {seconds} s")
SKIPPED_AFTER_TIMEOUT = N_("skipped: an earlier check of this exercise timed out")
TOO_LARGE = N_("returned a value too large to grade")
NOT_SENDABLE = N_("returned a value that cannot be sent back ({problem})")
CASE_ERRORS = (NOT_IMPLEMENTED, NOT_COMPARABLE, RAISED, RAISED_WITHOUT_MESSAGE, TIMED_OUT,
               SKIPPED_AFTER_TIMEOUT, TOO_LARGE, NOT_SENDABLE)
# a class name, the student's own text (kept as it is), a number of seconds
_CASE_ERROR_VALUES = {"kind": r"\w+", "error": r"\w+", "message": r".*", "problem": r".*",
                      "seconds": r"[0-9.e+-]+"}


def _parser(template: str) -> re.Pattern[str]:
    """What a filled-in ``template`` looks like, each value a named group."""
    pieces = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(
        re.escape(piece) if i % 2 == 0 else f"(?P<{piece}>{_CASE_ERROR_VALUES[piece]})"
        for i, piece in enumerate(pieces)), re.DOTALL)


_CASE_ERROR_PARSERS = [(template, _parser(template)) for template in CASE_ERRORS]


def localized_error(error: str) -> str:
    """An ``Outcome.error`` (English: it may come from a sandbox that knows no language) in
    the current language; a text that fits no ``CASE_ERRORS`` template is shown as it is."""
    for template, parser in _CASE_ERROR_PARSERS:
        if match := parser.fullmatch(error):
            return tr_format(template, **match.groupdict())
    return error


_SHORT = reprlib.Repr()  # a value in a message: a few levels, items and characters of it
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring = 3, 8, 8, 120


def _describe(x: Any, digits: int = 6) -> str:
    """``x`` as a message shows it: short however large or deep the value is."""
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 100:
        return tr_format("an integer of about {digits} digits",
                         digits=int(x.bit_length() * math.log10(2)) + 1)
    try:
        return _SHORT.repr(x)
    except Exception:  # noqa: BLE001 - a value too odd to show is named by its type
        return tr_format("a {kind}", kind=type(x).__name__)


def _describe_pair(got: Any, expect: Any) -> tuple[str, str]:
    """Both values, with as many digits as it takes to tell them apart (0.800000011920929
    and 0.8, not 0.8 and 0.8)."""
    for digits in range(6, 17):
        shown = _describe(got, digits), _describe(expect, digits)
        if shown[0] != shown[1]:
            return shown
    # the shortest text that reads back as each float (0.1 and 0.10000000000000002)
    return tuple(repr(x) if isinstance(x, float) else _describe(x) for x in (got, expect))


def _as_float(x: float) -> float:
    """``x`` as a float; an integer too large for one is an infinity of its sign."""
    try:
        return float(x)
    except OverflowError:  # (copysign would convert x to a float, and overflow again)
        return math.inf if x > 0 else -math.inf


def _factor_hint(got: float, expect: float) -> str:
    got, expect = _as_float(got), _as_float(expect)
    if not got or not expect or not math.isfinite(got / expect):
        return ""
    ratio = got / expect
    for factor in _TELLTALE_FACTORS:
        for candidate, words in ((factor, tr_format("{factor}× too large", factor=f"{factor:g}")),
                                 (1 / factor, tr_format("{factor}× too small",
                                                        factor=f"{factor:g}"))):
            if math.isclose(ratio, candidate, rel_tol=1e-6):
                return tr_format(" ({telltale})", telltale=words)
    return ""


def is_exact(expect: Any, rel: float, abs_tol: float, exact: bool | None) -> bool:
    """Whether a number expected as ``expect`` must be matched exactly (see DEFAULT_REL)."""
    if exact is not None:
        return exact
    return (isinstance(expect, int) and not isinstance(expect, bool)
            and rel == DEFAULT_REL and abs_tol == 0)


def _all_exact(expect: Any, rel: float, abs_tol: float) -> bool:
    """Whether every number in ``expect`` (a number or nested lists) is judged exactly."""
    if isinstance(expect, (list, tuple)):
        return all(_all_exact(item, rel, abs_tol) for item in expect)
    if isinstance(expect, numbers.Real) and not isinstance(expect, bool):
        return is_exact(expect, rel, abs_tol, None)
    return True


def _number_mismatch(got: Any, expect: Any, rel: float, abs_tol: float,
                     exact: bool | None, integer: bool = False) -> str | None:
    if integer and isinstance(got, float):
        return tr_format("returned {got}, a float; expected an int, {expect}: a count or a "
                         "size is a whole number, so keep its arithmetic in integers",
                         got=repr(got), expect=_describe(expect))
    if isinstance(got, bool) or not isinstance(got, numbers.Real):
        if isinstance(got, list):  # a tensor or array of numbers where one number is asked
            return tr_format("returned {got}, a list or tensor; expected one number, {expect}: "
                             "return a Python number (float(x), int(x) or x.item())",
                             got=_describe(got), expect=_describe(expect))
        return tr_format("returned {got}; expected a number, {expect}",
                         got=_describe(got), expect=_describe(expect))
    if math.isnan(_as_float(expect)):  # (an int may be too large for isnan)
        return None if math.isnan(_as_float(got)) else _returned(got, math.nan)
    if isinstance(got, int) and isinstance(expect, int) and got == expect:
        return None  # exact, however large
    if is_exact(expect, rel, abs_tol, exact):
        # Python compares an int with a float by value, exactly: 2**63 + 22 != float(2**63)
        if got == expect and (expect != 0 or math.copysign(1, got) == math.copysign(1, expect)):
            return None
        if expect == 0 == got:
            return tr_format("returned {got}; expected exactly {expect}: the sign of zero "
                             "counts here", got=_describe(got), expect=_describe(expect))
        if math.isclose(_as_float(got), _as_float(expect), rel_tol=DEFAULT_REL):
            # close enough to pass a float's tolerance: say why it still fails
            shown_got, shown_expect = _describe_pair(got, expect)
            return tr_format("returned {got}; expected exactly {expect} (this result must be "
                             "exact: rounded through a float?)", got=shown_got,
                             expect=shown_expect)
        return _returned(got, expect) + _factor_hint(got, expect)
    if math.isclose(_as_float(got), _as_float(expect), rel_tol=rel, abs_tol=abs_tol):
        return None
    return _returned(got, expect) + _factor_hint(got, expect)


def _mismatch(got: Any, expect: Any, rel: float, abs_tol: float,
              exact: bool | None = None, integer: bool = False) -> str | None:
    """Why ``got`` does not match ``expect``, or None if it does."""
    if isinstance(expect, bool):
        if not isinstance(got, bool):
            return tr_format("returned {got} ({kind}); expected a bool, {expect}",
                             got=_describe(got), kind=type(got).__name__, expect=expect)
        return None if got == expect else _returned(got, expect)
    if isinstance(expect, numbers.Real):
        return _number_mismatch(got, expect, rel, abs_tol, exact, integer)
    if isinstance(expect, (list, tuple)):
        if not isinstance(got, list) or len(got) != len(expect):
            return tr_format("returned {got}; expected {n} items: {expect}",
                             got=_describe(got), n=len(expect), expect=repr(list(expect)))
        for i, (g, e) in enumerate(zip(got, expect)):
            problem = _mismatch(g, e, rel, abs_tol, exact, integer)
            if problem:
                return tr_format("item {i}: {problem}", i=i, problem=problem)
        return None
    return None if got == expect else _returned(got, expect)


def _returned(got: Any, expect: Any) -> str:
    shown_got, shown_expect = _describe_pair(got, expect)
    return tr_format("returned {got}; expected {expect}", got=shown_got, expect=shown_expect)


def judge(case: Case, outcome: Outcome) -> str | None:
    """A failure message for one case, or None if it passed. Pure: plain data in and out.

    A result that matches one of the case's hints is told the hint's message in place of
    the comparison with the expected value.
    """
    if outcome.error:
        problem = localized_error(outcome.error)
    else:
        problem = _mismatch(outcome.value, case.expect, case.rel, case.abs, case.exact,
                            case.integer)
    if problem is None:
        return None
    hint = None if outcome.error else hint_for(case, outcome.value)
    if hint:  # a known slip: its message says more than the comparison would
        problem = tr_format("returned {got}: {hint}", got=_describe(outcome.value), hint=hint)
    why = f"  [{tr(case.why)}]" if case.why else ""
    return f"{case.call} {problem}{why}"


def hint_for(case: Case, value: Any) -> str | None:
    """The message of the first known wrong value that ``value`` matches, or None.

    Matching uses the case's own tolerance, so a hint covers exactly the results that the
    same comparison would have accepted had the wrong value been the expected one.
    """
    exact = case.exact
    if exact is None:  # a known wrong value is matched as the case judges its expected value
        exact = _all_exact(case.expect, case.rel, case.abs)
    for wrong, message in case.hints:
        try:
            if _mismatch(value, wrong, case.rel, case.abs, exact, case.integer) is None:
                return tr(message)
        except Exception:  # noqa: BLE001 - an odd value simply matches no hint
            continue
    return None


def failure_report(failures: list[str], total: int) -> str:
    """The text a failed test shows: how many checks failed, then one line per failure."""
    return "\n".join([failed_header(len(failures), total), *(f"- {m}" for m in failures)])


def failed_header(failed: int, total: int) -> str:
    return tr_format("{failed} of {total} checks failed:", failed=failed, total=total)


def passed_line(total: int) -> str:
    return tr_format("All {total} checks passed.", total=total)


# ANSI red, as IPython colours an exception's name; Jupyter renders the codes in error output.
_RED, _RESET = "\x1b[0;31m", "\x1b[0m"


class CheckFailed(AssertionError):
    """Raised by ``check`` when cases fail; ``str()`` is the whole ``failure_report``.

    An AssertionError, so nbgrader and pytest count it as a failed test like any assert.
    In IPython (a notebook) it shows as its failure list only: the stack frames above it
    are this module's, which say nothing about the student's code.
    """

    def __init__(self, failures: list[str], total: int) -> None:
        super().__init__(failure_report(failures, total))
        self.failures = list(failures)
        self.total = total

    def __reduce__(self) -> tuple[type[CheckFailed], tuple[list[str], int]]:
        # Exceptions pickle as cls(*args), and args here is the report; rebuild from the parts.
        return type(self), (self.failures, self.total)

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows in place of the traceback (IPython's
        ``InteractiveShell.showtraceback`` uses this method when an exception has it)."""
        header = f"{type(self).__name__}: {failed_header(len(self.failures), self.total)}"
        return [f"{_RED}{header}{_RESET}", *(f"- {m}" for m in self.failures)]


def check(cases: list[Case], namespace: dict[str, Any] | None = None) -> None:
    """Run every case; raise one ``CheckFailed`` listing all failures, or print a pass line."""
    if namespace is None:
        namespace = sys._getframe(1).f_globals  # the notebook's globals
    failures = [msg for case in cases if (msg := judge(case, evaluate(case, namespace)))]
    if failures:
        raise CheckFailed(failures, len(cases))
    print(passed_line(len(cases)))

"""tensor_bytes returns 10**400 (a float cannot hold it: math.isclose raised OverflowError,
and the notebook was marked crashed with 0 points)."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, submit, with_answer

STUDENT = 'value-huge-int'
EXPECT = Expect("graded", FULL - 1)


def build(submitted: Path) -> None:
    submit(submitted, STUDENT, with_answer("def tensor_bytes(x):\n    return 10**400\n"))

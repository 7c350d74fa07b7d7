"""A copy of a graded solution cell (same grade_id, another id) placed before the real one,
holding a wrong answer: the copy was the one shown as graded in formgrader and the
feedback. The real cell, later, decides (it runs last); the copy is flagged."""

from __future__ import annotations

import json
from pathlib import Path

from hostile._kit import FULL, Expect, cell, solution, submit

STUDENT = 'duplicated-solution'
EXPECT = Expect("graded", FULL, ("claims to be the graded cell tensor_bytes",))


def build(submitted: Path) -> None:
    nb = solution()
    real = cell(nb, "tensor_bytes")
    copy = json.loads(json.dumps(real))
    copy["id"], copy["source"] = "my-copy", "def tensor_bytes(x):\n    return 0\n"
    nb["cells"].insert(nb["cells"].index(real), copy)
    submit(submitted, STUDENT, nb)

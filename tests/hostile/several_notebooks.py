"""No notebook by the right name, but two others: which one is the submission?"""

from __future__ import annotations

import json
from pathlib import Path

from hostile._kit import INVALID, Expect, folder, solution

STUDENT = 'several-notebooks'
EXPECT = Expect(INVALID, 0, ("2 other notebooks", "mine.ipynb"))


def build(submitted: Path) -> None:
    path = folder(submitted, STUDENT)
    for name in ("mine.ipynb", "mine-v2.ipynb"):
        (path / name).write_text(json.dumps(solution()))

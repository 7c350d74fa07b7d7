"""A markdown cell with images of the instructor's own server (/logout through localhost,
127.0.0.1, [::1] and 0.0.0.0): opening the submission in formgrader would log them out."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = 'logout-image'
EXPECT = Expect("graded", FULL, ("removed",))


def build(submitted: Path) -> None:
    nb = solution()
    images = "".join(f'<img src="http://{h}:8888/logout">' for h in
                     ("localhost", "127.0.0.1", "[::1]", "0.0.0.0"))
    nb["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": images})
    submit(submitted, STUDENT, nb)

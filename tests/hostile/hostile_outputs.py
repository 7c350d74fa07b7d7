"""Outputs of the wrong shape: a string for outputs, an output with a list for data, an
execution_count of "7". They are discarded, so harmless: graded."""

from __future__ import annotations

from pathlib import Path

from hostile._kit import FULL, Expect, solution, submit

STUDENT = 'hostile-outputs'
EXPECT = Expect("graded", FULL)


def build(submitted: Path) -> None:
    nb = solution()
    nb["cells"][2:2] = [
        {"cell_type": "code", "metadata": {}, "source": "", "outputs": "boom",
         "execution_count": "7"},
        {"cell_type": "code", "metadata": {}, "source": "",
         "outputs": [{"output_type": "display_data", "data": []}]}]
    submit(submitted, STUDENT, nb)

"""A self-study reader checks their work without a terminal: in JupyterLab they save, add a
cell with `%check_my_work`, run it, and see the grader's table (hidden tests included) for
the notebook they have open, as saved.

The working copy holds notebook 02 of the Chinese edition answered, except one exercise
answered wrongly: the table, in Chinese, must show that exercise at 0 and the rest at full
marks. (This is the browser suite's round trip of a Chinese submission through the grader;
the English table is test_check_cli's.)
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import nbformat
import pytest
from support.lab import SHOWN, open_notebook
from support.submissions import perfect_submission, with_answer
from wrong_answers import WRONG_ANSWERS

from autograder.course import instructor_notebook
from autograder.notebook import grade_id, nbgrader_meta, read_notebook
from autograder.translate.build import translate_notebook

ASSIGNMENT = "02_strides_and_views"  # among the quickest notebooks to run
NOTEBOOK = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"


def _points() -> dict[str, float]:
    return {grade_id(c): nbgrader_meta(c)["points"]
            for c in read_notebook(instructor_notebook(ASSIGNMENT)).cells
            if nbgrader_meta(c).get("grade")}


WRONG_ONE = next(iter(WRONG_ANSWERS[ASSIGNMENT]))  # the first exercise, answered wrongly


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    workspace = tmp_path_factory.mktemp("reader") / "workspace"
    (workspace / NOTEBOOK).parent.mkdir(parents=True)
    wrong = WRONG_ANSWERS[ASSIGNMENT][WRONG_ONE][0]
    answered = with_answer(perfect_submission(ASSIGNMENT), WRONG_ONE, wrong)
    nbformat.write(translate_notebook(answered, "zh-CN", ASSIGNMENT)[0], workspace / NOTEBOOK)
    return workspace


def test_check_my_work_shows_the_graders_table_in_lab(page, lab_url):
    open_notebook(page, lab_url, NOTEBOOK)  # no cell run: the magic needs no import
    page.locator(f"{SHOWN} .jp-Cell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")           # a new cell below the last one
    page.keyboard.press("Enter")       # edit it
    page.keyboard.type("%check_my_work")
    page.keyboard.press("Shift+Enter")
    # the last cell that mentions the magic (the Colab setup cell at the top does too, and
    # Shift+Enter adds an empty cell after ours)
    output = page.locator(f"{SHOWN} .jp-CodeCell").filter(has_text="%check_my_work").last \
        .locator(".jp-OutputArea")
    deadline = time.time() + 600  # the grader runs every cell of the notebook again
    while "总分：" not in (output.text_content() or ""):
        assert time.time() < deadline, f"no table after 10 min:\n{output.text_content()}"
        page.wait_for_timeout(1_000)
    text = output.text_content()
    points = _points()
    total = sum(points.values())
    lost = points[f"test_{WRONG_ONE}"]
    assert "正在检查" in text and Path(NOTEBOOK).name in text
    assert re.search(rf"总分：{total - lost:g}/{total:g}\b", text), text
    assert re.search(rf"test_{WRONG_ONE}\s+0/{lost:g}\s", text), text

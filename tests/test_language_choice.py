"""Which language a notebook's messages are in: the kernel (``lecture_utils.i18n``), ``check``
and ``grade`` choose alike. A language the notebook declares wins; ``LECTURE_LANGUAGE``
applies only to a notebook that declares none. No kernel is started."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.check import language_of
from autograder.notebook import read_submission_and_language
from lecture_utils.i18n import ENVIRONMENT_VARIABLE, current_language, open_notebook, use_language

ZH = "zh-CN"


def _notebook(folder: Path, name: str, declares: str | None) -> Path:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title")])
    if declares is not None:
        notebook.metadata["lecture"] = {"language": declares}
    path = folder / name
    nbformat.write(notebook, path)
    return path


@pytest.mark.parametrize(("declares", "environment", "expected"), [
    (None, None, "en"),
    (None, ZH, ZH),  # the English release, with LECTURE_LANGUAGE=zh-CN
    (ZH, None, ZH),
    (ZH, "en", ZH),  # the notebook's own language wins over the variable
    ("en", ZH, "en"),
])
def test_the_kernel_check_and_grade_choose_the_same_language(
        tmp_path, monkeypatch, declares, environment, expected):
    path = _notebook(tmp_path, "mine.ipynb", declares)
    if environment is not None:
        monkeypatch.setenv(ENVIRONMENT_VARIABLE, environment)
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))  # what jupyter_server tells the kernel
    assert current_language() == expected
    assert language_of(path) == expected  # python -m autograder check
    assert read_submission_and_language(path)[1] == expected  # python -m autograder grade


def test_without_a_notebook_the_variable_chooses_and_the_grader_overrides_both(
        tmp_path, monkeypatch):
    assert current_language() == "en"
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "zh_cn")  # a kernel outside JupyterLab (VS Code)
    assert current_language() == ZH
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "klingon")  # not a course language: English
    assert current_language() == "en"
    monkeypatch.setenv("JPY_SESSION_NAME", str(_notebook(tmp_path, "zh.ipynb", ZH)))
    with use_language("en"):  # the grader judging one submission
        assert current_language() == "en"
    assert current_language() == ZH


def test_a_renamed_notebook_keeps_its_language_until_the_kernel_restarts(
        tmp_path, monkeypatch):
    path = _notebook(tmp_path, "before.ipynb", ZH)
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    assert current_language() == ZH
    path.rename(tmp_path / "after.ipynb")  # Jupyter's name for it is now stale
    assert open_notebook() is None
    assert current_language() == ZH
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "never-seen.ipynb"))
    assert current_language() == "en"


def test_the_open_notebook_is_found_beside_the_kernel(tmp_path, monkeypatch):
    path = _notebook(tmp_path, "01.ipynb", None)
    monkeypatch.chdir(tmp_path)
    # the server names it relative to its root; the kernel runs in the notebook's folder
    assert open_notebook("course/01.ipynb") == tmp_path / "01.ipynb"
    assert open_notebook(str(path)) == path
    assert open_notebook("console-1") is None
    assert open_notebook(str(tmp_path / "gone.ipynb")) is None
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    assert open_notebook() == path

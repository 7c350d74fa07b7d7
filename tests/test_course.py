"""Reading notebooks and recognising which assignment one belongs to (no grading)."""

import shutil

import pytest
from support.submissions import perfect_submission, with_answer

from autograder.course import RELEASE, identify, instructor_notebook
from autograder.notebook import NotebookError, read_notebook

NB = "01_tensors_and_memory"


def test_identified_by_name():
    path = RELEASE / NB / f"{NB}.ipynb"
    assert identify(path, read_notebook(path)) == NB


def test_renamed_copy_is_identified_by_its_graded_cells(tmp_path):
    copy = tmp_path / f"{NB}-Copy1.ipynb"
    shutil.copy(RELEASE / NB / f"{NB}.ipynb", copy)
    assert identify(copy, read_notebook(copy)) == NB


def test_instructor_and_student_versions_share_grade_ids():
    from autograder.notebook import grade_ids

    solution = grade_ids(read_notebook(instructor_notebook(NB)))
    student = grade_ids(read_notebook(RELEASE / NB / f"{NB}.ipynb"))
    assert solution == student


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "is not a text file"),
        (b'{"cells": [', "is not valid JSON (line 1, column 12"),
        (b"[1, 2, 3]", "is JSON but not a Jupyter notebook"),
        (b'{"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
         "is not one of this course's notebooks"),
    ],
)
def test_bad_files_get_one_clear_error(tmp_path, content, problem):
    path = tmp_path / "homework.ipynb"
    path.write_bytes(content)
    with pytest.raises(NotebookError) as raised:
        identify(path, read_notebook(path))
    assert str(raised.value).startswith(f"{path}: {problem}")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(NotebookError, match="no such file"):
        read_notebook(tmp_path / "nope.ipynb")
    with pytest.raises(NotebookError, match="is not a file"):
        read_notebook(tmp_path)


def test_with_answer_changes_one_cell_of_a_copy():
    perfect = perfect_submission(NB)
    changed = with_answer(perfect, "tensor_bytes", "def tensor_bytes(x):\n    return 0\n")
    sources = [(a.source, b.source) for a, b in zip(perfect.cells, changed.cells, strict=True)]
    differing = [pair for pair in sources if pair[0] != pair[1]]
    assert differing == [(differing[0][0], "def tensor_bytes(x):\n    return 0\n")]
    assert "x.numel() * x.element_size()" in differing[0][0]  # the original is untouched
    with pytest.raises(KeyError, match="no_such_exercise"):
        with_answer(perfect, "no_such_exercise", "")

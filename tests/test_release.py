"""notebooks/ is generated from solutions/ and must never drift from it."""

import json

import pytest

from autograder.course import RELEASE, assignments, grade_ids, read_notebook
from autograder.release import release


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    release(release_dir=out, use_db=False)
    return out


def test_there_are_assignments():
    assert {"00_napkin_math", "01_tensors_and_memory"} <= set(assignments())


def test_release_has_exactly_the_assignments():
    assert sorted(p.name for p in RELEASE.iterdir() if p.is_dir()) == assignments()


@pytest.mark.parametrize("assignment", assignments())
def test_student_notebook_is_what_release_generates(assignment, fresh_release):
    committed = RELEASE / assignment / f"{assignment}.ipynb"
    generated = fresh_release / assignment / f"{assignment}.ipynb"
    assert json.loads(committed.read_text()) == json.loads(generated.read_text()), (
        f"{committed} differs from what solutions/ generates: run `python -m autograder release`"
    )


@pytest.mark.parametrize("assignment", assignments())
def test_student_notebook_has_no_solutions_hidden_tests_or_outputs(assignment):
    notebook = read_notebook(RELEASE / assignment / f"{assignment}.ipynb")
    text = json.dumps(notebook)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")
    assert any(id_.startswith("test_") for id_ in grade_ids(notebook))

"""Reading an instructor notebook's checks as data (no execution)."""

import copy

import pytest

from autograder.colab import is_colab_cell
from autograder.course import RELEASE, assignments, instructor_notebook
from autograder.notebook import read_notebook
from autograder.sanitize import sanitize_notebook
from autograder.spec import SpecError, load_spec, needed_for_grading, parse_cases, strip_hidden
from autograder.translate.build import release_dir

SOURCE = '''check([
    Case("f(1)", 2, "doubles"),
    ### BEGIN HIDDEN TESTS
    Case("f(0.5)", 1.0, rel=1e-6),
    ### END HIDDEN TESTS
    Case("f(-1)", -2),
])'''


def test_cases_and_hidden_flags():
    cases, hidden = parse_cases(SOURCE, "here")
    assert [c.call for c in cases] == ["f(1)", "f(0.5)", "f(-1)"]
    assert [c.expect for c in cases] == [2, 1.0, -2]
    assert cases[1].rel == 1e-6 and cases[0].why == "doubles"
    assert hidden == (False, True, False)


def test_strip_hidden_matches_nbgrader_release():
    assert "f(0.5)" not in strip_hidden(SOURCE)
    assert "f(-1)" in strip_hidden(SOURCE) and "HIDDEN" not in strip_hidden(SOURCE)


@pytest.mark.parametrize("assignment", assignments())
def test_released_test_cells_equal_the_stripped_instructor_cells(assignment):
    """What the grader expects a student's test cell to be is what nbgrader released."""
    spec = load_spec(instructor_notebook(assignment))
    released = {c.metadata["nbgrader"]["grade_id"]: c.source
                for c in read_notebook(RELEASE / assignment / f"{assignment}.ipynb").cells
                if c.metadata.get("nbgrader", {}).get("grade")}
    assert set(released) == set(spec.checks)
    for grade_id, check in spec.checks.items():
        assert released[grade_id].strip() == check.student_source.strip()
        assert any(check.hidden), f"{grade_id} has no hidden cases"
        assert not all(check.hidden), f"{grade_id} has no visible cases"


@pytest.mark.parametrize(
    ("source", "problem"),
    [("check([Case('f()', 1 + 1)])", "must be literals"),
     ("check([])", "no Case"),
     ("check([", "not valid Python")],
)
def test_non_data_test_cells_are_rejected(source, problem):
    with pytest.raises(SpecError, match=problem):
        parse_cases(source, "nb, cell 3")


def test_which_unchanged_instructor_cells_run():
    assert needed_for_grading("import torch\n_ = torch.manual_seed(0)")
    assert needed_for_grading("def f():\n    return 1\n\nclass A:\n    pass\n")
    assert not needed_for_grading("x = torch.randn(1000, 1000)\nprint(x.sum())")
    assert not needed_for_grading("%%gpu_only\nimport torch")


def test_a_chinese_submissions_released_prose_is_kept_as_released():
    """The Chinese release's markdown is the course's: sanitising a Chinese copy keeps it
    (not rewritten as a student's own cells, whose heading ids and anchors change)."""
    assignment = "02_strides_and_views"
    spec = load_spec(instructor_notebook(assignment))
    path = release_dir("zh-CN") / assignment / f"{assignment}.ipynb"
    chinese = read_notebook(path)
    # the Colab badge and setup cell are the release's, not the instructor notebook's: the
    # feedback page leaves them out before sanitising (autograder.record), and so does this
    chinese.cells = [c for c in chinese.cells if not is_colab_cell(c)]
    sanitised = copy.deepcopy(chinese)
    assert sanitize_notebook(sanitised, grade_ids=set(spec.released_meta),
                             released=spec.released_markdown) == {}
    assert [c.source for c in sanitised.cells if c.cell_type == "markdown"] == \
        [c.source for c in chinese.cells if c.cell_type == "markdown"]

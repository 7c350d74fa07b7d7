"""Real nbgrader grading of real submissions: a gradebook, kernels, the instructor's tests.

For each assignment one course directory receives, as separate students:
- ``solution``: the instructor notebook itself, which must score full marks;
- ``untouched``: the student notebook as released, which must run to the end and score 0;
Both are graded in one ``nbgrader autograde`` run per assignment. Stock nbgrader runs every
submission in a fresh kernel, top to bottom (~10 s each here), so wrong answers are graded
elsewhere, with the same ``check`` and judge: each exercise's first wrong answer alone, through
``python -m autograder grade`` in ``test_answer_variants.py`` (it loses exactly its exercise,
with a message naming the function), and every known answer in ``test_audit_course.py``.
"""

from __future__ import annotations

import nbformat
import pytest
from support.nbgrader_course import Course, stock_results
from wrong_answers import WRONG_ANSWERS

from autograder.course import RELEASE, assignments, instructor_notebook
from autograder.preprocessors.tag_test_cells import is_test_cell

pytestmark = pytest.mark.slow
# Every exercise must have at least two known wrong answers (tests/answers/).
WRONG_PER_EXERCISE = 2


def _solution_cells(notebook):
    return {c.metadata["nbgrader"]["grade_id"]: c for c in notebook.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


# Built once per notebook in each test process and kept, whatever order the notebook's tests
# come in (a module fixture with params is built again each time its param changes).
_GRADED: dict[str, tuple] = {}


@pytest.fixture(params=assignments())
def graded(request, tmp_path_factory):
    if request.param not in _GRADED:
        _GRADED[request.param] = _grade(request.param, tmp_path_factory)
    return _GRADED[request.param]


def _grade(assignment: str, tmp_path_factory) -> tuple:
    course = Course(tmp_path_factory.mktemp(f"course-{assignment}"))
    course.add_assignment(assignment)
    solution = nbformat.read(instructor_notebook(assignment), as_version=4)
    course.submit("solution", assignment, instructor_notebook(assignment))
    course.submit("untouched", assignment, RELEASE / assignment / f"{assignment}.ipynb")
    course.autograde(assignment)
    results = {s: stock_results(course, s, assignment, s) for s in ["solution", "untouched"]}
    results["untouched"].ran = nbformat.read(course.autograded("untouched", assignment),
                                             as_version=4)
    return assignment, results, solution


@pytest.mark.parametrize("assignment", assignments())
def test_every_exercise_has_two_wrong_answers(assignment):
    solution = nbformat.read(instructor_notebook(assignment), as_version=4)
    exercises = set(_solution_cells(solution))
    answers = WRONG_ANSWERS.get(assignment, {})
    few = sorted(g for g in exercises if len(answers.get(g, [])) < WRONG_PER_EXERCISE)
    assert not few, f"fewer than {WRONG_PER_EXERCISE} wrong answers for {few} in tests/answers/"


def test_solution_scores_full_marks(graded):
    _, results, _ = graded
    result = results["solution"]
    assert result.max_score > 0
    assert result.score == result.max_score, result.table()


def test_untouched_student_version_scores_zero_on_every_graded_cell(graded):
    _, results, _ = graded
    result = results["untouched"]
    assert [t.points for t in result.tests] == [0] * len(result.tests)
    for test in result.tests:
        assert "is not implemented yet" in test.message, test


def test_untouched_student_version_fails_only_in_its_test_cells(graded):
    """The release as a student first runs it (here in nbgrader's kernel, which goes on past
    every error): only test cells fail, each demo built on an exercise says which one to
    finish, and the last cell ran. JupyterLab's Run All, which stops at an untagged error,
    runs it in tests/browser/; the tag that lets it go on is checked in test_release.py."""
    _, results, _ = graded
    ran = results["untouched"].ran
    code = [c for c in ran.cells if c.cell_type == "code"]
    failed = [c for c in code if any(o.output_type == "error" for o in c.outputs)]
    assert failed and all(is_test_cell(c) for c in failed), [c.source[:80] for c in failed]
    text = "\n".join(o.get("text", "") for c in code for o in c.outputs)
    assert "Finish exercise" in text
    assert code[-1].outputs, "the last cell did not run"

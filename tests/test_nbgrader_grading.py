"""Real nbgrader grading of real submissions: a gradebook, kernels, the instructor's tests.

For each assignment one course directory receives, as separate students:
- ``solution``: the instructor notebook itself, which must score full marks;
- ``untouched``: the student notebook as released, which must run to the end and score 0;
- ``wrong-<exercise>-<i>``: the solution with one exercise replaced by a plausible wrong
  answer, which must lose exactly that exercise's points and keep all the others.
All of them are graded in one ``nbgrader autograde`` run per assignment.
"""

from __future__ import annotations

import nbformat
import pytest
from wrong_answers import WRONG_ANSWERS

from autograder.course import RELEASE, assignments, instructor_notebook, with_answer
from autograder.nbgrader_course import Course, stock_results
from autograder.results import PASSED

pytestmark = pytest.mark.slow


def _solution_cells(notebook):
    return {c.metadata["nbgrader"]["grade_id"]: c for c in notebook.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


@pytest.fixture(scope="module", params=assignments())
def graded(request, tmp_path_factory):
    assignment = request.param
    course = Course(tmp_path_factory.mktemp(f"course-{assignment}"))
    course.add_assignment(assignment)
    solution = nbformat.read(instructor_notebook(assignment), as_version=4)
    course.submit("solution", assignment, instructor_notebook(assignment))
    course.submit("untouched", assignment, RELEASE / assignment / f"{assignment}.ipynb")
    wrong = {}
    for grade_id, answers in WRONG_ANSWERS.get(assignment, {}).items():
        for i, source in enumerate(answers):
            student = f"wrong-{grade_id}-{i}"
            course.submit(student, assignment, with_answer(solution, grade_id, source))
            wrong[student] = grade_id
    course.autograde(assignment)
    results = {s: stock_results(course, s, assignment, s)
               for s in ["solution", "untouched", *wrong]}
    return assignment, results, wrong, solution


def test_every_exercise_has_a_wrong_answer(graded):
    assignment, _, wrong, solution = graded
    assert set(_solution_cells(solution)) == set(wrong.values())


def test_solution_scores_full_marks(graded):
    _, results, _, _ = graded
    result = results["solution"]
    assert result.max_score > 0
    assert result.score == result.max_score, result.table()


def test_untouched_student_version_scores_zero_on_every_graded_cell(graded):
    _, results, _, _ = graded
    result = results["untouched"]
    assert [t.points for t in result.tests] == [0] * len(result.tests)
    for test in result.tests:
        assert "is not implemented yet" in test.message, test


def test_each_wrong_answer_loses_exactly_its_exercise(graded):
    _, results, wrong, _ = graded
    full = {t.grade_id: t.max_points for t in results["solution"].tests}
    for student, grade_id in wrong.items():
        got = {t.grade_id: t.points for t in results[student].tests}
        expected = dict(full, **{f"test_{grade_id}": 0})
        assert got == expected, f"{student}:\n{results[student].table()}"
        failed = next(t for t in results[student].tests if t.grade_id == f"test_{grade_id}")
        # the message names the failing call, so the student knows where to look
        assert failed.status != PASSED and f"{grade_id}(" in failed.message, failed

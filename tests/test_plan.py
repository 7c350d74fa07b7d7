"""Planning a submission: tamper detection and the steps the sandbox will run."""

import copy
import json

import nbformat
import pytest
from support.submissions import perfect_submission

from autograder.course import RELEASE, instructor_notebook
from autograder.notebook import grade_id as grade_id_of
from autograder.plan import InvalidSubmission, plan_submission
from autograder.spec import load_spec, needed_for_grading

A = "01_tensors_and_memory"


@pytest.fixture(scope="module")
def spec():
    return load_spec(instructor_notebook(A))


def _write(tmp_path, notebook):
    """Written as raw JSON: nbformat.write would quietly repair duplicated cell ids."""
    path = tmp_path / f"{A}.ipynb"
    path.write_text(json.dumps(notebook))
    return path


def _wire(steps):
    """Steps as the sandbox receives them: ``{"cell": ...}`` / ``{"cases": ..., "calls": ...}``."""
    return [step.to_wire() for step in steps]


def _solution():
    return perfect_submission(A)


def _cell(notebook, grade_id):
    return next(c for c in notebook.cells if grade_id_of(c) == grade_id)


def test_untouched_release_is_not_tampered_and_runs_only_cheap_cells(tmp_path, spec):
    plan = plan_submission(RELEASE / A / f"{A}.ipynb", spec)
    assert plan.tampered == {}
    cases = [s["cases"] for s in _wire(plan.fast_steps) if "cases" in s]
    assert cases == list(spec.checks)
    fast_cells = [s["cell"] for s in _wire(plan.fast_steps) if "cell" in s]
    full_cells = [s["cell"] for s in _wire(plan.full_steps) if "cell" in s]
    assert len(fast_cells) < len(full_cells) / 2  # demos, timings and plots are skipped
    assert any("import torch" in c for c in fast_cells)
    assert any("def tensor_bytes" in c for c in fast_cells)


def test_perfect_submission_is_not_tampered(tmp_path, spec):
    plan = plan_submission(_write(tmp_path, _solution()), spec)
    assert plan.tampered == {}
    assert any("def storage_bytes" in s.get("cell", "") and "nbytes" in s["cell"]
               for s in _wire(plan.fast_steps))


def test_instructor_version_counts_as_edited_tests(tmp_path, spec):
    # its test cells still hold the hidden tests, which no student notebook has
    plan = plan_submission(instructor_notebook(A), spec)
    assert set(plan.tampered) == set(spec.checks)


def test_trailing_whitespace_is_not_tampering(tmp_path, spec):
    notebook = nbformat.read(RELEASE / A / f"{A}.ipynb", as_version=4)
    _cell(notebook, "test_tensor_bytes").source += "\n\n   "
    assert plan_submission(_write(tmp_path, notebook), spec).tampered == {}


def test_edited_deleted_and_duplicated_test_cells(tmp_path, spec):
    notebook = nbformat.read(RELEASE / A / f"{A}.ipynb", as_version=4)
    _cell(notebook, "test_tensor_bytes").source = "check([])"
    notebook.cells.remove(_cell(notebook, "test_bytes_for"))
    test = _cell(notebook, "test_storage_bytes")
    notebook.cells.append(copy.deepcopy(test))
    plan = plan_submission(_write(tmp_path, notebook), spec)
    assert plan.tampered == {
        "test_tensor_bytes": "its test cell was edited",
        "test_bytes_for": "its test cell was deleted",
        "test_storage_bytes": "its test cell appears more than once",
    }
    # only the one test cell left as released is still evaluated
    assert [s["cases"] for s in _wire(plan.fast_steps) if "cases" in s] == [
        "test_adamw_bytes_per_param"]


def test_a_test_cell_sharing_its_id_with_another_cell_is_tampering(tmp_path, spec):
    notebook = nbformat.read(RELEASE / A / f"{A}.ipynb", as_version=4)
    _cell(notebook, "storage_bytes").id = _cell(notebook, "test_storage_bytes").id
    plan = plan_submission(_write(tmp_path, notebook), spec)
    assert plan.tampered["test_storage_bytes"] == "its test cell's id is duplicated in the notebook"


def test_student_cells_and_changed_demo_cells_always_run(tmp_path, spec):
    notebook = _solution()
    notebook.cells.insert(3, nbformat.v4.new_code_cell("HELPER = 4"))
    plan = plan_submission(_write(tmp_path, notebook), spec)
    assert {"cell": "HELPER = 4"} in _wire(plan.fast_steps)


@pytest.mark.parametrize(
    ("content", "problem"),
    [("{not json", "not valid notebook JSON"),
     ("", "not valid notebook JSON"),
     ("[]", "not a Jupyter notebook"),
     (json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), "empty"),
     (json.dumps({"cells": [{"cell_type": "code", "source": "1", "metadata": {}}]}),
      "none of its cells are graded cells")],
)
def test_invalid_files(tmp_path, spec, content, problem):
    path = tmp_path / "x.ipynb"
    path.write_text(content)
    with pytest.raises(InvalidSubmission, match=problem):
        plan_submission(path, spec)


# --- mutants of autograder/plan.py these kill (see tests/test_grader_mutants.py for how) -------


def _released():
    return nbformat.read(RELEASE / A / f"{A}.ipynb", as_version=4)


def _retyped(cell_type):
    def change(cell):
        cell.cell_type = cell_type
        for key in ("outputs", "execution_count"):
            cell.pop(key, None)
    return change


@pytest.mark.parametrize("change", [
    lambda cell: setattr(cell, "source", cell.source + "\nprint('all checks passed')"),
    lambda cell: setattr(cell, "source", "tensor_bytes = lambda x: 128\n" + cell.source),
    _retyped("raw"),
    _retyped("markdown"),
], ids=["line-appended", "line-prepended", "raw-cell", "markdown-cell"])
def test_a_test_cell_with_a_line_added_or_another_type_is_edited(tmp_path, spec, change):
    """Kills: the released source accepted when merely *contained* in the cell
    (``normalise(check.student_source) in normalise(cell_source(cell))``), and the
    ``cell_type != "code"`` test removed (a raw test cell is
    never run, so its exercise would be reported as crashed, not tampered)."""
    notebook = _released()
    change(_cell(notebook, "test_tensor_bytes"))
    plan = plan_submission(_write(tmp_path, notebook), spec)
    assert plan.tampered == {"test_tensor_bytes": "its test cell was edited"}
    assert "test_tensor_bytes" not in [s.get("cases") for s in _wire(plan.full_steps)]


def _demo_cells(notebook, spec):
    """The released notebook's demo cells: instructor cells the fast plan skips unchanged."""
    return [c for c in notebook.cells if c.cell_type == "code" and c.get("id") in
            spec.instructor_cells and not needed_for_grading(c.source)]


@pytest.mark.parametrize("change", [
    lambda source: source + "\nestimate = 0",
    lambda source: "estimate = 0\n" + source,
    lambda source: source.replace("4", "5", 1),
    lambda source: "estimate = 0",
], ids=["line-appended", "line-prepended", "digit-changed", "replaced"])
def test_a_changed_demo_cell_runs_in_the_fast_plan(tmp_path, spec, change):
    """A demo cell the student edited (same cell id, other source) is the student's code now:
    it runs even in the fast plan. Kills: demo cells matched by id alone
    (``unchanged = original is not None``), or by containment of the instructor's source."""
    notebook = _released()
    demos = _demo_cells(notebook, spec)
    assert len(demos) >= 5
    fast = [s["cell"] for s in _wire(plan_submission(_write(tmp_path, notebook), spec)
                                     .fast_steps) if "cell" in s]
    assert not any(d.source in fast for d in demos)  # as released, every demo is skipped
    edited = next(d for d in demos if "4" in d.source)
    edited.source = change(edited.source)
    plan = plan_submission(_write(tmp_path, notebook), spec)
    fast = [s["cell"] for s in _wire(plan.fast_steps) if "cell" in s]
    assert edited.source in fast
    assert [d.source for d in demos if d.source in fast] == [edited.source]
    assert plan.tampered == {}


def test_the_full_plan_runs_every_code_cell_as_submitted_in_order(tmp_path, spec):
    """Kills: the full plan (the rerun for a solution that needs a demo cell) running other
    sources than the submission's code cells, or not all of them; and the cases of each
    exercise evaluated somewhere else than at its test cell."""
    notebook = _solution()
    path = _write(tmp_path, notebook)
    expected = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        gid = grade_id_of(cell)
        if gid in spec.checks:
            expected.append({"cases": gid, "calls": [c.call for c in spec.checks[gid].cases]})
        else:
            expected.append({"cell": "".join(cell.source)})
    assert _wire(plan_submission(path, spec).full_steps) == expected


def test_the_size_limit_applies_to_the_submission(tmp_path, spec):
    """Kills: plan_submission reading the file without the caps it was given (a huge
    notebook would be read whole into the coordinator's memory)."""
    from autograder.limits import Limits

    path = _write(tmp_path, _solution())
    with pytest.raises(InvalidSubmission):
        plan_submission(path, spec, Limits(notebook_bytes=path.stat().st_size - 1))
    assert plan_submission(path, spec, Limits(notebook_bytes=path.stat().st_size)).tampered == {}

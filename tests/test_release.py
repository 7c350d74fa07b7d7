"""notebooks/ is generated from solutions/ and must never drift from it; what the release
removes (answers, widget state, outputs) and adds (``raises-exception`` on test cells, and the
Colab badge and setup cell on top: tests/test_colab_cells.py checks those further)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from support.nbgrader_course import Course, stock_results

from autograder.colab import BADGE, SETUP, badge_source, colab_role, setup_cell_source
from autograder.course import RELEASE, assignments, instructor_notebook
from autograder.notebook import grade_ids, read_notebook
from autograder.plan import plan_submission
from autograder.preprocessors.strip_widget_state import StripWidgetState
from autograder.preprocessors.tag_test_cells import RAISES_EXCEPTION, TagTestCells, is_test_cell
from autograder.protocol import Status
from autograder.release import release
from autograder.spec import load_spec

# An answer an instructor run computed; it is in no cell's source, only in what the run left
# behind in the saved notebook (outputs, widget state), which a release must not pass on.
SECRET = "6.3e+24 FLOPs"
ANSWER_SOURCE = 'print(f"{6 * 70e9 * 15e12:.2g} FLOPs")'
WIDGET_STATE = {
    "application/vnd.jupyter.widget-state+json": {
        "state": {"5f0c": {"model_name": "LabelModel", "model_module": "@jupyter-widgets/controls",
                           "model_module_version": "2.0.0", "state": {"value": SECRET}}},
        "version_major": 2,
        "version_minor": 0,
    }
}
EXECUTION = {"iopub.execute_input": "2026-11-30T13:37:28.438848Z",
             "shell.execute_reply": "2026-11-30T13:37:28.441902Z"}
TOY = "toy"  # the throw-away assignment's name
END = "reached the end"
COLAB = 2  # the release puts the Colab badge and setup cell before the source's cells


def _nbgrader(grade_id: str, *, grade: bool, solution: bool, points: float = 0) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def toy_source_notebook() -> nbformat.NotebookNode:
    """An instructor notebook as saved after a run: one exercise, its test, then more cells,
    with outputs, execution counts, run timestamps and widget state holding ``SECRET``."""
    notebook = new_notebook(metadata={"widgets": WIDGET_STATE,
                                      "kernelspec": {"name": "python3", "language": "python",
                                                     "display_name": "Python 3"}})
    notebook.cells = [
        new_markdown_cell("# A throw-away assignment"),
        new_code_cell("from lecture_utils.checks import Case, check", execution_count=1,
                      metadata={"execution": EXECUTION}),
        new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                      "    ### END SOLUTION", execution_count=2,
                      metadata={"execution": EXECUTION,
                                **_nbgrader("double", grade=False, solution=True)}),
        new_code_cell('check([Case("double(21)", 42, "twice 21")])', execution_count=3,
                      outputs=[new_output("stream", name="stdout", text="All 1 checks passed.\n")],
                      metadata={"execution": EXECUTION,
                                **_nbgrader("test_double", grade=True, solution=False, points=1)}),
        new_code_cell(ANSWER_SOURCE, execution_count=4, outputs=[
            new_output("display_data", data={
                "text/plain": f"Label(value='{SECRET}')",
                "application/vnd.jupyter.widget-view+json": {"model_id": "5f0c",
                                                             "version_major": 2,
                                                             "version_minor": 0}}),
            new_output("stream", name="stdout", text=SECRET + "\n")],
            metadata={"execution": EXECUTION, "collapsed": True, "scrolled": True,
                      "tags": ["demo"]}),
        new_code_cell(f"print({END!r})", execution_count=5, metadata={"execution": EXECUTION}),
    ]
    return notebook


def _code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in notebook.cells if c.cell_type == "code"]


# --- the preprocessors on their own --------------------------------------------------------


def test_strip_widget_state_removes_only_the_widget_state():
    notebook = toy_source_notebook()
    cells = copy.deepcopy(notebook.cells)
    stripped, _ = StripWidgetState().preprocess(notebook, {})
    assert "widgets" not in stripped.metadata
    assert SECRET not in json.dumps(stripped.metadata)
    assert stripped.metadata.kernelspec.name == "python3"
    assert stripped.cells == cells  # outputs are ClearOutput's job, in the same release


def test_tag_test_cells_tags_graded_test_cells_only():
    notebook = toy_source_notebook()
    notebook.cells[3].metadata["tags"] = ["keep-me"]
    tagged, _ = TagTestCells().preprocess(notebook, {})
    tags = {c.metadata.get("nbgrader", {}).get("grade_id", i): c.metadata.get("tags")
            for i, c in enumerate(tagged.cells)}
    assert tags == {0: None, 1: None, "double": None, "test_double": ["keep-me", RAISES_EXCEPTION],
                    4: ["demo"], 5: None}
    again, _ = TagTestCells().preprocess(tagged, {})  # releasing twice adds no second tag
    assert again.cells[3].metadata["tags"] == ["keep-me", RAISES_EXCEPTION]


# --- a throw-away assignment through stock nbgrader with this repo's config -----------------


@pytest.fixture(scope="module")
def toy_course(tmp_path_factory) -> tuple[Course, nbformat.NotebookNode]:
    """A course whose config loads the repo's, as an instructor's would; the toy notebook
    released by a plain ``nbgrader generate_assignment`` run there."""
    course = Course(tmp_path_factory.mktemp("toy-course"))
    source = course.root / "source" / TOY / f"{TOY}.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(toy_source_notebook(), source)
    course.nbgrader("generate_assignment", TOY, "--force")
    released = nbformat.read(course.root / "release" / TOY / f"{TOY}.ipynb", as_version=4)
    return course, released


@pytest.fixture
def released(toy_course) -> nbformat.NotebookNode:
    """A copy of the released toy notebook, for a test to run or change."""
    return copy.deepcopy(toy_course[1])


@pytest.mark.slow
def test_nbgrader_release_leaks_no_widget_state_outputs_or_run_records(released):
    assert SECRET not in json.dumps(released)
    assert "widgets" not in released.metadata
    for cell in _code_cells(released):
        assert cell.outputs == [] and cell.execution_count is None
        assert not {"execution", "collapsed", "scrolled"} & set(cell.metadata)
    assert "raise NotImplementedError()" in released.cells[COLAB + 2].source  # stubbed


@pytest.mark.slow
def test_nbgrader_release_tags_test_cells_only(released):
    tags = [c.metadata.get("tags", []) for c in released.cells]
    assert tags == [[], [], [], [], [], [RAISES_EXCEPTION], ["demo"], []]


@pytest.mark.slow
def test_nbgrader_release_puts_the_colab_cells_on_top(released):
    # a plain `nbgrader generate_assignment` with the repo's config: notebooks/<name>/<name>
    assert [colab_role(c) for c in released.cells] == [BADGE, SETUP] + [None] * 6
    assert released.cells[0].source == badge_source(f"notebooks/{TOY}/{TOY}.ipynb")
    assert released.cells[1].source == setup_cell_source("en")
    assert [c.source for c in released.cells[COLAB:]] == \
        [c.source.replace("    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
                          "    # YOUR CODE HERE\n    raise NotImplementedError()")
         for c in toy_source_notebook().cells]


def _last_output_text(notebook: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in notebook.cells[-1].outputs)


@pytest.mark.slow
def test_nbclient_runs_past_a_failing_test_cell_only_with_the_tag(released, tmp_path):
    resources = {"metadata": {"path": str(tmp_path)}}
    # Control: without the tag nbclient stops at the failing test cell (allow_errors is off,
    # as in "Run All"), so the last cell never runs.
    untagged = copy.deepcopy(released)
    untagged.cells[COLAB + 3].metadata.pop("tags")
    with pytest.raises(CellExecutionError, match="CheckFailed"):
        NotebookClient(untagged, timeout=120, kernel_name="python3",
                       resources=resources).execute()
    assert _last_output_text(untagged) == ""

    NotebookClient(released, timeout=120, kernel_name="python3", resources=resources).execute()
    [error] = [o for o in released.cells[COLAB + 3].outputs if o.output_type == "error"]
    assert error.ename == "CheckFailed"
    assert "double(21) is not implemented yet" in error.evalue
    assert _last_output_text(released) == END + "\n"


def _run_all_as_jupyterlab(notebook: nbformat.NotebookNode, cwd: Path) -> list[str]:
    """The reply status of each code cell under JupyterLab's "Run All Cells": every cell is
    queued at once, each with ``stop_on_error`` off exactly when it is tagged
    ``raises-exception`` (@jupyterlab/cells ``CodeCell.execute``); after an error in a cell
    with it on, the kernel answers the queued cells "aborted" without running them."""
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(cwd))
    try:
        sent = [client.execute(cell.source,
                               stop_on_error=RAISES_EXCEPTION not in cell.metadata.get("tags", []))
                for cell in _code_cells(notebook)]
        status: dict[str, str] = {}
        while len(status) < len(sent):
            reply = client.get_shell_msg(timeout=120)
            # Skip late replies to the kernel_info requests sent while waiting for the kernel.
            if reply["parent_header"].get("msg_id") in sent:
                status[reply["parent_header"]["msg_id"]] = reply["content"]["status"]
        return [status[msg_id] for msg_id in sent]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


@pytest.mark.slow
def test_jupyterlab_run_all_goes_past_a_failing_test_cell_only_with_the_tag(released, tmp_path):
    untagged = copy.deepcopy(released)
    untagged.cells[COLAB + 3].metadata.pop("tags")
    # code cells: the Colab setup (nothing to do here), import, stub, test, demo, the last one
    assert _run_all_as_jupyterlab(untagged, tmp_path) == ["ok", "ok", "ok", "error", "aborted",
                                                          "aborted"]
    assert _run_all_as_jupyterlab(released, tmp_path) == ["ok", "ok", "ok", "error", "ok", "ok"]


@pytest.mark.slow
def test_nbgrader_autograde_scores_tagged_test_cells_from_their_outputs(toy_course, released):
    course = toy_course[0]
    solved = copy.deepcopy(released)
    solved.cells[COLAB + 2].source = "def double(x):\n    return 2 * x"
    course.submit("untouched", TOY, released)
    course.submit("solved", TOY, solved)
    course.autograde(TOY)
    [untouched] = stock_results(course, "untouched", TOY, "untouched").tests
    [passed] = stock_results(course, "solved", TOY, "solved").tests
    assert (untouched.status, untouched.points) == (Status.FAILED, 0)
    assert untouched.message.startswith("CheckFailed: 1 of 1 checks failed:")
    assert (passed.status, passed.points) == (Status.PASSED, 1)


# --- the real assignments --------------------------------------------------------------------


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
def test_fresh_release_is_clean_tagged_and_accepted_by_the_grader(assignment, fresh_release):
    path = fresh_release / assignment / f"{assignment}.ipynb"
    notebook = read_notebook(path)
    assert "widgets" not in notebook.metadata
    assert "application/vnd.jupyter.widget-state+json" not in path.read_text()
    for cell in _code_cells(notebook):
        assert cell.outputs == [] and cell.execution_count is None
        assert "execution" not in cell.metadata
        assert (RAISES_EXCEPTION in cell.metadata.get("tags", [])) == is_test_cell(cell)
    assert any(is_test_cell(c) for c in notebook.cells)
    # The grader's tamper check compares test cells by source, so the tag is no edit.
    assert plan_submission(path, load_spec(instructor_notebook(assignment))).tampered == {}


@pytest.mark.parametrize("assignment", assignments())
def test_instructor_notebooks_are_not_tagged(assignment):
    # nbval replays these; a tagged test cell could fail there without failing the replay.
    notebook = read_notebook(instructor_notebook(assignment))
    assert not any(RAISES_EXCEPTION in c.metadata.get("tags", []) for c in notebook.cells)


@pytest.mark.parametrize("assignment", assignments())
def test_student_notebook_has_no_solutions_hidden_tests_or_outputs(assignment):
    notebook = read_notebook(RELEASE / assignment / f"{assignment}.ipynb")
    text = json.dumps(notebook)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert "widgets" not in notebook.metadata
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")
    assert any(id_.startswith("test_") for id_ in grade_ids(notebook))

"""Every notebook as people run it: opened in JupyterLab, Run → Run All Cells, saved.

Notebooks are found, not listed: a notebook added to solutions/ (and released) is covered here
without editing this file.

- The student's untouched release, in Chinese, runs to its last cell; the only errors are the
  failing checks of its unanswered exercises (test cells, which are tagged so that the run
  goes on), and they, like the prose and the notes of unfinished demos, read in Chinese;
  every plot renders as an image with alt text and every widget renders.
- The solved (instructor) notebook runs with no error, each test cell prints its pass line,
  every plot has alt text, every widget control's accessible name is its description, and
  every widget answers a change with the right value (`widget_checks.py`).

A full screenshot of each notebook after its run is written under test-artifacts/browser/
for a person to look at. Failures name the notebook, the cell and what was seen.
"""

from __future__ import annotations

import re

import pytest
from support.lab import (
    SHOWN,
    WIDGET_MIME,
    code_cells,
    errors,
    grade_id,
    open_notebook,
    outputs_with,
    rendered,
    run_all,
    save,
    screenshot,
    shut_down_kernels,
    widget_box,
)
from widget_checks import WIDGET_CHECKS, check_accessible_names, widgets, widgets_of

from autograder.course import assignments
from autograder.preprocessors.tag_test_cells import is_test_cell


@pytest.fixture(autouse=True)
def _one_kernel_at_a_time(request):
    yield
    if "lab_url" in request.fixturenames:
        shut_down_kernels(request.getfixturevalue("lab_url"))


def test_every_widget_has_a_check():
    assert len(widgets()) >= 8
    missing = [title for _, title in widgets() if title not in WIDGET_CHECKS]
    assert not missing, f"widgets with no browser check in widget_checks.py: {missing}"


def _run_in_lab(page, lab_url: str, workspace, path: str, name: str):
    open_notebook(page, lab_url, path)
    run_all(page, name)
    notebook = save(page, workspace / path)
    not_run = [i for i, c in code_cells(notebook) if c.execution_count is None]
    return notebook, not_run


def _check_rendering(page, notebook, name: str) -> None:
    shown = rendered(page)
    images = outputs_with(notebook, "image/png")
    assert shown.broken_images == 0, f"{name}: {shown.broken_images} plot(s) did not render"
    assert shown.images == images, (
        f"{name}: {images} image outputs, but {shown.images} rendered as images")
    no_alt = shown.images_without_alt()
    assert not no_alt, (f"{name}: plots with no alt text (show them with plotting.show(fig, "
                        f"alt)) in cells {no_alt}")
    widgets = outputs_with(notebook, WIDGET_MIME)
    assert not shown.widget_errors, f"{name}: a widget failed to render: {shown.widget_errors}"
    assert shown.widgets == widgets, (
        f"{name}: {widgets} widget outputs, but {shown.widgets} rendered as widgets")


# The student's release runs here in Chinese: its code cells are the English release's, cell
# for cell (tests/test_translate.py), and its English prose is the solved notebook's, which
# runs below; so each English cell still runs in the browser, and the run costs no extra lab.
@pytest.mark.parametrize("assignment", assignments())
def test_student_notebook_runs_in_lab_in_chinese(page, lab_url, workspace, assignment):
    path = f"zh-CN/{assignment}/{assignment}.ipynb"
    name = f"{path} (student's release, Chinese)"
    try:
        notebook, not_run = _run_in_lab(page, lab_url, workspace, path, name)
        _check_student_run(page, notebook, not_run, name)
        _check_chinese(page, notebook, name)
    finally:
        screenshot(page, f"{assignment}-student-zh-CN")


CJK = re.compile(r"[\u4e00-\u9fff]")


def _check_chinese(page, notebook, name: str) -> None:
    """The kernel knew the notebook's language: the prose, the failing checks (their header
    and every reason line below it) and the notes of unfinished demos read in Chinese."""
    from lecture_utils.checks import CASE_ERRORS

    # the English wording of a failed check's header and of every error a case can come
    # back with: the fixed text between each template's {values}, where it says something
    english_wording = {
        piece.strip() for template in (*CASE_ERRORS, "{failed} of {total} checks failed:")
        for piece in re.split(r"\{\w+\}", template) if sum(c.isalpha() for c in piece) >= 4}
    heading = page.locator(f"{SHOWN} .jp-MarkdownCell h1").first.text_content()
    assert CJK.search(heading), f"{name}: the title is not in Chinese: {heading!r}"
    failures = [line for i, ename, line in errors(notebook) if ename == "CheckFailed"]
    english = [line for line in failures if "项检查中有" not in line]
    assert not english, f"{name}: failing checks reported in English: {english[:2]}"
    reports = [o.get("evalue") or "" for _, c in code_cells(notebook) for o in c.outputs
               if o.output_type == "error" and o.ename == "CheckFailed"]
    english = [line for report in reports for line in report.splitlines()
               if any(words in line for words in english_wording)]
    assert not english, f"{name}: failing checks' reasons in English: {english[:2]}"
    printed = " ".join(o.get("text", "") for _, c in code_cells(notebook) for o in c.outputs)
    assert "Finish exercise" not in printed and "Finish exercises" not in printed, (
        f"{name}: a demo's 'finish exercise N' note is in English")


def _check_student_run(page, notebook, not_run, name: str) -> None:
    unexpected = [(i, ename, line) for i, ename, line in errors(notebook)
                  if not (is_test_cell(notebook.cells[i]) and ename == "CheckFailed")]
    assert not unexpected, (
        f"{name}: cells failed that should not: "
        + "; ".join(f"cell {i}: {ename}: {line}" for i, ename, line in unexpected))
    assert not not_run, f"{name}: cells {not_run} never ran (Run All stopped before them)"
    assert any(is_test_cell(notebook.cells[i]) for i, _, _ in errors(notebook)), (
        f"{name}: no test cell failed, yet every exercise is unanswered")
    _check_rendering(page, notebook, name)


PASS_LINE = re.compile(r"All \d+ checks passed\.")


@pytest.mark.parametrize("assignment", assignments())
def test_solved_notebook_runs_in_lab_and_its_widgets_answer(page, lab_url, workspace,
                                                            assignment):
    path = f"solved/{assignment}/{assignment}.ipynb"
    name = f"{path} (instructor's solution)"
    try:
        notebook, not_run = _run_in_lab(page, lab_url, workspace, path, name)
        failed = errors(notebook)
        assert not failed, f"{name}: " + "; ".join(
            f"cell {i} ({grade_id(notebook.cells[i]) or 'demo'}): {ename}: {line}"
            for i, ename, line in failed)
        assert not not_run, f"{name}: cells {not_run} never ran"
        silent = [grade_id(c) for _, c in code_cells(notebook) if is_test_cell(c)
                  and not any(PASS_LINE.search(o.get("text", "")) for o in c.outputs)]
        assert not silent, f"{name}: these test cells printed no pass line: {silent}"
        _check_rendering(page, notebook, name)
        for title in widgets_of(assignment):
            _check_widget(page, name, title)
    finally:
        screenshot(page, f"{assignment}-solved")


def _check_widget(page, name: str, title: str) -> None:
    act, expected = WIDGET_CHECKS[title]
    box = widget_box(page, title)
    assert box.count() > 0, f"{name}: widget {title!r} is not on the page"
    box = box.first
    box.scroll_into_view_if_needed()
    check_accessible_names(page, SHOWN, box, name, title)
    # textContent, not innerText: JupyterLab skips painting cells out of view, and innerText
    # of an unpainted element is empty
    result = box.locator(".widget-html-content").last
    page.wait_for_function("el => el.textContent.trim().length > 0",
                           arg=result.element_handle(), timeout=60_000)
    before = result.text_content()
    act(box)
    page.wait_for_function("([el, text]) => el.textContent !== text",
                           arg=[result.element_handle(), before], timeout=60_000)
    after = result.text_content()
    flat = re.sub(r"\s+", "", after)
    missing = [text for text in expected if re.sub(r"\s+", "", text) not in flat]
    assert not missing, f"{name}, widget {title!r}: {missing} not in what it shows:\n{after}"

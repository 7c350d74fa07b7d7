"""scripts/demo_class.py's made-up class (the grading and stats it then runs are tested in
test_stats.py and the grade tests; the whole demo takes minutes, so it is not run here)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from autograder.audit.mutants import mutants_of
from autograder.course import RELEASE, REPO, instructor_notebook
from autograder.notebook import grade_id, nbgrader_meta, read_notebook

A = "00_napkin_math"


def _demo():
    spec = importlib.util.spec_from_file_location("demo_class",
                                                  REPO / "scripts" / "demo_class.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _course(root: Path) -> Path:
    """What make_course leaves, without running nbgrader: the answer key and the release."""
    for part, path in (("source", instructor_notebook(A)),
                       ("release", RELEASE / A / f"{A}.ipynb")):
        (root / part / A).mkdir(parents=True)
        shutil.copy(path, root / part / A / f"{A}.ipynb")
    return root


def test_a_seeded_class_mixes_right_wrong_and_blank_answers(tmp_path):
    demo = _demo()
    solutions = {grade_id(c): c.source for c in read_notebook(instructor_notebook(A)).cells
                 if nbgrader_meta(c).get("solution")}
    kinds = demo.make_class(_course(tmp_path / "one"), A, 60, seed=3)
    again = demo.make_class(_course(tmp_path / "two"), A, 60, seed=3)
    assert kinds == again and sum(kinds.values()) == 60 * 3  # three exercises
    assert all(count > 0 for count in kinds.values()), kinds
    slips = {gid: {m.source for m in mutants_of(source)} for gid, source in solutions.items()}
    right, wrong = demo.answers(A)
    released = read_notebook(RELEASE / A / f"{A}.ipynb")
    wrong_given = set()
    for number in range(1, 61):
        path = f"submitted/student-{number:03d}/{A}/{A}.ipynb"
        mine = read_notebook(tmp_path / "one" / path)
        assert mine == read_notebook(tmp_path / "two" / path)  # the same seed, the same class
        for cell, original in zip(mine.cells, released.cells, strict=True):
            gid = grade_id(cell)
            if not nbgrader_meta(cell).get("solution"):
                assert cell.source == original.source  # test cells as released: not tampered
                continue
            assert cell.source in {original.source, solutions[gid], *right[gid], *wrong[gid],
                                   *slips[gid]}
            wrong_given |= {(gid, cell.source)} & {(gid, w) for w in wrong[gid]}
    # the most common mistake of each exercise is there (it is drawn three times as often)
    assert {(gid, options[0]) for gid, options in wrong.items()} <= wrong_given

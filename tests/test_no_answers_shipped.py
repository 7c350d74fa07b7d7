"""No graded exercise's solution ships in `lecture_utils`, which every student imports.

Two ways an answer could leak: a helper under the exercise's own name (the student writes
`training_days = helpers.training_days`), or any helper that happens to compute the same thing.
The second test tries every function and class of the package, its subpackages' and private
ones included, in place of each solution and runs that exercise's checks, hidden ones
included: none may pass them all.

Helpers are called with arguments meant for other functions (a GPU-sized batch, say), so
the trials run in one separate process with its memory capped: a helper that asks for 30 GiB
fails there instead of taking the test run (and the machine) down.

Mutation used to check this test: put `def training_days(total_flops, n_gpus, peak, mfu)`
(the solution) back into a `lecture_utils` module; both tests fail.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import math
import multiprocessing
import pkgutil
import resource
from concurrent.futures import ProcessPoolExecutor

import pytest
import torch

import lecture_utils
from autograder.course import assignments, instructor_notebook
from autograder.notebook import grade_id as grade_id_of
from autograder.notebook import read_notebook
from autograder.spec import load_spec
from lecture_utils.checks import evaluate, judge

# every module, the probes' too: a probe's private writer once answered an exercise
MODULES = [importlib.import_module(m.name)
           for m in pkgutil.walk_packages(lecture_utils.__path__, "lecture_utils.")]


def _helpers() -> dict[str, object]:
    """Every function and class the package defines, private ones included (a student can
    import ``_raw`` as easily as ``raw``), each once, under the module that defines it."""
    found = {}
    for module in MODULES:
        for name, value in vars(module).items():
            if callable(value) and not name.startswith("__") and \
                    getattr(value, "__module__", "") == module.__name__:
                found[f"{module.__name__}.{name}"] = value
    return found


def _exercises() -> list[tuple[str, str, str]]:
    """(assignment, solution grade_id, test grade_id) for every graded exercise."""
    found = []
    for assignment in assignments():
        spec = load_spec(instructor_notebook(assignment))
        for solution_id in sorted(spec.solution_ids):
            if f"test_{solution_id}" in spec.checks:
                found.append((assignment, solution_id, f"test_{solution_id}"))
    return found


EXERCISES = _exercises()


def test_there_are_exercises_and_helpers_to_compare():
    assert len(EXERCISES) >= 7 and len(_helpers()) >= 20


@pytest.mark.parametrize(("assignment", "solution", "test"), EXERCISES)
def test_no_helper_carries_an_exercise_name(assignment, solution, test):
    owners = [m.__name__ for m in MODULES if hasattr(m, solution)]
    assert not owners, f"{solution} (a graded answer of {assignment}) is defined in {owners}"


TRIAL_MEMORY = 4 * 2**30  # address space of the process that tries the helpers


def _notebook_imports(assignment: str) -> dict[str, object]:
    """The names the notebook's own import statements define (torch, nn, the probes its
    checks call...), so the checks run here as they do in the notebook."""
    namespace: dict[str, object] = {"torch": torch, "math": math}
    for cell in read_notebook(instructor_notebook(assignment)).cells:
        if cell.cell_type != "code" or cell.source.lstrip().startswith("%"):
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        exec(compile(ast.Module(imports, []), "<imports>", "exec"), namespace)  # noqa: S102
    return namespace


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (TRIAL_MEMORY, TRIAL_MEMORY))


HELPER_SECONDS = 4  # a helper still busy after this long on an exercise's cases is no answer
# (a right answer runs them in milliseconds; a helper fed other arguments can run for minutes)


class _TooSlow(BaseException):  # not an Exception: the checks must not record it as a result
    pass


def _too_slow(*_: object) -> None:
    raise _TooSlow


def _helpers_passing(assignment: str, solution: str, test: str) -> list[str]:
    """Runs in the capped process: every helper that passes all of the exercise's checks.

    Helpers fed other functions' arguments can take very long (``plotting.subplots(1024,
    4096)`` draws four million axes): each gets HELPER_SECONDS, and its figures are closed
    after it, so one helper cannot starve the trials of the others."""
    import contextlib
    import io
    import signal

    import matplotlib.pyplot as plt

    cases = load_spec(instructor_notebook(assignment)).checks[test].cases
    imports = _notebook_imports(assignment)
    # each name the answer cell defines, with the others as the instructor wrote them (run
    # only for a cell that defines several, such as 02b's split_heads and merge_heads)
    names = _answer_names(assignment, solution)
    solved = _solved_namespace(assignment) if len(names) > 1 else {}
    answers = {name: solved[name] for name in names if name in solved}
    signal.signal(signal.SIGALRM, _too_slow)
    passing = []
    for (qualified, helper), name in itertools.product(_helpers().items(), names):
        namespace = {**imports, **answers, name: helper}
        signal.alarm(HELPER_SECONDS)
        try:
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                verdicts = [judge(case, evaluate(case, namespace)) for case in cases]
        except _TooSlow:
            verdicts = ["too slow"]
        finally:
            signal.alarm(0)
            plt.close("all")
        if all(v is None for v in verdicts):
            passing.append(f"{qualified} as {name}")
    return passing


@pytest.fixture(scope="module")
def trials():
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_cap_memory) as pool:
        yield pool


@pytest.mark.parametrize(("assignment", "solution", "test"), EXERCISES)
def test_no_helper_passes_an_exercises_checks(assignment, solution, test, trials):
    passing = trials.submit(_helpers_passing, assignment, solution, test).result(timeout=300)
    assert not passing, f"{passing} pass every check of {solution}: the answer ships to students"


def _solved_namespace(assignment: str) -> dict[str, object]:
    """The notebook's imports with every solution cell run (Cruncher needs Linear)."""
    notebook = instructor_notebook(assignment)
    namespace = _notebook_imports(assignment)
    solutions = load_spec(notebook).solution_ids
    for cell in read_notebook(notebook).cells:
        if grade_id_of(cell) in solutions:
            exec(cell.source, namespace)  # noqa: S102 - our own solution cells
    return namespace


def _answer_names(assignment: str, solution: str) -> list[str]:
    """What a student writes in the answer cell: the name the cell is graded by, or, for a
    cell that defines several (02b's ``split_heads`` and ``merge_heads``), each of them."""
    cell = next(c for c in read_notebook(instructor_notebook(assignment)).cells
                if grade_id_of(c) == solution)
    defined = []
    for node in ast.parse(cell.source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.append(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        defined += [t.id for t in targets if isinstance(t, ast.Name)]
    return [solution] if solution in defined else defined


def test_the_comparison_would_catch_a_leaked_solution():
    # The same judging, fed the instructor's solution, must pass: otherwise the test above
    # could pass for the wrong reason (e.g. checks that nothing can satisfy).
    for assignment, solution, test in EXERCISES:
        namespace = _solved_namespace(assignment)
        names = _answer_names(assignment, solution)
        assert names, solution
        for name in names:  # a function, a class, or a table (a dict) to fill in
            answer = namespace[name]
            assert inspect.isfunction(answer) or inspect.isclass(answer) or \
                isinstance(answer, dict), name
        cases = load_spec(instructor_notebook(assignment)).checks[test].cases
        assert all(judge(c, evaluate(c, namespace)) is None for c in cases), solution

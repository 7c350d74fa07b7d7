"""The notebooks on the Colab twin: Google Colab's Jupyter stack (ipywidgets 7.7.1, ipykernel
6.17.1, IPython 7.34.0, Notebook 6.5.7; tests/colab/colab-pins.txt says where the versions come
from), CPU torch, and a stand-in `google.colab` that its kernels load at start, as Colab's do.

- Every student notebook, with its solutions filled in, runs top to bottom in a twin kernel,
  through its setup cell, which fetches the course from a local tarball instead of GitHub and
  installs what Colab lacks: no cell fails, each setup cell prints its one line, every
  calculator is drawn, ``%check_my_work`` gives full marks, and no package of Colab's is
  changed.
- The calculators' controls build on ipywidgets 7.7.1 with no deprecation warning.
- The setup cell's requirements, dry-run in the twin, install or change none of Colab's pinned
  packages; the same check catches a requirement that would (``ipywidgets>=8``).

Classic Notebook in a browser: tests/browser/test_colab_classic_notebook.py. The twin is built
once (scripts/colab_twin.sh, minutes) and cached outside the repository.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from packaging.utils import canonicalize_name
from support.colab_twin import (
    REPO,
    course_tarball,
    pins,
    scratch_twin,
    twin_env,
    twin_python,
)
from support.submissions import perfect_submission

from autograder.colab import SETUP, colab_role
from autograder.course import RELEASE, assignments, instructor_notebook
from autograder.notebook import read_notebook

# one worker builds the twin and runs these one after another (and the browser test's too)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("colab_twin")]

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
SETUP_LINE = re.compile(r"Colab setup: .+ \(\d+\.\d s\)")
CHECKED = "03_data_types"  # a short notebook: %check_my_work runs it all again
FULL_SCORE = re.compile(r"^score: (\d+)/\1$", re.MULTILINE)
# kernels at a time after the first notebook; on this 2-core machine, loaded by other work,
# the 12 notebooks took 139 s with 2 and 202 s with 1
JOBS = 2
REQUIREMENTS = [REPO / "colab" / "requirements.txt", REPO / "colab" / "requirements-zh-CN.txt"]


@pytest.fixture(scope="module")
def twin() -> Path:
    return twin_python()


def solved_notebooks(into: Path) -> list[Path]:
    """Each student notebook, solutions filled in, in a copy of its release folder."""
    paths = []
    for assignment in assignments():
        folder = into / assignment
        shutil.copytree(RELEASE / assignment, folder)
        path = folder / f"{assignment}.ipynb"
        nbformat.write(perfect_submission(assignment), path)
        paths.append(path)
    return paths


def run_on_twin(python: Path, notebooks: list[Path], out: Path, env: dict[str, str]) -> str:
    run = subprocess.run([str(python), str(REPO / "tests" / "colab" / "run_notebooks.py"),
                          f"--jobs={JOBS}", str(out), *map(str, notebooks)],
                         capture_output=True, text=True, env=env, timeout=1200)
    assert run.returncode == 0, f"the twin's notebook runner failed:\n{run.stderr[-5000:]}"
    return run.stdout


def code_cells(notebook: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode]]:
    return [(i, c) for i, c in enumerate(notebook.cells) if c.cell_type == "code"]


def test_every_notebook_runs_solved_on_the_twin_through_its_setup_cell(twin, tmp_path):
    notebooks = solved_notebooks(tmp_path / "notebooks")
    # one notebook ends with %check_my_work, which on Colab asks the browser for the notebook
    # (google.colab._message "get_ipynb"; the stand-in reads COLAB_TWIN_NOTEBOOK) and grades it
    checked = next(path for path in notebooks if path.stem == CHECKED)
    submission = nbformat.read(checked, as_version=4)
    submission.cells.append(nbformat.v4.new_code_cell("%check_my_work"))
    nbformat.write(submission, checked)
    tarball = course_tarball(tmp_path)
    started = time.monotonic()
    with scratch_twin(twin) as python:
        env = twin_env(python, tmp_path / "user", CS336_COURSE_SOURCE=str(tarball),
                       CS336_COURSE_HOME=str(tmp_path / "content" / "cs336-lecture2"),
                       COLAB_TWIN_NOTEBOOK=str(checked))
        timings = run_on_twin(python, notebooks, tmp_path / "ran", env)
        after = json.loads(subprocess.run(
            [str(python), "-m", "pip", "list", "--format=json"], capture_output=True,
            text=True, env=env, check=True).stdout)
    print(f"ran {len(notebooks)} notebooks on the twin in {time.monotonic() - started:.0f} s:\n"
          f"{timings}")

    problems = []
    for number, path in enumerate(notebooks):
        ran = nbformat.read(tmp_path / "ran" / path.name, as_version=4)
        name = path.name
        cells = code_cells(ran)
        setup = [i for i, c in cells if colab_role(c) == SETUP]
        if setup != [cells[0][0]]:
            problems.append(f"{name}: the setup cell is not its first code cell ({setup})")
            continue
        printed = "".join(o.get("text", "") for o in ran.cells[setup[0]].outputs)
        lines = printed.splitlines()
        if not (len(lines) == 1 and SETUP_LINE.fullmatch(lines[0])):
            problems.append(f"{name}: the setup cell printed {printed!r}, not its one line")
        elif number == 0 and "fetched the course" not in lines[0]:
            problems.append(f"{name}: the first setup cell did not fetch: {lines[0]!r}")
        elif number > 0 and "nothing to install" not in lines[0]:
            problems.append(f"{name}: a later setup cell installed again: {lines[0]!r}")
        for i, cell in cells:
            expected = "raises-exception" in cell.metadata.get("tags", [])
            for output in cell.outputs:
                if output.output_type == "error" and not expected:
                    problems.append(f"{name}, cell {i}: {output.ename}: "
                                    f"{(output.evalue or '').splitlines()[:1]}")
        drawn = sum(WIDGET_MIME in o.get("data", {}) for _, c in cells for o in c.outputs)
        stored = read_notebook(instructor_notebook(path.stem))
        expected = sum(WIDGET_MIME in o.get("data", {}) for _, c in code_cells(stored)
                       for o in c.outputs)
        if drawn != expected:
            problems.append(f"{name}: {drawn} widgets drawn, the solution shows {expected}")
        if path == checked:
            report = "".join(o.get("text", "") for o in ran.cells[-1].outputs)
            if not FULL_SCORE.search(report):
                problems.append(f"{name}: %check_my_work did not give full marks:\n{report}")
    assert not problems, "on the Colab twin:\n" + "\n".join(problems)

    installed = {canonicalize_name(p["name"]): p["version"] for p in after}
    changed = {name: (version, installed.get(name)) for name, version in pins().items()
               if installed.get(name, "").split("+")[0] != version.split("+")[0]}
    assert not changed, f"the setup cells changed Colab's packages (pin, now): {changed}"


def test_calculator_controls_build_on_ipywidgets_7_without_warnings(twin, tmp_path):
    """Each kind of control the notebooks use, built and driven in the twin's Python with
    every warning an error: ipywidgets 7.7.1 deprecates a mapping of dropdown options."""
    script = """
import warnings
warnings.simplefilter("error")
import ipywidgets
assert ipywidgets.__version__ == "7.7.1", ipywidgets.__version__
from lecture_utils import bits, layout, widgets
gpu = widgets.choice("GPU", {"H100": 989.5e12, "A100": 312e12}, value=312e12)
assert gpu.label == "A100", gpu.label
n = widgets.log_slider("parameters", 70e9, 1e6, 1e13)
k = widgets.slider("a < b", 8, 1, 64, 1)
assert k.description == "a &lt; b", k.description  # 7 shows a description as HTML
box = widgets.calculator(lambda n, gpu, k: {"FLOP/s": n * gpu * k}, {"n": n, "gpu": gpu, "k": k})
gpu.value = 989.5e12
assert f"<b>{n.value * 989.5e12 * 8}</b>" in box.children[-1].value, box.children[-1].value
layout.stride_explorer()
bits.dtype_explorer()
print("ok")
"""
    run = subprocess.run([str(twin), "-c", script], capture_output=True, text=True,
                         env=twin_env(twin, tmp_path, PYTHONPATH=str(REPO)), timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]


def pinned_changes(python: Path, requirement_args: list[str], scratch: Path) -> list[str]:
    """What ``pip install --dry-run`` of the requirements would install or replace among the
    twin's pinned packages (Colab's): "name version" for each."""
    report = scratch / "report.json"
    run = subprocess.run([str(python), "-m", "pip", "install", "--dry-run", "--quiet",
                          "--report", str(report), *requirement_args],
                         capture_output=True, text=True, env=twin_env(python, scratch),
                         timeout=600)
    assert run.returncode == 0, f"pip's dry run failed:\n{run.stderr[-3000:]}"
    pinned = pins()
    return [f"{item['metadata']['name']} {item['metadata']['version']}"
            for item in json.loads(report.read_text())["install"]
            if canonicalize_name(item["metadata"]["name"]) in pinned]


def test_the_setup_cells_install_changes_none_of_colabs_pins(twin, tmp_path):
    files = [f"--requirement={path}" for path in REQUIREMENTS if path.is_file()]
    assert files, f"no setup cell requirements at {[str(p) for p in REQUIREMENTS]}"
    assert pinned_changes(twin, files, tmp_path) == []
    # the check itself: a requirement that would upgrade a pin is caught
    caught = pinned_changes(twin, [*files, "ipywidgets>=8"], tmp_path)
    assert "ipywidgets" in [line.split()[0] for line in caught], caught

"""pyproject.toml (pip) and environment.yml (conda) must ask for the same things."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
# conda-forge's name → PyPI's name (with the extras that conda package stands for)
CONDA_NAMES = {"pytorch": "torch", "bleach-with-css": "bleach[css]"}


def _split(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-]+(?:\[[a-z,]+\])?)\s*(.*)$",
                          requirement).groups()
    return name.lower(), spec.replace(" ", "")


def _pyproject() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["dev"]
    pinned = dict(_split(r) for r in requirements)
    pinned["python"] = project["requires-python"].replace(" ", "")
    return pinned


def _conda() -> dict[str, str]:
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pinned = {}
    entries = [e for e in env["dependencies"] if isinstance(e, str)]
    # a package conda-forge lacks is installed by conda's pip, listed under "pip:"
    entries += [p for e in env["dependencies"] if isinstance(e, dict) for p in e.get("pip", [])]
    for entry in entries:
        name, spec = _split(entry)
        if name != "pip":
            pinned[CONDA_NAMES.get(name, name)] = spec
    return pinned


def test_same_packages_and_versions():
    assert _conda() == _pyproject()


def test_setup_script_installs_a_torch_the_range_accepts():
    script = (REPO / "scripts" / "setup.sh").read_text()
    default = re.search(r"TORCH_SPEC:-torch==([\d.]+)", script).group(1)
    low, high = re.match(r">=([\d.]+),<([\d.]+)", _pyproject()["torch"]).groups()
    as_tuple = lambda v: tuple(int(p) for p in v.split("."))  # noqa: E731
    assert as_tuple(low) <= as_tuple(default) < as_tuple(high)


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    assert "bash scripts/test.sh" in readme and "bash scripts/lab.sh" in readme
    assert "exec bash scripts/test.sh" in (REPO / ".ci" / "run").read_text()


def test_the_grader_command_line_starts_without_torch_or_the_iri_parsers():
    # Both take seconds to import and the suite starts the grader and nbgrader hundreds of
    # times: torch only where a notebook or the sandbox needs it, and no rfc3987-syntax
    # (scripts/setup.sh removes it; it builds Earley parsers for a format nothing here uses).
    probe = ("import sys, autograder.cli, nbformat; "
             "print(sorted({'torch', 'rfc3987_syntax'} & set(sys.modules)))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.strip()
    assert loaded == "[]", f"imported at start: {loaded}"

"""The Gradescope zip of every notebook builds, and its setup.sh, checked without a network:
valid bash, it names what it installs, and it stops at the first step that fails.

setup.sh runs with stand-ins on PATH for apt-get, useradd and python3.11; the stand-in Python
makes a "venv" whose python logs each call, answers ``pip`` (failing ``pip install`` when told
to) and hands everything else to this Python, so the byte-compiling and import steps run for
real on the zip's grader.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.course import assignments, instructor_notebook
from autograder.gradescope import key
from autograder.gradescope.build import build_zip, requirements, torch_requirement
from autograder.spec import load_spec


@pytest.mark.parametrize("assignment", assignments())
def test_every_notebook_builds_a_zip_that_judges_as_check(assignment, tmp_path):
    built = build_zip(assignment, tmp_path / "autograder.zip")
    with zipfile.ZipFile(built.path) as opened:
        answer_key = json.loads(opened.read("key/key.json"))
        config = json.loads(opened.read("key/config.json"))
        assert opened.read("requirements.txt").decode().split() == requirements()
    assert key.load(answer_key) == load_spec(instructor_notebook(assignment))
    assert config["assignment"] == assignment
    assert config["hidden_visibility"] == "after_published"
    assert built.exercises == len(answer_key["checks"]) > 0


STUB_PYTHON = """#!/usr/bin/env bash
# a stand-in for python3.11: "-m venv DIR" makes DIR/bin/python, a logging stand-in too
echo "python3.11 $*" >> "$LOG"
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$3/bin"
    cat > "$3/bin/python" <<'INNER'
#!/usr/bin/env bash
echo "venv-python $*" >> "$LOG"
case " $* " in
    *" -m pip "*" install "*"$FAIL_ON"*) echo "pip: no network" >&2; exit 1;;
    *" -m pip "*) exit 0;;
esac
exec "$REAL_PYTHON" "$@"
INNER
    chmod +x "$3/bin/python"
fi
"""


def _setup(tmp_path: Path, fail_on: str) -> tuple[subprocess.CompletedProcess, str]:
    archive = build_zip("03_data_types", tmp_path / "autograder.zip").path
    source = tmp_path / "source"
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(source)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name in ("apt-get", "useradd", "id"):
        fails = name == "id" or (name == "apt-get" and fail_on == "apt-get")
        (stubs / name).write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$LOG"\n'
                                  + ("exit 1\n" if fails else "exit 0\n"))
    (stubs / "python3.11").write_text(STUB_PYTHON)
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    log = tmp_path / "log"
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "LOG": str(log),
           "FAIL_ON": fail_on, "REAL_PYTHON": sys.executable,
           "CS336_GRADER_HOME": str(tmp_path / "home"),
           "CS336_GRADER_SOURCE": str(source)}
    done = subprocess.run(["bash", str(source / "setup.sh")], env=env, capture_output=True,
                          text=True, timeout=60)
    return done, log.read_text() if log.exists() else ""


def test_setup_sh_is_valid_bash(tmp_path):
    archive = build_zip("03_data_types", tmp_path / "autograder.zip").path
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(tmp_path)
    for script in ("setup.sh", "run_autograder"):
        assert subprocess.run(["bash", "-n", str(tmp_path / script)]).returncode == 0


def test_setup_sh_installs_python_cpu_torch_and_the_pinned_grader(tmp_path):
    done, log = _setup(tmp_path, fail_on="nothing-fails")
    assert done.returncode == 0, done.stderr
    assert "setup.sh: done" in done.stdout
    assert "apt-get install" in log and "python3.11 python3.11-venv" in log
    assert f"install {torch_requirement()} --index-url https://download.pytorch.org/whl/cpu" \
        in log
    assert "install -r" in log and "useradd --system" in log
    for pin in requirements():
        assert pin in done.stdout  # the step names what it installs
    assert "/usr/bin/python3 " not in log  # the system Python is left alone
    # the last steps ran for real: the zip's grader compiled, and all grading imports loaded
    assert "-m compileall -q " in log and "imports the grader and lecture_utils" in done.stdout
    assert list((tmp_path / "source" / "grader").rglob("run.*.pyc"))
    assert (tmp_path / "source" / "key").stat().st_mode & 0o777 == 0o700  # closed to others
    grader = tmp_path / "source" / "grader" / "autograder" / "gradescope" / "run.py"
    assert grader.stat().st_mode & 0o004  # and the grader open to the unprivileged user


@pytest.mark.parametrize("fail_on, step, later", [
    ("apt-get", "installing Python 3.11", "-m venv"),
    ("torch==", "installing CPU-only torch", "install -r"),
    ("requirements.txt", "installing the grader's pinned requirements", "useradd"),
], ids=["apt", "torch", "requirements"])
def test_setup_sh_stops_at_the_first_failed_step_and_names_it(tmp_path, fail_on, step, later):
    done, log = _setup(tmp_path, fail_on=fail_on)
    assert done.returncode != 0
    assert f"FAILED while {step}" in done.stderr
    assert later not in log  # nothing after the failed step ran
    assert "setup.sh: done" not in done.stdout

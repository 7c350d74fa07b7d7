#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu 22.04 by
# default, whose python3 runs Gradescope's own harness and is left alone: see
# https://gradescope-autograders.readthedocs.io/en/latest/python3_issues/). Written by
# `python -m autograder gradescope` for @@ASSIGNMENT@@, grader @@GRADER_VERSION@@.
#
# Each step says what it installs; the first that fails stops the build with a message naming
# it, so a broken image never builds "successfully" and fails later, on students' work.
#   CS336_GRADER_HOME    where the grader's Python environment goes (default /opt/cs336-grader)
#   CS336_GRADER_SOURCE  where the zip was unpacked (default /autograder/source)
set -Eeuo pipefail
home=${CS336_GRADER_HOME:-/opt/cs336-grader}
source=${CS336_GRADER_SOURCE:-/autograder/source}
python=python@@PYTHON@@
step=starting

begin() {
    step=$1
    echo "setup.sh: $step"
}
trap 'status=$?; echo "setup.sh: FAILED while $step (exit status $status); the autograder image is not usable" >&2; exit $status' ERR

begin "installing Python @@PYTHON@@ (apt: $python ${python}-venv) next to the system python3, and bubblewrap"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "$python" "${python}-venv" bubblewrap ca-certificates

begin "creating the grader's environment in $home/venv with $python"
mkdir -p "$home"
"$python" -m venv "$home/venv"
pip=("$home/venv/bin/python" -m pip --disable-pip-version-check --no-input -q)

begin "installing CPU-only torch: @@TORCH@@ from @@TORCH_INDEX@@"
"${pip[@]}" install "@@TORCH@@" --index-url "@@TORCH_INDEX@@"

begin "installing the grader's pinned requirements ($source/requirements.txt: @@REQUIREMENTS@@)"
"${pip[@]}" install -r "$source/requirements.txt"

begin "adding the unprivileged user 'student' that runs submissions when bubblewrap cannot"
id -u student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin student

# pip compiled what it installed; compiling the whole venv again would fail on files that
# are not meant for this Python (torch ships a Python 3.12-only test module)
begin "byte-compiling the grader ($source/grader)"
"$home/venv/bin/python" -m compileall -q "$source/grader" >/dev/null

# where bubblewrap cannot start, submissions run as 'student': it must read the grader, its
# compiled files and its environment whatever this image's umask, and never the key
# (run_autograder closes it again before each submission)
begin "opening the grader to 'student' and closing the answer key ($source/key) to it"
chmod -R go+rX "$home" "$source/grader"
chmod go+x "$source" "$(dirname "$source")"
chmod -R go-rwx "$source/key"

# what grading imports: the grader's side, and everything the sandbox preloads
begin "checking that the grader imports (torch @@TORCH@@, grader @@GRADER_VERSION@@)"
PYTHONPATH="$source/grader" "$home/venv/bin/python" - <<'PY'
import importlib, pkgutil
import torch, matplotlib.pyplot, IPython, ipywidgets, nbformat, lecture_utils
import autograder.gradescope.run, autograder.gradescope.key, autograder.pipeline
import autograder.sandbox.zygote
for module in pkgutil.iter_modules(lecture_utils.__path__, "lecture_utils."):
    importlib.import_module(module.name)
print("torch", torch.__version__, "imports the grader and lecture_utils")
PY

echo "setup.sh: done"

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

begin "byte-compiling the environment and the grader"
"$home/venv/bin/python" -m compileall -q "$home/venv/lib" "$source/grader" >/dev/null

begin "checking that the grader imports (torch @@TORCH@@, grader @@GRADER_VERSION@@)"
PYTHONPATH="$source/grader" "$home/venv/bin/python" -c \
    "import torch, autograder.gradescope.run; print('torch', torch.__version__)"

echo "setup.sh: done"

#!/usr/bin/env bash
# Create .venv and install everything the notebooks and tests need. Safe to rerun: a second
# run with unchanged pyproject.toml only checks and returns.
#
#   PYTHON=python3.11      interpreter to build the environment from (default: python3)
#   TORCH_SPEC=torch==X.Y  which torch to install first (default: torch==2.13.0)
#   TORCH_INDEX_URL=URL    where pip should fetch torch from (a CPU-only or CUDA wheel index)
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

python=${PYTHON:-python3}
"$python" - <<'PY' || { echo "setup: $python must be Python 3.11-3.13 (set PYTHON=...)" >&2; exit 1; }
import sys
sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 13) else 1)
PY

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv with $("$python" --version)"
    "$python" -m venv .venv
fi
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)

stamp=.venv/.installed-$(cat pyproject.toml | .venv/bin/python -c "import hashlib,sys; print(hashlib.sha1(sys.stdin.buffer.read()).hexdigest()[:12])")
# Every notebook kernel of this environment offers %check_my_work (lecture_utils.self_check),
# whether or not its notebook has imported lecture_utils yet.
mkdir -p .venv/etc/ipython
printf '%s\n' "# written by scripts/setup.sh" \
    'c.InteractiveShellApp.extensions.append("lecture_utils.self_check")' \
    > .venv/etc/ipython/ipython_kernel_config.py

if [ -f "$stamp" ]; then
    exit 0
fi

# torch first, so that the range in pyproject.toml is already met and pip does not fetch a
# second, much larger build for it.
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    torch_spec=${TORCH_SPEC:-torch==2.13.0}
    echo "setup: installing $torch_spec"
    if [ -n "${TORCH_INDEX_URL:-}" ]; then
        "${pip[@]}" install "$torch_spec" --index-url "$TORCH_INDEX_URL"
    else
        "${pip[@]}" install "$torch_spec"
    fi
fi

echo "setup: installing the notebooks' stack (jupyterlab, nbgrader, ipywidgets, nbval, ...)"
"${pip[@]}" install -e ".[dev]"
# jsonschema's "format-nongpl" extra (wanted by jupyter-events) brings rfc3987-syntax, which
# builds some thirty Earley parsers when imported: 2.6 s in every process that imports
# nbformat (each nbgrader and grader command, each Jupyter server). It only checks the "iri"
# string format, which no notebook or event schema here uses; jsonschema skips it when absent.
"${pip[@]}" uninstall -y rfc3987-syntax >/dev/null 2>&1 || true

# Byte-compile once: where PYTHONDONTWRITEBYTECODE is set, every import would otherwise parse
# the sources again, and each notebook kernel pays that for torch.
echo "setup: byte-compiling the environment"
.venv/bin/python -m compileall -q -j 0 .venv/lib >/dev/null 2>&1 || true

rm -f .venv/.installed-*
touch "$stamp"
echo "setup: done in $(( $(date +%s) - started )) s ($(.venv/bin/python -c 'import torch; print("torch", torch.__version__)'))"

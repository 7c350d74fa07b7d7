#!/usr/bin/env bash
# The Colab twin: a virtual environment pinned to Google Colab's Jupyter stack (ipywidgets 7.7.1,
# ipykernel 6.17.1, IPython 7.34.0, classic Notebook 6.5.7...), with CPU torch and a stand-in
# `google.colab` package that its kernels load at start, as Colab's do. The tests run the
# notebooks, the classic Notebook UI and the setup cell's install in it (tests/test_colab_twin.py,
# tests/browser/test_colab_classic_notebook.py).
#
# Usage: bash scripts/colab_twin.sh    prints the twin's python as its last line
#
# The pins are tests/colab/colab-pins.txt (where they come from is written there). The twin is
# built once per version of the pins, the stand-in and this script, outside the repository, in
#   ${COLAB_TWIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cs336-colab-twin}/<hash of those files>
# so a fresh clone, or CI with that cache kept, pays for it once; a second run is instant.
#   PYTHON=python3.X   the interpreter to build it from (default: python3, this machine's 3.11)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pins=$repo/tests/colab/colab-pins.txt
stub=$repo/tests/colab/stub
key=$(cat "${BASH_SOURCE[0]}" "$pins" $(find "$stub" -name '*.py' | sort) | sha256sum | cut -c1-16)
root=${COLAB_TWIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cs336-colab-twin}
twin=$root/$key
mkdir -p "$root"

# one build at a time (pytest workers and a person may ask at once); the others wait, then reuse
exec 9>"$twin.lock"
flock 9
if [ ! -f "$twin/.ready" ]; then
    started=$(date +%s)
    echo "colab-twin: building $twin (a few minutes, once)" >&2
    rm -rf "$twin"
    "${PYTHON:-python3}" -m venv "$twin"
    pip() {  # quiet, without the notes about this machine's absent extra indexes
        "$twin/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 |
            { grep -v "is ignored: it is neither a file nor a directory" || true; } >&2
        return "${PIPESTATUS[0]}"
    }
    pip "$(grep -i '^pip==' "$pins")"  # Colab's pip: its resolver answers the dry run
    # torch==2.13.0 is the CPU wheel on this disk (/opt/wheels); every pin in one resolve, so
    # nothing is installed twice
    pip -r "$pins"
    site=$("$twin/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    cp -r "$stub/google" "$site/"
    # IPython reads <prefix>/etc/ipython: every kernel of the twin loads the stand-in at start
    mkdir -p "$twin/etc/ipython"
    printf '%s\n' '# written by scripts/colab_twin.sh: load google.colab at start, as Colab does' \
        'c.InteractiveShellApp.extensions = ["google.colab"]' \
        > "$twin/etc/ipython/ipython_kernel_config.py"
    "$twin/bin/python" -m pip freeze > "$twin/freeze.txt"
    touch "$twin/.ready"
    echo "colab-twin: built in $(( $(date +%s) - started )) s" >&2
    # twins of older pins or scripts (1.3 GB each) go, unless one is being built or used
    for old in "$root"/*; do
        [[ $(basename "$old") =~ ^[0-9a-f]{16}$ ]] || continue  # a twin (not a test's copy)
        if [ "$old" != "$twin" ] && [ -d "$old" ] && flock -n "$old.lock" true; then
            # in the background (slow on a busy disk), without this twin's lock (fd 9)
            setsid rm -rf "$old" "$old.lock" >/dev/null 2>&1 9>&- &
        fi
    done
fi
# copies left by tests that were killed (tests/support/colab_twin.py removes its own)
find "$root" -maxdepth 1 -name 'scratch-*' -mmin +720 -exec rm -rf {} + 2>/dev/null || true
echo "$twin/bin/python"

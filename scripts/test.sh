#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite: unit tests, real nbgrader grading, nbval
# replays of the instructor notebooks, and a browser check of JupyterLab. Extra arguments
# go to pytest.
#
#   TEST_WORKERS=N   test processes side by side (pytest-xdist; default 3, 0 runs in this
#                    process). Each test file stays in one process, so a file's shared
#                    fixtures (a graded course, a running JupyterLab) are built once. Three
#                    on two cores: sampled from /proc/stat, both cores stay busy through a
#                    three-worker run, and a third process fills the moments when one waits
#                    on a kernel, a sandbox or the browser (two were about 17% slower).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# System packages some tests need: Debian's Chromium for the JupyterLab browser check
# (Playwright's own browser download is not needed) and bubblewrap for the grader's sandbox.
# Installed where we can; elsewhere those tests report themselves skipped, saying why.
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v bwrap >/dev/null || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "test: installing ${missing[*]}"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        "${missing[@]}" >/dev/null) || echo "test: could not install ${missing[*]}"
fi

export PATH="$PWD/.venv/bin:$PATH"   # nbgrader shells out to alembic from the environment
workers=${TEST_WORKERS:-3}
parallel=()
[ "$workers" != 0 ] && parallel=(-n "$workers" --dist loadgroup)
exec .venv/bin/python -m pytest "${parallel[@]}" "$@"

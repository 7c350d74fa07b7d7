#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite: unit tests, real nbgrader grading, nbval
# replays of the instructor notebooks, and a browser check of JupyterLab. Extra arguments
# go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# The browser check drives Debian's Chromium (Playwright's own browser download is not
# needed). Install it where we can; elsewhere that one test reports itself skipped.
if ! command -v chromium >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "test: installing chromium for the JupyterLab UI test"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
        >/dev/null) || echo "test: could not install chromium; the UI test will be skipped"
fi

export PATH="$PWD/.venv/bin:$PATH"   # nbgrader shells out to alembic from the environment
exec .venv/bin/python -m pytest "$@"

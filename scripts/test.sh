#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite: unit tests, real nbgrader grading, and
# nbval replays of the instructor notebooks. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"   # nbgrader shells out to alembic from the environment
exec .venv/bin/python -m pytest "$@"

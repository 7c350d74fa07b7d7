#!/usr/bin/env bash
# Set up (if needed) and open the student notebooks in JupyterLab.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)   # jupyter refuses to run as root otherwise
exec .venv/bin/jupyter lab --ServerApp.root_dir=notebooks "${extra[@]}" "$@"

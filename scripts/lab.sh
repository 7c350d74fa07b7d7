#!/usr/bin/env bash
# Set up (if needed) and open your working copy of the notebooks in JupyterLab.
#
#   LAB_WORKSPACE=DIR   where the working copy lives (default: workspace/, git-ignored;
#                       relative to the repository root)
#
# notebooks/ is the pristine release that `git pull` updates. Each start copies into the
# working copy the notebooks it lacks (all of them the first time, new ones after a pull) and
# never overwrites one there, so running cells (JupyterLab autosaves) changes no tracked file.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
workspace=${LAB_WORKSPACE:-workspace}
.venv/bin/python -m autograder.workspace notebooks "$workspace"

# scripts/lab-config/ is Jupyter configuration for this lab only (~/.jupyter is untouched and
# still wins): no news feed, no update check, so no "Would you like to get notified about
# official Jupyter news?" prompt. news_url=None alone would not stop that prompt; the
# fetchNews setting does.
export JUPYTER_CONFIG_PATH="$PWD/scripts/lab-config${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)   # jupyter refuses to run as root otherwise
# ${extra[@]+...}: macOS's bash 3.2 calls an empty array unbound under set -u
exec .venv/bin/jupyter lab --ServerApp.root_dir="$workspace" ${extra[@]+"${extra[@]}"} "$@"

#!/usr/bin/env bash
# Set up (if needed) and open your working copy of the notebooks in JupyterLab.
#
#   bash scripts/lab.sh [--lang LANG] [JUPYTER LAB ARGS...]
#
#   --lang LANG         which edition to open: en (default; notebooks/ into workspace/) or
#                       zh-CN (Simplified Chinese; notebooks-zh-CN/ into workspace-zh-CN/).
#                       Any LANG with a notebooks-LANG/ folder works; an unknown one is an
#                       error (exit 2) that names those available. --lang=LANG works too.
#   LAB_LANGUAGE=LANG   the same as --lang LANG (--lang wins)
#   LAB_WORKSPACE=DIR   where the working copy lives (default: workspace/ or workspace-LANG/,
#                       git-ignored; relative to the repository root); wins over the default
#
# Every other argument goes to `jupyter lab`. notebooks/ (notebooks-LANG/) is the pristine
# release that `git pull` updates. Each start copies into the working copy the notebooks it
# lacks (all of them the first time, new ones after a pull) and never overwrites one there,
# so running cells (JupyterLab autosaves) changes no tracked file.
set -euo pipefail
cd "$(dirname "$0")/.."

language=${LAB_LANGUAGE:-en}
args=()
while [ $# -gt 0 ]; do
    case $1 in
        --lang)
            if [ $# -lt 2 ]; then
                echo "lab: --lang needs a language, e.g. --lang zh-CN" >&2
                exit 2
            fi
            language=$2; shift 2 ;;
        --lang=*) language=${1#--lang=}; shift ;;
        *) args+=("$1"); shift ;;
    esac
done

available() {  # en, then every LANG that has a notebooks-LANG/ folder
    printf 'en'
    for dir in notebooks-*/; do
        if [ -d "$dir" ]; then
            dir=${dir%/}
            printf ', %s' "${dir#notebooks-}"
        fi
    done
}
case $language in
    en) release=notebooks; default_workspace=workspace ;;
    *)
        # a name, not a path: it becomes part of the folders' names
        if ! printf '%s' "$language" | grep -Eq '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$' \
                || [ ! -d "notebooks-$language" ]; then
            echo "lab: no notebooks in language '$language' (no notebooks-$language/ folder);" \
                 "available: $(available)" >&2
            exit 2
        fi
        release=notebooks-$language; default_workspace=workspace-$language ;;
esac

bash scripts/setup.sh
workspace=${LAB_WORKSPACE:-$default_workspace}
.venv/bin/python -m autograder.workspace "$release" "$workspace"

# scripts/lab-config/ is Jupyter configuration for this lab only (~/.jupyter is untouched and
# still wins): no news feed, no update check, so no "Would you like to get notified about
# official Jupyter news?" prompt. news_url=None alone would not stop that prompt; the
# fetchNews setting does. It also serves the course's Chinese font (Noto Sans SC, in .venv)
# to the browser for CJK text, which a system without a CJK font shows as boxes
# (jupyter_server_config.py, custom/custom.css).
export JUPYTER_CONFIG_PATH="$PWD/scripts/lab-config${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)   # jupyter refuses to run as root otherwise
# ${extra[@]+...}: macOS's bash 3.2 calls an empty array unbound under set -u
exec .venv/bin/jupyter lab --ServerApp.root_dir="$workspace" ${extra[@]+"${extra[@]}"} \
    ${args[@]+"${args[@]}"}

#!/usr/bin/env bash
# Close the hub's checkout of this repository (the course environment every user's server
# runs) to everyone but root, except what the servers need: students run its .venv and import
# lecture_utils and autograder from it, and read nothing else of it. The rest holds the answer
# key: solutions/ (solutions and hidden tests), tests/answers/, .git (every past version of
# both), gradebook.db. Run as root, and again after every git pull or scripts/setup.sh (a new
# entry at the top is open until then; inside a closed folder it stays closed).
#
#   close-checkout.sh CHECKOUT
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 CHECKOUT" >&2
    exit 2
fi
checkout=$1
# What every user's server reads: the environment, the two packages (an editable install
# imports them from here), lecture_utils' translations, and the hub's configs. Nothing else.
OPEN=".venv lecture_utils autograder translations deploy"
chown -R root:root "$checkout"
chmod 0711 "$checkout"  # entered (the packages' paths go through it), never listed
shopt -s dotglob nullglob
for entry in "$checkout"/*; do
    case " $OPEN " in
        *" $(basename "$entry") "*) chmod -R a+rX,go-w "$entry" ;;
        *) chmod -R go-rwx "$entry" ;;
    esac
done
stat -c '%A %U:%G %n' "$checkout" "$checkout"/*

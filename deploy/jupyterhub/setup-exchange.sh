#!/usr/bin/env bash
# Lay out nbgrader's exchange for one course, closed between students (run as root; safe to
# run again). What each mode is for is explained in autograder/exchange.py.
#
#   setup-exchange.sh EXCHANGE_ROOT COURSE GRADER_USER GRADER_GROUP
#
# GRADER_GROUP holds the grader account (and any instructor who reads submissions from a
# shell), never a student: every submission is readable by that group.
set -euo pipefail
if [ $# -ne 4 ]; then
    echo "usage: $0 EXCHANGE_ROOT COURSE GRADER_USER GRADER_GROUP" >&2
    exit 2
fi
root=$1 course=$2 grader=$3 group=$4
install -d -o root -g root -m 0755 "$root"                          # nobody else writes here
install -d -o "$grader" -g "$group" -m 0755 "$root/$course"
install -d -o "$grader" -g "$group" -m 0755 "$root/$course/outbound"  # released assignments
install -d -o "$grader" -g "$group" -m 3733 "$root/$course/inbound"   # write-only drop box
install -d -o "$grader" -g "$group" -m 0711 "$root/$course/feedback"  # found by hash only
chmod 3733 "$root/$course/inbound"  # install -d keeps an existing folder's special bits
stat -c '%A %U:%G %n' "$root" "$root/$course" "$root/$course"/*

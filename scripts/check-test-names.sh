#!/usr/bin/env bash
# Fails when two ctest entries share a name: a GoogleTest suite is one entry, so two test
# programs with a suite of the same name would run both under one name and ctest's
# properties and `-R` would not tell them apart. Rename one of the suites.
# usage: check-test-names.sh BUILD_DIR
set -euo pipefail
dupes=$(ctest --test-dir "$1" -N | sed -n 's/^ *Test *#[0-9]*: //p' | sort | uniq -d)
if [ -n "$dupes" ]; then
  while IFS= read -r name; do echo "ctest entry '$name' is defined more than once: two test programs have a suite of that name"; done <<<"$dupes"
  exit 1
fi
echo "test names: every ctest entry's name is unique"

#!/usr/bin/env bash
# Sets up, builds, lints the lines the last commit changed (scripts/lint.py;
# $FA_LINT_BASE picks another base), and runs the whole test suite (lit: IR
# tests, CPU numerics, runtime host tests, Python package tests), then prints
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
bash scripts/build.sh || exit 1
# clang-tidy costs ~40 s of CPU a file here: at most 4 changed sources.
.venv/bin/python scripts/lint.py --tidy-max 4
lint_status=$?
log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv build/test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
count() {
  local n
  n=$(grep -E "^ *$1: *[0-9]+" "$log" | grep -oE "[0-9]+" | head -1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count "Expectedly Failed") ))
failed=$(( $(count Failed) + $(count "Unexpectedly Passed") ))
rm -f "$log"
echo "${passed} passed, ${failed} failed"
if [[ $status -ne 0 || $failed -ne 0 || $passed -eq 0 || $lint_status -ne 0 ]]; then
  exit 1
fi

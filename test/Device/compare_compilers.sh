#!/bin/bash
# Compiles every kernel family the device round builds (forward matrix,
# benchmark schedules, variants, FP8, split-KV decode, varlen, backward,
# combine, the conversion tests) with two fa-compile binaries and compares
# their cubins byte for byte and their bundles' JSON as text
# (compare_families.py says how). Byte-identical cubins run at identical
# speed, so this answers "does the new compiler change any kernel?" without
# a GPU; the device round's A/B (PREV_FA_COMPILE) times the differing ones.
#   test/Device/compare_compilers.sh <old fa-compile> [new fa-compile] [options]
# Options go to compare_families.py (--jobs N, --ref-cache DIR, --family F).
# Prints one line per family and per difference; exit 1 when any differs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
old=${1:?usage: compare_compilers.sh <old fa-compile> [new fa-compile] [options]}
shift
new=$here/../../build/bin/fa-compile
if [[ $# -gt 0 && $1 != --* ]]; then new=$1; shift; fi
exec python3 "$here/compare_families.py" "$old" "$new" "$@"

#!/bin/bash
# Compiles the backward kernel sequences of the device round
# (gen_backward_inputs.py) into <out>/<config>/ (default
# .devbuild/backward), each folder one fa-kernel-sequence with its three
# kernel bundles and cubin, plus cfg.json; a ptxas resource report of all of
# them in <out>/ptxas.log. A configuration fa-compile rejects is an error,
# unless SKIP_REJECTED=1 (an earlier compiler for an A/B: what it cannot do
# is left out and listed in <out>/rejected.txt). FA_COMPILE_FLAGS: options
# added to every compile (the A/B of scripts/device-round.sh passes
# --bwd-query-tile=64 for the 64-query tile). ONLY: a regular expression;
# only the configurations whose names match it are built.
#   test/Device/build_backward.sh [fa-compile] [out]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
FC=${1:-$root/build/bin/fa-compile}
out=${2:-$root/.devbuild/backward}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf "$out"; mkdir -p "$out/src"
python3 "$here/gen_backward_inputs.py" "$out/src"
: > "$out/ptxas.log"
for f in "$out"/src/*.mlir; do
  n=$(basename "$f" .mlir)
  [[ -n ${ONLY:-} && ! $n =~ $ONLY ]] && continue
  # --deterministic, --bwd-query-tile=N as the configuration says, then
  # FA_COMPILE_FLAGS (whose --bwd-query-tile replaces the configuration's).
  flags=$(python3 "$here/gen_backward_inputs.py" flags "$out/src/$n.cfg.json")
  [[ ${FA_COMPILE_FLAGS:-} == *bwd-query-tile* ]] && flags=$(sed 's/--bwd-query-tile=[0-9]*//' <<< "$flags")
  read -r -a det <<< "$flags ${FA_COMPILE_FLAGS:-}"
  if [[ ${SKIP_REJECTED:-0} == 1 ]]; then
    "$FC" "$f" -o "$out/$n" "${det[@]}" 2>> "$out/rejected.txt" || { rm -rf "$out/$n"; continue; }
  else
    "$FC" "$f" -o "$out/$n" "${det[@]}"
  fi
  cp "$out/src/$n.cfg.json" "$out/$n/cfg.json"
  if [ -x "$PTXAS" ]; then
    "$FC" "$f" -o "$out/src/$n.isa" --format=isa "${det[@]}"
    "$PTXAS" -arch=sm_90a -v "$out/src/$n.isa"/*.ptx -o /dev/null >> "$out/ptxas.log" 2>&1
  fi
done
rm -rf "$out/src"
[[ -s $out/rejected.txt ]] && echo "build_backward: $(grep -c error "$out/rejected.txt") configurations rejected (see $out/rejected.txt)"
echo "build_backward: $(ls -d "$out"/*/ | wc -l) backward configurations in $out"
grep -E "spill" "$out/ptxas.log" | sort | uniq -c

#!/bin/bash
# Compiles the attention kernels of the device round into bundles under
# <out> (default .devbuild/kernels), plus a ptxas resource report.
#   test/Device/build_kernels.sh [fa-compile] [out]
# Normally run by `bash scripts/device-round.sh prepare`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
FC=${1:-$root/build/bin/fa-compile}
out=${2:-$root/.devbuild/kernels}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
rm -rf "$out"; mkdir -p "$out"
python3 "$here/gen_attention_inputs.py" all > "$out/all.mlir"
python3 "$here/gen_attention_inputs.py" bench > "$out/bench.mlir"
# The defaults (2 stages, intra-warpgroup overlap, no ping-pong) over the
# whole matrix; one schedule variant for the benchmark (no overlap).
"$FC" "$out/all.mlir" -o "$out"
"$FC" "$out/bench.mlir" -o "$out" --overlap=false
# Resource report (registers, stack, spills) from ptxas on the same PTX.
if [ -x "$PTXAS" ]; then
  mkdir -p "$out/ptx"
  "$FC" "$out/all.mlir" -o "$out/ptx" --format=isa
  "$FC" "$out/bench.mlir" -o "$out/ptx" --format=isa --overlap=false
  : > "$out/ptxas.log"
  for p in "$out"/ptx/*.ptx; do
    "$PTXAS" -arch=sm_90a -v "$p" -o /dev/null >> "$out/ptxas.log" 2>&1
  done
  rm -rf "$out/ptx"
  python3 "$here/ptxas_summary.py" "$out/ptxas.log" > "$out/ptxas-summary.txt"
else
  echo "no ptxas at $PTXAS: no resource report" > "$out/ptxas-summary.txt"
fi
echo "build_kernels: $(ls "$out"/*.cubin | wc -l) kernels in $out"

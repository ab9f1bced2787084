#!/bin/bash
# Compiles the attention kernels the device scripts use into bundles under
# .devbuild/kernels (carry .devbuild to the GPU machine).
#   test/Device/build_kernels.sh [fa-compile]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
FC=${1:-$root/build-hopper/bin/fa-compile}
out=$root/.devbuild/kernels
rm -rf "$out"; mkdir -p "$out"
python3 "$here/gen_attention_inputs.py" all > "$out/all.mlir"
python3 "$here/gen_attention_inputs.py" bench > "$out/bench.mlir"
"$FC" "$out/all.mlir" -o "$out"
# Variants for the benchmark: with ping-pong; no intra-warpgroup overlap.
"$FC" "$out/bench.mlir" -o "$out" --pingpong=true
"$FC" "$out/bench.mlir" -o "$out" --overlap=false
# Resource report (registers, spills) from ptxas on the same PTX.
mkdir -p "$out/ptx"
"$FC" "$out/all.mlir" -o "$out/ptx" --format=isa
"$FC" "$out/bench.mlir" -o "$out/ptx" --format=isa --pingpong=true
"$FC" "$out/bench.mlir" -o "$out/ptx" --format=isa --overlap=false
: > "$out/ptxas.log"
for p in "$out"/ptx/*.ptx; do
  /usr/local/cuda/bin/ptxas -arch=sm_90a -v "$p" -o /dev/null >> "$out/ptxas.log" 2>&1
done
python3 "$here/ptxas_summary.py" "$out/ptxas.log"

ls "$out"/*.cubin | wc -l

#!/bin/bash
# Builds primitives.mlir -> primitives.cubin with the stock MLIR 22 tools.
# Usage: test/Device/primitives/build.sh [outdir]   (default: .devbuild/primitives)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/.devbuild/primitives}
L=${LLVM_BIN:-/usr/lib/llvm-22/bin}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
mkdir -p "$out"
python3 "$here/gen_primitives.py" > "$out/primitives.mlir"
"$L/mlir-opt" "$out/primitives.mlir" \
  --convert-scf-to-cf --convert-arith-to-llvm --convert-cf-to-llvm \
  --convert-nvvm-to-llvm --reconcile-unrealized-casts --canonicalize --cse \
  -o "$out/primitives.llvm.mlir"
"$L/mlir-translate" --mlir-to-llvmir "$out/primitives.llvm.mlir" -o "$out/primitives.ll"
"$L/llc" -O3 -march=nvptx64 -mcpu=sm_90a -mattr=+ptx80 "$out/primitives.ll" -o "$out/primitives.ptx"
"$PTXAS" -arch=sm_90a -v "$out/primitives.ptx" -o "$out/primitives.cubin" 2> "$out/ptxas.log"
cat "$out/ptxas.log"

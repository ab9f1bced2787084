#!/bin/bash
# Builds what the GPU smoke test needs, on the build machine (no GPU needed):
# the sm_90a cubin of smoke_kernels.cu and libfa_runtime.so, into $1
# (default: test/Runtime/device/out, which .git/info/exclude should ignore so
# that the device tool can carry it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$here/out}
mkdir -p "$out"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
"$nvcc" -cubin -gencode=arch=compute_90a,code=sm_90a -O3 \
  -o "$out/smoke_kernels.cubin" "$here/smoke_kernels.cu"
# The runtime alone (FA_RUNTIME_ONLY): no MLIR needed.
cmake -G Ninja -S "$root" -B "$out/build" -DFA_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$out/build" -j2 fa_runtime >/dev/null
cp "$out/build/lib/libfa_runtime.so" "$out/"
rm -rf "$out/build"
ls -l "$out"

#!/usr/bin/env bash
# Configures (once) and builds fa-mlir in build/ with Ninja, Release.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f build/build.ninja ]]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DPython3_EXECUTABLE="$PWD/.venv/bin/python"
fi
ninja -C build ${JOBS:+-j$JOBS}

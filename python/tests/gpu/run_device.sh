#!/usr/bin/env bash
# The GPU tests in two halves. Here (the compiler machine):
#   bash python/tests/gpu/run_device.sh build     # AOT sm_90a bundles + libfa_runtime into python/tests/gpu/out
# On the GPU machine (no MLIR; carry python/tests/gpu/out):
#   bash python/tests/gpu/run_device.sh test
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${GPU_TEST_BUNDLES:-python/tests/gpu/out}
case "${1:-test}" in
  build)
    py=${PYTHON:-.venv/bin/python}
    rm -rf "$out"
    PYTHONPATH=python "$py" -m fa_mlir.aot --configs python/tests/gpu/configs.json \
      --out "$out" --target sm_90a --runtime ;;
  test)
    FA_MLIR_BUNDLE_PATH="$(cd "$out" && pwd)" FA_BUILD_DIR=/nonexistent PYTHONPATH=python \
      python3 -m pytest -q -p no:cacheprovider python/tests/gpu ;;
esac

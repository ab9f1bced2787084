#!/usr/bin/env bash
# The GPU tests in two halves. Here (the compiler machine):
#   bash python/tests/gpu/run_device.sh build     # AOT sm_90a bundles + libfa_runtime into python/tests/gpu/out
#   (a configuration fa-compile rejects is listed in out/failed.txt and left
#   out; the tests that need it fail on the GPU with "no sm_90a bundle")
# On the GPU machine (no MLIR; carry python/tests/gpu/out):
#   bash python/tests/gpu/run_device.sh test [PYTEST_ARGS...]
#   (default: the whole folder; e.g. python/tests/gpu/test_gpu_fp8.py)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${GPU_TEST_BUNDLES:-python/tests/gpu/out}
(( $# > 1 )) || set -- "${1:-test}" python/tests/gpu
case "$1" in
  build)
    py=${PYTHON:-.venv/bin/python}
    rm -rf "$out"
    PYTHONPATH=python "$py" -m fa_mlir.aot --configs python/tests/gpu/configs.json \
      --out "$out" --target sm_90a --runtime --keep-going ;;
  test)
    if [[ -s "$out/failed.txt" ]]; then
      echo "run_device.sh: kernels that did not build (their tests fail):"; cat "$out/failed.txt"
    fi
    FA_MLIR_BUNDLE_PATH="$(cd "$out" && pwd)" FA_BUILD_DIR=/nonexistent PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} \
      python3 -m pytest -q -p no:cacheprovider "${@:2}" ;;
esac

#!/usr/bin/env bash
# Builds the fa_mlir wheel into OUT_DIR. With a runtime library the wheel
# carries it as fa_mlir/lib/libfa_runtime.so (found there first by
# fa_mlir.gpu_runtime) and is tagged for this platform; such a wheel and an
# AOT bundle directory (python -m fa_mlir.aot) run the CUDA path on a machine
# without the compiler.
#   bash scripts/build-wheel.sh OUT_DIR [build/lib/libfa_runtime.so]
# Uses the running Python's setuptools (no download); PYTHON picks it.
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 OUT_DIR [libfa_runtime.so]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
runtime="${2:-}"
python="${PYTHON:-python3}"

# A copy of python/, so that the library never lands in the source tree.
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
tar -C "$root/python" --exclude=__pycache__ --exclude=tests \
    --exclude='*.egg-info' --exclude=build -cf - . | tar -C "$stage" -xf -
build_options=()
if [[ -n "$runtime" ]]; then
  mkdir -p "$stage/fa_mlir/lib"
  cp "$runtime" "$stage/fa_mlir/lib/libfa_runtime.so"
  plat="$("$python" -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')"
  build_options=(-C--build-option=--plat-name="$plat")
fi
"$python" -m pip wheel --quiet --disable-pip-version-check --no-deps \
  --no-build-isolation "${build_options[@]}" -w "$out" "$stage"
ls "$out"/fa_mlir-*.whl

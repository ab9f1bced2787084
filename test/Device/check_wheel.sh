#!/usr/bin/env bash
# The fa_mlir wheel on a GPU machine without the compiler (issue 38 item 4),
# in two halves. Here (the compiler machine, after scripts/build.sh):
#   bash test/Device/check_wheel.sh build [OUT]   # OUT: .devbuild/wheel
#     the wheel with libfa_runtime.so, and AOT sm_90a bundles of a causal
#     GQA bf16 attention's forward and backward
# On the GPU machine (carry OUT; no MLIR, no source tree on PYTHONPATH):
#   bash test/Device/check_wheel.sh test [OUT]
#     installs the wheel into a fresh venv that sees the machine's torch
#     (--system-site-packages), and runs forward and backward on CUDA from
#     the bundles against float64 with FlashAttention's criterion
#     (test/Device/check_wheel.py). Prints "wheel on cuda: ok".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${2:-$root/.devbuild/wheel}"
case "${1:-}" in
  build)
    rm -rf "$out" && mkdir -p "$out"
    PYTHON="$root/.venv/bin/python" bash "$root/scripts/build-wheel.sh" \
      "$out/dist" "$root/build/lib/libfa_runtime.so"
    printf '%s\n' '[{"dtype": "bf16", "head_dim": 64, "causal": true,' \
      ' "layout": "bhsd", "op": "both", "target": "sm_90a"}]' \
      > "$out/configs.json"
    FA_BUILD_DIR="$root/build" PYTHONPATH="$root/python" \
      "$root/.venv/bin/python" -m fa_mlir.aot --configs "$out/configs.json" \
      --out "$out/bundles" --target sm_90a
    cp "$root/test/Device/check_wheel.py" "$out/" ;;
  test)
    out="$(cd "$out" && pwd)"
    venv="$(mktemp -d)/venv"
    python3 -m venv "$venv"
    # What the wheel needs beside it, reached through one .pth rather than
    # installed: the machine's torch (it may live in another venv, not the
    # system's site packages) and jsonschema (pip would fetch it; the GPU
    # machine has no network, so the round's unpacked copy stands in).
    pth="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/machine-packages.pth"
    python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' > "$pth"
    if [[ -d $out/../pylib ]]; then (cd "$out/../pylib" && pwd) >> "$pth"; fi
    "$venv/bin/python" -m pip install --quiet --no-deps --no-index \
      "$out"/dist/fa_mlir-*.whl
    cd "$(dirname "$venv")"
    env -u PYTHONPATH FA_BUILD_DIR=/nonexistent \
      FA_MLIR_BUNDLE_PATH="$out/bundles" \
      "$venv/bin/python" "$out/check_wheel.py" "$venv" ;;
  *)
    echo "usage: $0 build|test [OUT]" >&2; exit 2 ;;
esac

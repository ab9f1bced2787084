#!/bin/bash
# Runs the GPU smoke test (on the GPU machine). $1: the folder build.sh
# filled (default: test/Runtime/device/out).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
art=${1:-$here/out}
work=$(mktemp -d)
cp "$here"/bundles/*.json "$art/smoke_kernels.cubin" "$work/"
PYTHONUNBUFFERED=1 python3 "$here/smoke.py" "$art/libfa_runtime.so" "$work"

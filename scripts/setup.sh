#!/usr/bin/env bash
# Installs what building and testing fa-mlir needs on Debian 12 (as root):
# LLVM/MLIR 22 from Debian's packages, the build tools, and a Python virtual
# environment (.venv) with the test dependencies and the linters
# (clang-format, clang-tidy, ruff from PyPI). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
          cmake ninja-build ccache python3 python3-venv
          nlohmann-json3-dev googletest libgtest-dev libclang-rt-22-dev
          libomp-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -x .venv/bin/python ]]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check \
  -r python/requirements-test.txt -r python/requirements-lint.txt

#!/usr/bin/env bash
# Creates .venv-bench (ignored by git) with numpy and PyTorch from PyPI, for
# the CPU benchmark only: the tests never need torch. PyPI's Linux torch
# wheel is the CUDA build; it runs on the CPU, its CUDA libraries unused.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ ! -x .venv-bench/bin/python ]]; then
  python3 -m venv .venv-bench
fi
.venv-bench/bin/python -m pip install -q --disable-pip-version-check \
    numpy "torch==2.9.1"
.venv-bench/bin/python -c "import torch; print('torch', torch.__version__)"

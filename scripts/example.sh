#!/usr/bin/env bash
# Sets up, builds and runs the main job: an attention program compiled by
# fa-opt and executed on this machine's CPU, checked against float64.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
FA_BUILD_DIR="$PWD/build" PYTHONPATH="$PWD/python" .venv/bin/python examples/attention_cpu.py "$@"

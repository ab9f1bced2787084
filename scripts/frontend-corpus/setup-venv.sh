#!/usr/bin/env bash
# Creates .venv-frontend (gitignored) with the corpus generator's pinned
# packages: torch, torch-mlir and transformers from PyPI. Only needed to
# regenerate test/Frontends/corpus; the tests read the committed files.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="${PYTHON:-python3.11}"
"$python" -m venv "$root/.venv-frontend"
"$root/.venv-frontend/bin/pip" install -q -r "$root/scripts/frontend-corpus/requirements.txt"

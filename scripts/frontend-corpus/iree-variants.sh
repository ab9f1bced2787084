#!/usr/bin/env bash
# Writes test/Frontends/corpus/<model>.sdpa-iree.f32.linalg.mlir: the
# corpus's sdpa-whole files with each tm_tensor.attention turned into
# iree_linalg_ext.attention by IREE's own conversion
# (--torch-iree-tm-tensor-to-linalg-ext, what IREE's torch input pipeline
# runs), from iree-base-compiler (pinned) in .venv-iree. Only files without
# tm_tensor.scan: fa-opt defines IREE's attention op, not its scan. The
# files are committed (CI does not need IREE); rerun after generate.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ ! -x .venv-iree/bin/iree-opt ]]; then
  python3 -m venv .venv-iree
  .venv-iree/bin/pip install -q iree-base-compiler==3.13.0
fi
corpus=test/Frontends/corpus
for model in bert-padded vit llama-padded t5; do
  src=$corpus/$model.sdpa-whole.f32.linalg.mlir
  dst=$corpus/$model.sdpa-iree.f32.linalg.mlir
  {
    echo "// $model, sdpa kept whole, f32: $(basename "$src") with IREE's"
    echo "// iree_linalg_ext.attention (iree-opt $(.venv-iree/bin/pip show iree-base-compiler | sed -n 's/^Version: //p')" \
         "--torch-iree-tm-tensor-to-linalg-ext)."
    echo "// Written by scripts/frontend-corpus/iree-variants.sh; do not edit."
    .venv-iree/bin/iree-opt \
      --pass-pipeline="builtin.module(func.func(torch-iree-tm-tensor-to-linalg-ext))" \
      "$src"
  } > "$dst"
  echo "wrote $dst"
done

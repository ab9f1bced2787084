"""Writes the seed corpus's compiler bundles: the fa-kernel-bundle JSON that
fa-compile writes for a spread of sm_90a configurations (no GPU needed).
Run from the repository root after the build:
    .venv/bin/python fuzz/runtime/make_seeds.py
The other seeds (input-*.json) are copies of test/Runtime/Inputs.
"""
import glob
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import fa_mlir  # noqa: E402
from fa_mlir import compiler  # noqa: E402

CONFIGS = [
    dict(dtype="bf16", head_dim=128),
    dict(dtype="f16", head_dim=64, layout="bshd", causal=True),
    dict(dtype="bf16", head_dim=128, causal=True, mask_alignment="bottom_right"),
    dict(dtype="bf16", head_dim=64, bias=(True, True), bias_dtype="bf16"),
    dict(dtype="f16", head_dim=64, layout="bshd", bias=(False, True),
         bias_dtype="f16", return_lse=False),
    dict(dtype="bf16", head_dim=128, window=(48, 16), softcap=50.0),
    dict(dtype="bf16", head_dim=192, head_dim_v=128, causal=True),
]


def main():
    out = os.path.join(HERE, "corpus")
    for cfg in CONFIGS:
        with tempfile.TemporaryDirectory() as tmp:
            compiler.build_bundle(fa_mlir.KernelConfig(**cfg), "sm_90a", tmp)
            for path in glob.glob(os.path.join(tmp, "fa_*.json")):
                shutil.copy(path, os.path.join(out, "compiler-" +
                                               os.path.basename(path)))


if __name__ == "__main__":
    main()

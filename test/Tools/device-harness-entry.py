# The device round's stage 12s (test/Device/check_sequence_modifiers.py)
# launches each configuration through one document of its folder. A ragged
# batch under a mask is compiled for the dynamic tile scheduler: a
# one-kernel sequence whose tile counter the runtime allocates. Its kernel's
# bundle alone lacks that workspace (the round failed 3 of 21 cases with
# "missing operand 'tile_counter'" when the harness took the bundle), so the
# entry must never be a bundle that a sequence of the folder launches.
# REQUIRES: ptxas
# RUN: rm -rf %t && mkdir -p %t
# RUN: for c in vl_alibi_causal_bf16_d128 vl_alibi_bf16_d128; do mkdir -p %t/$c && %python %fa_src_root/test/Device/check_sequence_modifiers.py gen $c > %t/$c/$c.mlir && fa-compile %t/$c/$c.mlir -o %t/$c || exit 1; done
# RUN: %python %s %t | FileCheck %s
# CHECK: vl_alibi_causal_bf16_d128: fa-kernel-sequence attention_varlen
# CHECK: vl_alibi_bf16_d128: fa-kernel-bundle attention_varlen
import glob
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "Device"))
import check_sequence_modifiers as harness  # noqa: E402

folder = sys.argv[1]
for name in ("vl_alibi_causal_bf16_d128", "vl_alibi_bf16_d128"):
    c = harness.CONFIGS[name]
    entry = harness.entry_path(folder, c)
    launched = set()
    for p in glob.glob(os.path.join(folder, name, "*.json")):
        with open(p) as f:
            meta = json.load(f)
        launched.update(os.path.join(folder, name, k) for k in meta.get("kernels", []))
    assert entry and entry not in launched, f"{name}: {entry} is launched by a sequence"
    with open(entry) as f:
        meta = json.load(f)
    print(f"{name}: {meta['format']} {meta['op']}")

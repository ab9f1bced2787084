# The mask table of test/lib/mask_cases.py (causal and sliding windows of
# both alignments, seq_q != seq_k, rows that see no key) through
# fa-cpu-pipeline, against that module's float64 reference and its own
# statement of the visibility rule. The same table is checked on the GPU by
# test/Device/check_attention.py (the device round).
#
# Per mask and dtype, one function with dynamic sequence lengths serves
# every (seq_q, seq_k) pair: f32 on every mask and pair, bf16 on three masks
# (first three pairs). The functions are compiled up front, two at a time,
# with clang -O0: fa-opt does the optimizing that matters here, and the
# numerics of the masks do not depend on clang's; this keeps the 14
# compiles within the test's time.
# Criterion, FlashAttention's: err <= 2 * err(plain) + eps, where plain is
# the textbook computation rounded to the dtype at every step; LSE within
# 1e-4 (relative to 1 + |lse|); rows without a visible key exactly O = 0 and
# LSE = -inf; nothing NaN.
# RUN: %python %s | FileCheck %s
# CHECK-NOT: FAIL
# CHECK: mask-cases: 0 failed
import concurrent.futures
import os
import time

import numpy as np

import mask_cases
from fa_mlir import config as fa_config, reference as fa_reference, testing
from fa_mlir.config import AttentionConfig
from fa_mlir.cpu import CompiledFunction, compile_to_shared_library
from fa_mlir.dtypes import round_to

PIPELINE = "fa-cpu-pipeline"
OPT = ("-O0",)
EPS = {"f32": 1e-5, "bf16": 1e-3}
BF16_MASKS = ("causal_br", "win_both_br", "win_causal_tl")
t0 = time.time()
failed = 0


def config(mask, dtype, sq, sk):
    return AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=sq, seq_k=sk,
                           head_dim=16, dtype=dtype, causal=mask.causal,
                           window=mask.window, mask_alignment=mask.align,
                           dynamic=("seq",))


def run_forward(cfg, inputs, so_path):
    """testing.run_forward on an already compiled library."""
    fn = CompiledFunction(so_path, "attention")
    args = [testing._encode(cfg, r, inputs[r]) for r in fa_config.forward_inputs(cfg)]
    outs = [testing._empty(cfg, r) for r in fa_config.forward_outputs(cfg)]
    fn(*args, *[o[0] for o in outs])
    o, lse = [testing._decode(cfg, base, dtype, arr) for arr, dtype, base in outs]
    return o, lse


def report(ok, what):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {what}", flush=True)


# The rule itself, three ways: the vectorized form used on both sides, the
# element-by-element form from `bounds`, and fa_mlir.reference.visibility
# (the Python package's oracle), on the table's pairs.
for mask in mask_cases.MASKS:
    agree = True
    for sq, sk in mask.pairs:
        if sq * sk > 400 * 400:
            continue
        vec = mask_cases.mask_visible(mask, sq, sk)
        agree &= np.array_equal(vec, mask_cases.visible_loops(mask, sq, sk))
        agree &= np.array_equal(vec, fa_reference.visibility(config(mask, "f32", sq, sk)))
    report(agree, f"{mask.name}: visibility rule agrees three ways")

# The table exercises seq_q != seq_k, and rows without keys for every mask
# that can leave a row without keys.
for mask in mask_cases.MASKS:
    dead = max(mask_cases.dead_rows(mask, sq, sk) for sq, sk in mask.pairs)
    uneven = any(sq != sk for sq, sk in mask.pairs)
    report(uneven and (dead > 0) == mask_cases.can_hide_rows(mask),
           f"{mask.name}: pairs include seq_q != seq_k, up to {dead} rows without keys "
           f"(possible: {mask_cases.can_hide_rows(mask)})")

jobs = [(m, "f32", m.pairs) for m in mask_cases.MASKS]
jobs += [(mask_cases.BY_NAME[n], "bf16", mask_cases.BY_NAME[n].pairs[:3]) for n in BF16_MASKS]
with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
    libs = list(pool.map(lambda j: compile_to_shared_library(
        fa_config.forward_mlir(config(j[0], j[1], 1, 1)), PIPELINE, OPT), jobs))
print(f"compiled {len(jobs)} functions ({time.time() - t0:.1f} s)", flush=True)

for (mask, dtype, pairs), so_path in zip(jobs, libs):
    for n, (sq, sk) in enumerate(pairs):
        cfg = config(mask, dtype, sq, sk)
        inputs = testing.random_inputs(cfg, seed=n + 7 * len(mask.name))
        q, k, v = inputs["query"], inputs["key"], inputs["value"]
        keep = mask_cases.mask_visible(mask, sq, sk)
        scale = cfg.effective_scale
        ref_o, ref_lse = mask_cases.reference(q, k, v, scale, keep)
        plain, _ = mask_cases.reference(
            q, k, v, scale, keep,
            rnd=lambda x, d=dtype: round_to(x, d).astype(np.float64))
        o, lse = run_forward(cfg, inputs, so_path)
        err = fa_reference.max_error(o, ref_o)
        base = fa_reference.max_error(plain, ref_o)
        live = np.isfinite(ref_lse)
        lse_err = float((np.abs(lse[live] - ref_lse[live]) /
                         (1 + np.abs(ref_lse[live]))).max(initial=0))
        dead = ~live
        dead_ok = bool(np.all(o[np.broadcast_to(dead[..., None], o.shape)] == 0)
                       and np.all(np.isneginf(lse[dead])))
        finite = bool(np.all(np.isfinite(o)) and not np.isnan(lse).any())
        ok = (err <= 2 * base + EPS[dtype] and lse_err <= 1e-4 and dead_ok
              and finite)
        report(ok, f"{dtype} {mask.name} {sq}x{sk}: err {err:.3g} plain {base:.3g} "
                   f"lse_err {lse_err:.3g} rows without keys {int(dead[0, 0].sum())} "
                   f"(O=0, LSE=-inf: {dead_ok})")

print(f"mask-cases: {failed} failed ({time.time() - t0:.1f} s)")

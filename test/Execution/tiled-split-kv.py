# Split-KV: fa.attention {num_splits} through fa-tile-attention (partial O
# and LSE per key chunk, merged by fa.combine) against float64 with
# FlashAttention's criterion, and against the unsplit lowering (equal within
# f32 rounding). Splits that see no key (more splits than key tiles, windows,
# fully masked rows) give partial LSE -inf. Then fa.combine alone against a
# numpy merge, with rows whose every partial LSE is -inf and garbage in the
# partial outputs of -inf splits.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir import reference, testing
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.config import AttentionConfig
from fa_mlir.memref import CompiledFunction

PIPELINE = "fa-cpu-pipeline{tiled=true}"
# num_splits = 0 picks splits from the core count: as many as a 64-core host
# would, so that the heuristic splits here too (this host has few cores).
MANY_CORES = "fa-cpu-pipeline{tiled=true cores=64}"
DECODE = dict(batch=2, heads_q=8, heads_kv=2, seq_q=1, seq_k=300, head_dim=32)
CASES = {
    "decode-heuristic": dict(num_splits=0),
    "decode-3": dict(num_splits=3),
    "decode-5-uneven": dict(num_splits=5, seq_k=257),
    "more-splits-than-tiles": dict(num_splits=16, seq_k=100),
    "few-tokens-causal": dict(num_splits=4, seq_q=5, seq_k=333, causal=True,
                              mask_alignment="bottom_right"),
    "window": dict(num_splits=4, seq_q=3, seq_k=400, window=(70, 0),
                   mask_alignment="bottom_right"),
    "softcap-mqa": dict(num_splits=2, heads_kv=1, softcap=5.0),
    "bshd-dynamic": dict(num_splits=0, layout="bshd", seq_q=4, causal=True,
                         mask_alignment="bottom_right",
                         dynamic=("batch", "seq")),
}

failed = 0


def check(tag, ok, detail=""):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {tag} {detail}")


for dtype in ("f32", "bf16"):
    for name, overrides in CASES.items():
        cfg = AttentionConfig(**{**DECODE, "dtype": dtype, **overrides})
        pipeline = MANY_CORES if cfg.num_splits == 0 else PIPELINE
        r = testing.check_forward(cfg, seed=len(name), pipeline=pipeline)
        check(f"{dtype} {name}", r["ok"],
              f"err {r['err']:.3g} baseline {r['baseline']:.3g} "
              f"lse_err {r['lse_err']:.3g}")

# Split equals unsplit within f32 rounding.
for name in ("decode-3", "few-tokens-causal", "window"):
    split = AttentionConfig(**{**DECODE, **CASES[name]})
    whole = AttentionConfig(**{**DECODE, **CASES[name], "num_splits": None})
    inputs = testing.random_inputs(split, seed=11)
    o_split, lse_split = testing.run_forward(split, inputs, PIPELINE)
    o_whole, lse_whole = testing.run_forward(whole, inputs, PIPELINE)
    diff = max(reference.max_error(o_split, o_whole),
               reference.max_error(lse_split, lse_whole))
    check(f"split == unsplit {name}", diff <= 1e-5, f"diff {diff:.3g}")

# Fully masked rows under splits: bottom-right causal with seq_q > seq_k.
cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=200, seq_k=70,
                      head_dim=16, causal=True, mask_alignment="bottom_right",
                      num_splits=3)
inputs = testing.random_inputs(cfg, seed=3)
o, lse = testing.run_forward(cfg, inputs, PIPELINE)
hidden = cfg.seq_q - cfg.seq_k
ref_o, _ = reference.forward(cfg, inputs["query"], inputs["key"], inputs["value"])
check("split fully-masked rows give O=0, LSE=-inf",
      np.all(o[:, :, :hidden] == 0) and np.all(np.isneginf(lse[:, :, :hidden]))
      and np.all(np.isfinite(o)) and np.all(np.isfinite(lse[:, :, hidden:]))
      and reference.max_error(o, ref_o) < 1e-5)

# fa.combine alone: partials [splits, rows, dim], rows 0 and 3 fully -inf.
S, R, D = 3, 5, 8
rng = np.random.default_rng(0)
po = rng.standard_normal((S, R, D)).astype(np.float32)
pl = (rng.standard_normal((S, R)) * 4).astype(np.float32)
pl[:, 0] = -np.inf
pl[:, 3] = -np.inf
pl[1, 2] = -np.inf
po[1, 2] = np.nan  # a split with LSE -inf contributes nothing
po[:, 3] = np.nan
text = f"""
func.func @combine(%po: memref<{S}x{R}x{D}xf32>, %pl: memref<{S}x{R}xf32>,
                   %o: memref<{R}x{D}xf32>, %l: memref<{R}xf32>)
    attributes {{llvm.emit_c_interface}} {{
  %pot = bufferization.to_tensor %po restrict : memref<{S}x{R}x{D}xf32> to tensor<{S}x{R}x{D}xf32>
  %plt = bufferization.to_tensor %pl restrict : memref<{S}x{R}xf32> to tensor<{S}x{R}xf32>
  %ot, %lt = fa.combine %pot, %plt : tensor<{S}x{R}x{D}xf32>, tensor<{S}x{R}xf32> -> tensor<{R}x{D}xf32>, tensor<{R}xf32>
  bufferization.materialize_in_destination %ot in restrict writable %o : (tensor<{R}x{D}xf32>, memref<{R}x{D}xf32>) -> ()
  bufferization.materialize_in_destination %lt in restrict writable %l : (tensor<{R}xf32>, memref<{R}xf32>) -> ()
  return
}}
"""
for pipeline in (PIPELINE, "fa-cpu-pipeline{tiled=false}"):
    fn = CompiledFunction(compile_to_shared_library(text, pipeline), "combine")
    o = np.empty((R, D), np.float32)
    lse = np.empty((R,), np.float32)
    fn(po, pl, o, lse)
    pl64 = pl.astype(np.float64)
    m = pl64.max(axis=0)
    live = np.isfinite(m)
    w = np.where(np.isneginf(pl64), 0.0, np.exp(pl64 - np.where(live, m, 0)))
    po64 = np.where(w[..., None] == 0, 0.0, po.astype(np.float64))
    s = w.sum(axis=0)
    ref_o = np.where(live[:, None], (w[..., None] * po64).sum(0) /
                     np.where(live, s, 1)[:, None], 0.0)
    ref_l = np.where(live, m + np.log(np.where(live, s, 1)), -np.inf)
    ok = (np.all(np.isfinite(o)) and np.all(o[~live] == 0)
          and np.all(np.isneginf(lse[~live]))
          and np.abs(o - ref_o).max() < 1e-5
          and np.abs(lse[live] - ref_l[live]).max() < 1e-5)
    check(f"fa.combine {pipeline}", ok)

print(f"{failed} failed")

# fa.attention through the reference decomposition (fa-cpu-pipeline with
# tiled=false) against an independent float64 numpy reference, with
# FlashAttention's error criterion.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir.config import AttentionConfig
from fa_mlir import reference, testing

PIPELINE = "fa-cpu-pipeline{tiled=false}"

FEATURES = {
    "plain": dict(),
    "causal-top-left": dict(seq_q=12, seq_k=20, causal=True),
    "causal-bottom-right": dict(seq_q=12, seq_k=20, causal=True,
                                mask_alignment="bottom_right"),
    "window": dict(window=(3, 2)),
    "window-causal-br": dict(seq_q=9, seq_k=14, causal=True, window=(4, 0),
                             mask_alignment="bottom_right"),
    "softcap": dict(softcap=2.0),
    "bias-per-head": dict(bias=(True, True)),
    "bias-broadcast": dict(bias=(False, False), causal=True),
    "gqa-4": dict(heads_q=8, heads_kv=2),
    "mqa": dict(heads_q=4, heads_kv=1, seq_q=7, seq_k=11),
    "seq-1": dict(seq_q=1, seq_k=1),
    "v-dim": dict(head_dim=16, head_dim_v=24),
    "bshd": dict(layout="bshd", heads_q=4, heads_kv=2, causal=True),
    "dynamic": dict(dynamic=("batch", "seq"), seq_q=10, seq_k=13,
                    causal=True, mask_alignment="bottom_right"),
    "dynamic-heads": dict(dynamic=("batch", "heads", "seq"), heads_q=4,
                          heads_kv=2, bias=(False, True)),
    "scale": dict(scale=0.3, softcap=1.5, bias=(False, True)),
}

failed = 0
for dtype in ("f32", "f16", "bf16"):
    for name, overrides in FEATURES.items():
        cfg = AttentionConfig(**{**dict(batch=2, heads_q=2, heads_kv=2,
                                        seq_q=16, seq_k=16, head_dim=16,
                                        dtype=dtype), **overrides})
        r = testing.check_forward(cfg, seed=len(name), pipeline=PIPELINE)
        status = "ok" if r["ok"] else "FAIL"
        failed += not r["ok"]
        print(f"{status} {dtype} {name}: err {r['err']:.3g} "
              f"baseline {r['baseline']:.3g} lse_err {r.get('lse_err', 0):.3g}")

# Fully masked rows: bottom-right causal with seq_q > seq_k hides every key
# from the first seq_q - seq_k rows. Their output is 0 and LSE -inf, not NaN.
cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=8, seq_k=5,
                      head_dim=8, causal=True, mask_alignment="bottom_right")
inputs = testing.random_inputs(cfg, seed=3)
o, lse = testing.run_forward(cfg, inputs, PIPELINE)
masked_ok = (np.all(o[:, :, :3] == 0) and np.all(np.isneginf(lse[:, :, :3]))
             and np.all(np.isfinite(o)) and np.all(np.isfinite(lse[:, :, 3:])))
ref_o, _ = reference.forward(cfg, inputs["query"], inputs["key"], inputs["value"])
masked_ok = masked_ok and reference.max_error(o, ref_o) < 1e-5
failed += not masked_ok
print(f"{'ok' if masked_ok else 'FAIL'} fully-masked rows give O=0, LSE=-inf")

print(f"{failed} failed")

# fa.attention_grad through the reference decomposition against the float64
# analytic gradients, and on a tiny f32 case against central finite
# differences of the float64 forward.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed

from fa_mlir.config import AttentionConfig
from fa_mlir import testing

PIPELINE = "fa-cpu-pipeline{tiled=false}"

FEATURES = {
    "plain": dict(),
    "causal-br": dict(seq_q=9, seq_k=13, causal=True,
                      mask_alignment="bottom_right"),
    "window": dict(window=(2, 1)),
    "softcap": dict(softcap=2.0),
    "bias-per-head": dict(bias=(True, True)),
    "bias-broadcast": dict(bias=(False, False), causal=True),
    "gqa": dict(heads_q=4, heads_kv=2, head_dim_v=12),
    "mqa-bshd": dict(heads_q=3, heads_kv=1, layout="bshd"),
    "dynamic": dict(dynamic=("seq",), seq_q=7, seq_k=10, causal=True),
    "dynamic-heads": dict(dynamic=("batch", "heads", "seq"), heads_q=4,
                          heads_kv=2, bias=(True, True)),
}

failed = 0
for dtype in ("f32", "f16", "bf16"):
    for name, overrides in FEATURES.items():
        cfg = AttentionConfig(**{**dict(batch=2, heads_q=2, heads_kv=2,
                                        seq_q=12, seq_k=12, head_dim=8,
                                        dtype=dtype), **overrides})
        r = testing.check_backward(cfg, seed=len(name), pipeline=PIPELINE)
        failed += not r["ok"]
        errs = " ".join(f"{k} {v[0]:.3g}/{v[1]:.3g}" for k, v in r.items()
                        if k != "ok")
        print(f"{'ok' if r['ok'] else 'FAIL'} {dtype} {name}: {errs}")

# Finite differences of the float64 reference forward check the analytic
# reference itself, and the compiled backward against both.
cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=4, seq_k=5,
                      head_dim=3, causal=True, mask_alignment="bottom_right",
                      softcap=1.5, bias=(False, True))
worst = testing.finite_difference_error(cfg, seed=11, pipeline=PIPELINE)
fd_ok = worst < 1e-4
failed += not fd_ok
print(f"{'ok' if fd_ok else 'FAIL'} finite differences: max error {worst:.3g}")
print(f"{failed} failed")

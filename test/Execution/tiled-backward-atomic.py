# fa-tile-attention's backward with dq-accumulation=atomic (dQ added from the
# dK/dV nest with memref atomics) against the float64 analytic gradients,
# with FlashAttention's criterion, and against finite differences.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
from fa_mlir.config import AttentionConfig
from fa_mlir import testing

PIPELINE = ("fa-tile-attention{dq-accumulation=atomic block-q=16 block-k=16},"
            "fa-cpu-pipeline")
BASE = dict(batch=2, heads_q=2, heads_kv=2, seq_q=40, seq_k=40, head_dim=16)
CASES = {
    "plain": dict(),
    "causal-br": dict(causal=True, mask_alignment="bottom_right", seq_q=37,
                      seq_k=50),
    "gqa-bias-softcap-bshd": dict(heads_q=4, heads_kv=2, bias=(False, True),
                                  softcap=2.0, layout="bshd"),
    "window": dict(window=(5, 3)),
    "dynamic-causal": dict(dynamic=("batch", "seq"), seq_q=30, seq_k=20,
                           causal=True),
}

failed = 0
for dtype in ("f32", "f16", "bf16"):
    for name, overrides in CASES.items():
        cfg = AttentionConfig(**{**BASE, "dtype": dtype, **overrides})
        r = testing.check_backward(cfg, seed=len(name), pipeline=PIPELINE)
        failed += not r["ok"]
        errs = " ".join(f"{k} {v[0]:.3g}/{v[1]:.3g}" for k, v in r.items()
                        if k != "ok")
        print(f"{'ok' if r['ok'] else 'FAIL'} {dtype} {name}: {errs}")

cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=3, seq_k=20,
                      head_dim=2, causal=True, mask_alignment="bottom_right",
                      softcap=1.5, bias=(False, True))
worst = testing.finite_difference_error(cfg, seed=5, pipeline=PIPELINE)
failed += not worst < 1e-4
print(f"{'ok' if worst < 1e-4 else 'FAIL'} finite differences: {worst:.3g}")
print(f"{failed} failed")

# fa.attention_grad through fa-tile-attention (fa-cpu-pipeline, tiled=true)
# against the float64 analytic gradients with FlashAttention's criterion,
# and on tiny f32 cases against central finite differences of the float64
# forward. Sequence lengths cross the 64-row tiles so that the recomputed
# scores, skipped tiles and boundary masks of the backward nests are all
# exercised; one 1000-token case.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed

from fa_mlir.config import AttentionConfig
from fa_mlir import testing

PIPELINE = "fa-cpu-pipeline{tiled=true}"
BASE = dict(batch=2, heads_q=2, heads_kv=2, seq_q=100, seq_k=100,
            head_dim=16)

FEATURES = {
    "plain": dict(),
    "seq-1": dict(seq_q=1, seq_k=1),
    "seq-17-vs-130": dict(seq_q=17, seq_k=130),
    "causal-top-left": dict(seq_q=130, seq_k=90, causal=True),
    "causal-bottom-right": dict(seq_q=90, seq_k=150, causal=True,
                                mask_alignment="bottom_right"),
    "causal-br-masked-rows": dict(seq_q=150, seq_k=70, causal=True,
                                  mask_alignment="bottom_right"),
    "window": dict(seq_q=150, seq_k=150, window=(40, 3)),
    "softcap": dict(softcap=2.0, causal=True),
    "bias-per-head": dict(bias=(True, True), seq_q=70, seq_k=90),
    "bias-broadcast": dict(bias=(False, False), causal=True, heads_q=4,
                           heads_kv=2),
    "bias-per-batch": dict(bias=(True, False), seq_q=70, seq_k=80),
    "bias-softcap-window": dict(bias=(False, True), softcap=1.5,
                                window=(30, 30), scale=0.4),
    "gqa-4": dict(heads_q=8, heads_kv=2, seq_q=70, seq_k=100),
    "mqa-bshd": dict(heads_q=3, heads_kv=1, layout="bshd", causal=True),
    "v-dim": dict(head_dim=16, head_dim_v=24),
    "dynamic": dict(dynamic=("batch", "heads", "seq"), seq_q=70, seq_k=93,
                    causal=True, mask_alignment="bottom_right"),
}

failed = 0


def report(tag, r):
    global failed
    failed += not r["ok"]
    errs = " ".join(f"{k} {v[0]:.3g}/{v[1]:.3g}" for k, v in r.items()
                    if k != "ok")
    print(f"{'ok' if r['ok'] else 'FAIL'} {tag}: {errs}")


for dtype in ("f32", "f16", "bf16"):
    for name, overrides in FEATURES.items():
        cfg = AttentionConfig(**{**BASE, "dtype": dtype, **overrides})
        report(f"{dtype} {name}",
               testing.check_backward(cfg, seed=len(name), pipeline=PIPELINE))

for d, dv in ((64, 64), (128, 128), (256, 256), (64, 32)):
    cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=80, seq_k=80,
                          head_dim=d, head_dim_v=dv, dtype="bf16", causal=True)
    report(f"bf16 head_dim {d}/{dv}",
           testing.check_backward(cfg, seed=d, pipeline=PIPELINE))

cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=1000, seq_k=1000,
                      head_dim=64, dtype="f16", causal=True)
report("f16 seq 1000 causal gqa",
       testing.check_backward(cfg, seed=9, pipeline=PIPELINE))

# Finite differences of the float64 forward: every element of Q, K, V and
# the bias, on tiny f32 problems that still span two tiles in seq.
def finite_differences(cfg, seed):
    return testing.finite_difference_error(cfg, seed=seed, pipeline=PIPELINE)


for tag, cfg in (
        ("causal-br softcap bias gqa",
         AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=3, seq_k=70,
                         head_dim=2, causal=True, mask_alignment="bottom_right",
                         softcap=1.5, bias=(False, True))),
        ("window two query tiles",
         AttentionConfig(batch=1, heads_q=1, heads_kv=1, seq_q=66, seq_k=4,
                         head_dim=2, window=(1, 1),
                         mask_alignment="bottom_right"))):
    worst = finite_differences(cfg, seed=11)
    ok = worst < 1e-4
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} finite differences, {tag}: max error "
          f"{worst:.3g}")

print(f"{failed} failed")

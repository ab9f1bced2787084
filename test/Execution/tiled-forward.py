# fa.attention through fa-tile-attention (fa-cpu-pipeline, tiled=true)
# against the float64 numpy reference with FlashAttention's criterion: our
# error <= 2x the error of a plain low-precision implementation + eps.
# Sequence lengths straddle the 64-row tiles (1, 17, 65, 128, 200, 1000) so
# that tails, skipped tiles and boundary tiles all occur; one 4096-token case.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir.config import AttentionConfig
from fa_mlir import reference, testing

PIPELINE = "fa-cpu-pipeline{tiled=true}"
BASE = dict(batch=2, heads_q=2, heads_kv=2, seq_q=128, seq_k=128,
            head_dim=32)

FEATURES = {
    "plain": dict(),
    "seq-17": dict(seq_q=17, seq_k=17),
    "seq-1": dict(seq_q=1, seq_k=1),
    "seq-1-vs-200": dict(seq_q=1, seq_k=200, causal=True,
                         mask_alignment="bottom_right"),
    "sq-ne-sk": dict(seq_q=65, seq_k=200),
    "causal-top-left": dict(seq_q=130, seq_k=200, causal=True),
    "causal-top-left-sq>sk": dict(seq_q=200, seq_k=130, causal=True),
    "causal-bottom-right": dict(seq_q=130, seq_k=200, causal=True,
                                mask_alignment="bottom_right"),
    "window": dict(seq_q=200, seq_k=200, window=(70, 5)),
    "window-left-0": dict(seq_q=150, seq_k=150, window=(0, 0)),
    "window-causal-br": dict(seq_q=100, seq_k=190, causal=True,
                             window=(90, 3), mask_alignment="bottom_right"),
    "softcap": dict(softcap=2.0, causal=True),
    "bias-per-head": dict(bias=(True, True), seq_q=70, seq_k=90),
    "bias-broadcast": dict(bias=(False, False), causal=True, seq_q=90,
                           seq_k=90),
    "bias-softcap-scale": dict(scale=0.3, softcap=1.5, bias=(False, True),
                               seq_q=70, seq_k=80),
    "gqa-4": dict(heads_q=8, heads_kv=2, seq_q=70, seq_k=100),
    "mqa": dict(heads_q=4, heads_kv=1, seq_q=70, seq_k=100, causal=True),
    "v-dim": dict(head_dim=32, head_dim_v=48, seq_q=70, seq_k=70),
    "bshd": dict(layout="bshd", heads_q=4, heads_kv=2, causal=True,
                 seq_q=100, seq_k=100),
    "dynamic": dict(dynamic=("batch", "heads", "seq"), seq_q=70, seq_k=93,
                    causal=True, mask_alignment="bottom_right",
                    heads_q=4, heads_kv=2),
    "large-logits": dict(seq_q=70, seq_k=70, scale=4.0),
}

failed = 0


def report(tag, r):
    global failed
    failed += not r["ok"]
    print(f"{'ok' if r['ok'] else 'FAIL'} {tag}: err {r['err']:.3g} "
          f"baseline {r['baseline']:.3g} lse_err {r.get('lse_err', 0):.3g}")


for dtype in ("f32", "f16", "bf16"):
    for name, overrides in FEATURES.items():
        cfg = AttentionConfig(**{**BASE, "dtype": dtype, **overrides})
        report(f"{dtype} {name}",
               testing.check_forward(cfg, seed=len(name), pipeline=PIPELINE))

# Every supported head dim (and a V dim different from the QK dim).
for d, dv in ((32, 32), (64, 64), (128, 128), (256, 256), (64, 128)):
    cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=100,
                          seq_k=100, head_dim=d, head_dim_v=dv, dtype="bf16",
                          causal=True)
    report(f"bf16 head_dim {d}/{dv}",
           testing.check_forward(cfg, seed=d, pipeline=PIPELINE))

# The long sequences, few of them: 1000 (not a tile multiple) and 4096.
for cfg in (AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=1000,
                            seq_k=1000, head_dim=64, dtype="f16",
                            window=(300, 0)),
            AttentionConfig(batch=1, heads_q=1, heads_kv=1, seq_q=4096,
                            seq_k=4096, head_dim=64, dtype="bf16",
                            causal=True)):
    report(f"{cfg.dtype} seq {cfg.seq_q}",
           testing.check_forward(cfg, seed=5, pipeline=PIPELINE))

# Fully masked rows: bottom-right causal with seq_q > seq_k hides every key
# from the first seq_q - seq_k rows, which span several tiles and whose
# key loop is empty. Their output is 0 and LSE -inf, never NaN.
cfg = AttentionConfig(batch=1, heads_q=2, heads_kv=1, seq_q=200, seq_k=70,
                      head_dim=16, causal=True, mask_alignment="bottom_right")
inputs = testing.random_inputs(cfg, seed=3)
o, lse = testing.run_forward(cfg, inputs, PIPELINE)
hidden = cfg.seq_q - cfg.seq_k
masked_ok = (np.all(o[:, :, :hidden] == 0)
             and np.all(np.isneginf(lse[:, :, :hidden]))
             and np.all(np.isfinite(o)) and np.all(np.isfinite(lse[:, :, hidden:])))
ref_o, _ = reference.forward(cfg, inputs["query"], inputs["key"], inputs["value"])
masked_ok = masked_ok and reference.max_error(o, ref_o) < 1e-5
failed += not masked_ok
print(f"{'ok' if masked_ok else 'FAIL'} fully-masked rows give O=0, LSE=-inf")

# A bias of -inf hides whole rows too (inside a tile the loop visits).
cfg = AttentionConfig(batch=1, heads_q=1, heads_kv=1, seq_q=80, seq_k=80,
                      head_dim=16, bias=(False, False))
inputs = testing.random_inputs(cfg, seed=4)
inputs["bias"][..., 3, :] = -np.inf
inputs["bias"][..., 70, :] = -np.inf
o, lse = testing.run_forward(cfg, inputs, PIPELINE)
bias_ok = (np.all(o[0, 0, [3, 70]] == 0) and np.all(np.isneginf(lse[0, 0, [3, 70]]))
           and np.all(np.isfinite(o)))
failed += not bias_ok
print(f"{'ok' if bias_ok else 'FAIL'} -inf bias rows give O=0, LSE=-inf")

print(f"{failed} failed")

# fa-tile-attention with unusual block sizes (block-q != block-k, blocks of
# 1, blocks that divide nothing) so that many tiles straddle the causal and
# window boundaries in every alignment; forward and backward against the
# float64 reference. (With the default 64 x 64 tiles these small problems
# would fit one tile.) Note: dQ/dK/dV sum in the same order for every
# blocking, so the backward errors coincide across block sizes.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
from fa_mlir.config import AttentionConfig
from fa_mlir import testing

CASES = {
    "causal-br": dict(seq_q=45, seq_k=60, causal=True,
                      mask_alignment="bottom_right"),
    "causal-tl-sq>sk": dict(seq_q=60, seq_k=45, causal=True),
    "window-br": dict(seq_q=50, seq_k=41, window=(9, 4),
                      mask_alignment="bottom_right"),
    "window-causal-bias": dict(seq_q=50, seq_k=50, window=(13, 20),
                               causal=True, bias=(False, True)),
}
failed = 0
for bq, bk in ((16, 24), (7, 5), (1, 3), (32, 1)):
    pipeline = (f"fa-tile-attention{{block-q={bq} block-k={bk}}},"
                "fa-cpu-pipeline")
    for name, overrides in CASES.items():
        cfg = AttentionConfig(batch=1, heads_q=4, heads_kv=2, head_dim=8,
                              dtype="f32", **overrides)
        fwd = testing.check_forward(cfg, seed=3, pipeline=pipeline)
        bwd = testing.check_backward(cfg, seed=3, pipeline=pipeline)
        ok = fwd["ok"] and bwd["ok"]
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} blocks {bq}x{bk} {name}: forward "
              f"{fwd['err']:.3g}/{fwd['baseline']:.3g} " +
              " ".join(f"{k} {v[0]:.3g}/{v[1]:.3g}" for k, v in bwd.items()
                       if k != "ok"))
print(f"{failed} failed")

"""CPU forward bundles (fa_mlir.compile) against the float64 reference, with
FlashAttention's criterion; one dynamic-shape kernel serves several shapes."""
import numpy as np
import pytest

import fa_mlir
from fa_mlir import reference
from fa_mlir.config import AttentionConfig

from _util import decode, encode, random_inputs, within_criterion

FEATURES = {
    "plain": dict(),
    "causal": dict(causal=True),
    "causal-bottom-right": dict(causal=True, mask_alignment="bottom_right"),
    "window": dict(window=(3, 1)),
    "softcap-scale": dict(softcap=2.0, scale=0.3),
    "bias": dict(bias=(True, False)),
    "gqa-v-dim": dict(heads_q=4, heads_kv=2, head_dim_v=8),
    "bshd": dict(layout="bshd", heads_q=2, heads_kv=1, causal=True),
}
SHAPES = [(2, 9, 9), (1, 5, 12), (3, 1, 1)]  # batch, seq_q, seq_k


def run(bundle, acfg, inputs):
    lay = acfg.layout
    args = {r: encode(inputs[r], acfg.dtype, lay)
            for r in ("query", "key", "value")}
    if acfg.bias:
        args["bias"] = encode(inputs["bias"], acfg.bias_dtype)
    o, lse = bundle(**args)
    return decode(o, acfg.dtype, lay), lse


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("feature", list(FEATURES))
def test_forward(dtype, feature):
    fields = dict(dtype=dtype, head_dim=16, heads_q=2, heads_kv=2)
    fields.update(FEATURES[feature])
    bundle = fa_mlir.compile(**fields)
    kcfg = bundle.config
    assert kcfg.dynamic == ("batch", "seq")
    for seed, (b, sq, sk) in enumerate(SHAPES):
        acfg = AttentionConfig(**{**kcfg.attention_config().__dict__,
                                  "batch": b, "seq_q": sq, "seq_k": sk,
                                  "dynamic": ()})
        inputs = random_inputs(acfg, seed)
        ref_o, ref_lse = reference.forward(
            acfg, inputs["query"], inputs["key"], inputs["value"],
            inputs.get("bias"))
        base_o = reference.forward_lowp(
            acfg, inputs["query"], inputs["key"], inputs["value"],
            inputs.get("bias"))
        o, lse = run(bundle, acfg, inputs)
        ok, errs = within_criterion(o, ref_o, base_o, dtype)
        assert ok, f"{(b, sq, sk)}: err {errs[0]:.3g} vs baseline {errs[1]:.3g}"
        assert reference.max_error(lse, ref_lse) < 1e-4 * max(
            1.0, np.abs(ref_lse[np.isfinite(ref_lse)]).max(initial=0))


def test_fully_masked_rows_are_zero_with_lse_minus_inf():
    bundle = fa_mlir.compile(dtype="f32", head_dim=8, heads_q=2, heads_kv=1,
                             causal=True, mask_alignment="bottom_right")
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 2, 8, 8)).astype(np.float32)
    k = rng.standard_normal((1, 1, 5, 8)).astype(np.float32)
    o, lse = bundle(query=q, key=k, value=k.copy())
    assert np.all(o[:, :, :3] == 0) and np.all(np.isneginf(lse[:, :, :3]))
    assert np.all(np.isfinite(o)) and np.all(np.isfinite(lse[:, :, 3:]))

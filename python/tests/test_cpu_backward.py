"""CPU backward bundles against the float64 analytic gradients (themselves
checked against finite differences in test_reference.py)."""
import numpy as np
import pytest

import fa_mlir
from fa_mlir import reference
from fa_mlir.config import AttentionConfig
from fa_mlir.dtypes import round_to

from _util import decode, encode, random_inputs, within_criterion

FEATURES = {
    "plain": dict(),
    "causal-window": dict(causal=True, window=(2, 0)),
    "softcap-bias": dict(softcap=1.5, bias=(False, True)),
    "gqa": dict(heads_q=4, heads_kv=2),
    "bshd": dict(layout="bshd", causal=True, mask_alignment="bottom_right"),
}


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("feature", list(FEATURES))
def test_backward(dtype, feature):
    fields = dict(dtype=dtype, head_dim=8, heads_q=2, heads_kv=2,
                  op="backward")
    fields.update(FEATURES[feature])
    bundle = fa_mlir.compile(**fields)
    kcfg = bundle.config
    for seed, (b, sq, sk) in enumerate([(2, 7, 10), (1, 12, 12)]):
        acfg = AttentionConfig(**{**kcfg.attention_config().__dict__,
                                  "batch": b, "seq_q": sq, "seq_k": sk,
                                  "dynamic": ()})
        x = random_inputs(acfg, seed)
        rng = np.random.default_rng(seed + 100)
        do = round_to(rng.standard_normal(acfg.shape_bhsd("grad_output")),
                      dtype).astype(np.float64)
        o, lse = reference.forward(acfg, x["query"], x["key"], x["value"],
                                   x.get("bias"))
        o = round_to(o, dtype).astype(np.float64)
        lay = acfg.layout
        args = {r: encode(x[r], dtype, lay) for r in ("query", "key", "value")}
        args.update(grad_output=encode(do, dtype, lay),
                    output=encode(o, dtype, lay), lse=lse.astype(np.float32))
        if acfg.bias:
            args["bias"] = encode(x["bias"], acfg.bias_dtype)
        grads = bundle(**args)
        ref = reference.backward(acfg, x["query"], x["key"], x["value"], do,
                                 x.get("bias"))
        base = reference.backward_lowp(acfg, x["query"], x["key"], x["value"],
                                       do, x.get("bias"))
        names = ("dq", "dk", "dv", "dbias")
        for i, (name, g) in enumerate(zip(names, grads)):
            ours = decode(g, acfg.bias_dtype if name == "dbias" else dtype,
                          None if name == "dbias" else lay)
            ok, errs = within_criterion(ours, ref[i], base[i], dtype)
            assert ok, f"{name} {(b, sq, sk)}: {errs[0]:.3g} vs {errs[1]:.3g}"

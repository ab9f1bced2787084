"""The float64 numpy reference itself: against a naive loop implementation
and its analytic backward against central finite differences."""
import numpy as np
import pytest

from fa_mlir import reference
from fa_mlir.config import AttentionConfig
from fa_mlir.testing import random_inputs

CASES = [
    dict(),
    dict(causal=True, seq_q=4, seq_k=6, mask_alignment="bottom_right"),
    dict(window=(1, 2), softcap=1.5, scale=0.7),
    dict(heads_q=4, heads_kv=2, bias=(True, False), head_dim_v=5),
]


def naive_forward(cfg, q, k, v, bias):
    b, hq, sq, _ = q.shape
    group = hq // k.shape[1]
    o = np.zeros((b, hq, sq, v.shape[3]))
    lse = np.full((b, hq, sq), -np.inf)
    vis = reference.visibility(cfg)
    for bi, h, i in np.ndindex(b, hq, sq):
        s = []
        for j in range(cfg.seq_k):
            x = cfg.effective_scale * q[bi, h, i] @ k[bi, h // group, j]
            if bias is not None:
                x += bias[min(bi, bias.shape[0] - 1), min(h, bias.shape[1] - 1), i, j]
            if cfg.softcap:
                x = cfg.softcap * np.tanh(x / cfg.softcap)
            s.append(x if vis[i, j] else -np.inf)
        s = np.array(s)
        if np.isneginf(s).all():
            continue
        p = np.exp(s - s.max())
        o[bi, h, i] = p @ v[bi, h // group] / p.sum()
        lse[bi, h, i] = s.max() + np.log(p.sum())
    return o, lse


def make(case):
    base = dict(batch=2, heads_q=2, heads_kv=2, seq_q=5, seq_k=5, head_dim=4)
    return AttentionConfig(**{**base, **case})


@pytest.mark.parametrize("case", CASES, ids=str)
def test_forward_matches_naive(case):
    cfg = make(case)
    x = random_inputs(cfg, seed=1)
    o, lse = reference.forward(cfg, x["query"], x["key"], x["value"], x.get("bias"))
    no, nlse = naive_forward(cfg, x["query"], x["key"], x["value"], x.get("bias"))
    assert reference.max_error(o, no) < 1e-12
    assert reference.max_error(lse, nlse) < 1e-12


@pytest.mark.parametrize("case", CASES, ids=str)
def test_backward_matches_finite_differences(case):
    cfg = make(case)
    x = random_inputs(cfg, seed=2)
    do = np.random.default_rng(3).standard_normal(cfg.shape_bhsd("grad_output"))
    grads = reference.backward(cfg, x["query"], x["key"], x["value"], do,
                               x.get("bias"))

    def loss(**over):
        a = {**x, **over}
        o, _ = reference.forward(cfg, a["query"], a["key"], a["value"], a.get("bias"))
        return float((o * do).sum())

    for name, g in zip(("query", "key", "value", "bias"), grads):
        if g is None:
            continue
        num = np.zeros_like(x[name])
        for idx in np.ndindex(num.shape):
            plus, minus = x[name].copy(), x[name].copy()
            plus[idx] += 1e-6
            minus[idx] -= 1e-6
            num[idx] = (loss(**{name: plus}) - loss(**{name: minus})) / 2e-6
        assert reference.max_error(g, num) < 1e-6, name

"""numpy references for fa.attention and fa.attention_grad.

All arrays are in the logical [batch, heads, seq, dim] layout. `forward` and
`backward` compute in float64 (the oracle). `forward_lowp` is the plain
low-precision implementation FlashAttention's error criterion compares
against: the textbook algorithm with every intermediate rounded to `dtype`.
"""
import numpy as np

from .dtypes import round_to


def visibility(cfg):
    """[seq_q, seq_k] bool: which keys each query row may see."""
    i = np.arange(cfg.seq_q)[:, None]
    j = np.arange(cfg.seq_k)[None, :]
    diag = i + (cfg.seq_k - cfg.seq_q
                if cfg.mask_alignment == "bottom_right" else 0)
    visible = np.ones((cfg.seq_q, cfg.seq_k), dtype=bool)
    if cfg.causal:
        visible &= j <= diag
    if cfg.window is not None:
        left, right = cfg.window
        visible &= (j >= diag - left) & (j <= diag + right)
    return visible


def _expand_heads(x, heads_q):
    return np.repeat(x, heads_q // x.shape[1], axis=1)


def scores(cfg, q, k, bias=None, rnd=lambda x: x):
    """Masked scores and the pre-mask scores (for the softcap derivative)."""
    k = _expand_heads(k, q.shape[1])
    s = rnd(rnd(np.einsum("bhid,bhjd->bhij", q, k)) * cfg.effective_scale)
    if bias is not None:
        s = rnd(s + bias)
    if cfg.softcap is not None:
        s = rnd(cfg.softcap * np.tanh(rnd(s / cfg.softcap)))
    return np.where(visibility(cfg), s, -np.inf)


def _softmax_rows(s, rnd=lambda x: x):
    m = s.max(axis=-1, keepdims=True)
    safe = np.where(np.isneginf(m), 0.0, m)
    p = rnd(np.exp(rnd(s - safe)))
    l = rnd(p.sum(axis=-1, keepdims=True))
    return p, l, safe


def forward(cfg, q, k, v, bias=None):
    """float64 (output, lse) of fa.attention."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = scores(cfg, q, k, bias)
    p, l, m = _softmax_rows(s)
    with np.errstate(divide="ignore", invalid="ignore"):
        o = np.where(l > 0, np.einsum("bhij,bhjd->bhid", p,
                                      _expand_heads(v, q.shape[1])) / l, 0.0)
        lse = np.where(l[..., 0] > 0, m[..., 0] + np.log(l[..., 0]), -np.inf)
    return o, lse


def forward_lowp(cfg, q, k, v, bias=None, dtype=None):
    """The output of a plain implementation rounding every step to `dtype`."""
    dtype = dtype or cfg.dtype
    rnd = lambda x: round_to(x, dtype).astype(np.float64)  # noqa: E731
    s = scores(cfg, rnd(q), rnd(k), None if bias is None else rnd(bias), rnd)
    p, l, _ = _softmax_rows(s, rnd)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = rnd(np.where(l > 0, p / l, 0.0))
    return rnd(np.einsum("bhij,bhjd->bhid", p, _expand_heads(rnd(v), q.shape[1])))


def backward(cfg, q, k, v, do, bias=None, rnd=lambda x: x):
    """float64 (dq, dk, dv, dbias) of fa.attention at (q, k, v, bias).

    With `rnd`, every intermediate is rounded by it: the plain low-precision
    backward (what autograd through matmul/softmax/matmul in that precision
    computes) that FlashAttention's criterion compares against.
    """
    q, k, v, do = (rnd(np.asarray(x, np.float64)) for x in (q, k, v, do))
    hq, hk = q.shape[1], k.shape[1]
    s = scores(cfg, q, k, None if bias is None else rnd(bias), rnd)
    p, l, _ = _softmax_rows(s, rnd)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = rnd(np.where(l > 0, p / l, 0.0))
    ve = _expand_heads(v, hq)
    o = rnd(np.einsum("bhij,bhjd->bhid", p, ve))
    dp = rnd(np.einsum("bhid,bhjd->bhij", do, ve))
    ds = rnd(p * rnd(dp - rnd((do * o).sum(-1, keepdims=True))))
    if cfg.softcap is not None:
        t = np.where(np.isneginf(s), 0.0, s / cfg.softcap)
        ds = rnd(ds * (1.0 - t * t))
    dq = rnd(cfg.effective_scale * np.einsum("bhij,bhjd->bhid", ds,
                                             _expand_heads(k, hq)))
    dk = rnd(cfg.effective_scale * np.einsum("bhij,bhid->bhjd", ds, q))
    dv = rnd(np.einsum("bhij,bhid->bhjd", p, do))

    def group_sum(x):
        b, _, n, d = x.shape
        return rnd(x.reshape(b, hk, hq // hk, n, d).sum(axis=2))

    dbias = None
    if bias is not None:
        dbias = ds
        if bias.shape[0] == 1:
            dbias = dbias.sum(axis=0, keepdims=True)
        if bias.shape[1] == 1:
            dbias = dbias.sum(axis=1, keepdims=True)
        dbias = rnd(dbias)
    return dq, group_sum(dk), group_sum(dv), dbias


def backward_lowp(cfg, q, k, v, do, bias=None, dtype=None):
    """Gradients of the plain implementation rounding every step to dtype."""
    dtype = dtype or cfg.dtype
    rnd = lambda x: round_to(x, dtype).astype(np.float64)  # noqa: E731
    return backward(cfg, q, k, v, do, bias, rnd)


def max_error(actual, expected):
    """Largest |actual - expected|, treating matching infinities as exact."""
    actual = np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    same_inf = np.isinf(actual) & np.isinf(expected) & (
        np.sign(actual) == np.sign(expected))
    diff = np.where(same_inf, 0.0, np.abs(actual - expected))
    if np.isnan(diff).any():
        return float("nan")
    return float(diff.max()) if diff.size else 0.0

"""One table of mask configurations, checked in two places:

  test/Execution/mask-cases.py     on the CPU, through fa-opt --fa-cpu-pipeline
                                   (fa-tile-attention), f32 and bf16;
  test/Device/check_attention.py   on the GPU, through the sm_90a kernel and
                                   libfa_runtime (each mask is one kernel of
                                   test/Device/gen_attention_inputs.py all).

The visibility rule is written here from the op's definition (FAOps.td), not
from the C++ that implements it: for query row i and key column j,

    off = seq_k - seq_q   (mask_alignment = bottom_right), else 0
    causal          hides j > i + off
    window (l, r)   hides j < i + off - l  and  j > i + off + r

so with both, the visible keys are i + off - l <= j <= i + off + min(r, 0).
A row that sees no key has output 0 and log-sum-exp -inf.

This module needs only the standard library to import: `visible` works on
numpy or torch (pass the module as `xp`), `reference` and `visible_loops`
need numpy.
"""
from collections import namedtuple

# A window side that hides nothing: what fa_mlir.torch passes for a side
# given as -1 (python/fa_mlir/torch/_ops.py); any real sequence is shorter.
UNBOUNDED = 1 << 30

Mask = namedtuple("Mask", "name causal window align pairs note")

# (seq_q, seq_k) pairs every mask is checked on. They straddle the CPU's
# 64-row tiles and the GPU kernel's 128-row tiles: a square tail, seq_q <
# seq_k, seq_q > seq_k (rows outside every window for most masks), a single
# query (decoding) and a single key.
PAIRS = ((300, 300), (130, 333), (400, 200), (1, 257), (200, 1))

MASKS = [
    Mask("causal_tl", True, None, "top_left", PAIRS,
         "causal, top-left: j <= i (never a row without keys)"),
    Mask("causal_br", True, None, "bottom_right", PAIRS,
         "causal, bottom-right: j <= i + seq_k - seq_q; seq_q > seq_k hides the first rows"),
    Mask("win_left_tl", False, (96, UNBOUNDED), "top_left", PAIRS,
         "left side only: j >= i - 96; rows past seq_k + 96 see nothing"),
    Mask("win_left_br", False, (50, UNBOUNDED), "bottom_right", PAIRS,
         "left side only, bottom-right: the last 51 keys for the last query"),
    Mask("win_right_tl", False, (UNBOUNDED, 0), "top_left", PAIRS,
         "right side only, 0: the causal mask spelt as a window"),
    Mask("win_right_br", False, (UNBOUNDED, 40), "bottom_right", PAIRS,
         "right side only: j <= i + off + 40; rows with i + off + 40 < 0 see nothing"),
    Mask("win_both_tl", False, (100, 30), "top_left", PAIRS,
         "both sides: i - 100 <= j <= i + 30"),
    Mask("win_both_br", False, (100, 30), "bottom_right", PAIRS + ((1000, 1100),),
         "both sides, bottom-right; a long case that skips whole tiles on both sides"),
    Mask("win_causal_tl", True, (150, 0), "top_left", PAIRS + ((1000, 1000),),
         "sliding window with causal (Mistral-style): i - 150 <= j <= i"),
    Mask("win_causal_br", True, (64, 32), "bottom_right", PAIRS,
         "window (64, 32) with causal: the right side is clipped to 0"),
    Mask("win_diag", False, (0, 0), "top_left", PAIRS,
         "window (0, 0): the diagonal only; rows >= seq_k see nothing"),
]

BY_NAME = {m.name: m for m in MASKS}


def offset(seq_q, seq_k, align):
    return seq_k - seq_q if align == "bottom_right" else 0


def bounds(mask, seq_q, seq_k):
    """(lo, hi) offsets from the row's diagonal i + off: visible keys are
    i + off + lo <= j <= i + off + hi (either may be None: no bound)."""
    lo = hi = None
    if mask.window is not None:
        left, right = mask.window
        lo = None if left >= UNBOUNDED else -left
        hi = None if right >= UNBOUNDED else right
    if mask.causal:
        hi = 0 if hi is None else min(hi, 0)
    return lo, hi


def visible(seq_q, seq_k, causal=False, window=None, align="top_left", xp=None):
    """[seq_q, seq_k] boolean array (numpy, or torch when xp=torch): True
    where query row i may see key j."""
    if xp is None:
        import numpy as xp
    i = xp.arange(seq_q).reshape(-1, 1)
    j = xp.arange(seq_k).reshape(1, -1)
    diag = i + offset(seq_q, seq_k, align)
    keep = (j >= 0) & (i >= 0)  # all True, shape [seq_q, seq_k]
    if causal:
        keep = keep & (j <= diag)
    if window is not None:
        left, right = window
        keep = keep & (j >= diag - left) & (j <= diag + right)
    return keep


def mask_visible(mask, seq_q, seq_k, xp=None):
    return visible(seq_q, seq_k, mask.causal, mask.window, mask.align, xp)


def visible_loops(mask, seq_q, seq_k):
    """The same rule element by element, from `bounds` (a cross-check of
    `visible`, for small shapes)."""
    import numpy as np
    lo, hi = bounds(mask, seq_q, seq_k)
    off = offset(seq_q, seq_k, mask.align)
    out = np.zeros((seq_q, seq_k), dtype=bool)
    for i in range(seq_q):
        for j in range(seq_k):
            d = j - (i + off)
            out[i, j] = (lo is None or d >= lo) and (hi is None or d <= hi)
    return out


def can_hide_rows(mask):
    """Whether some (seq_q, seq_k) leaves a row without keys: a left bound
    with top-left alignment (rows i > seq_k - 1 + left, when seq_q is
    large enough) or a right bound with bottom-right alignment (rows with
    i + seq_k - seq_q + right < 0). Top-left rows always see key 0 under a
    right bound >= 0, and bottom-right rows the last key under a left one."""
    lo, hi = bounds(mask, 1, 1)
    return (hi is not None) if mask.align == "bottom_right" else (lo is not None)


def dead_rows(mask, seq_q, seq_k):
    """How many query rows see no key."""
    return int((~mask_visible(mask, seq_q, seq_k).any(axis=1)).sum())


def reference(q, k, v, scale, keep, rnd=None):
    """Attention on [batch, heads, seq, dim] numpy arrays (K/V heads may
    divide Q heads: GQA) under the boolean [seq_q, seq_k] `keep`.

    rnd=None: float64 throughout (the oracle); returns (O, LSE), O = 0 and
    LSE = -inf on rows without a visible key. With `rnd` (a rounding
    function, e.g. to bf16), every intermediate is rounded by it: the plain
    low-precision implementation of FlashAttention's criterion; returns (O,
    None)."""
    import numpy as np
    r = (lambda x: x) if rnd is None else rnd
    q, k, v = (r(np.asarray(x, np.float64)) for x in (q, k, v))
    g = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = r(r(np.einsum("bhid,bhjd->bhij", q, k)) * scale)
    s = np.where(keep, s, -np.inf)
    m = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.full(s.shape[:-1] + (1,), -np.inf)
    m = np.where(np.isneginf(m), 0.0, m)
    p = r(np.exp(r(s - m)))
    l = r(p.sum(axis=-1, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        o = np.where(l > 0, r(np.einsum("bhij,bhjd->bhid", r(np.where(l > 0, p / l, 0.0)), v)), 0.0)
        lse = np.where(l[..., 0] > 0, m[..., 0] + np.log(l[..., 0]), -np.inf)
    return o, (lse if rnd is None else None)

"""A property-based fuzz of fa_mlir.torch's public calls (issue 39).

Each example draws a call of attention, varlen_attention or
attention_with_kvcache with random shapes (0, 1 and odd sizes included),
dtypes, layouts, GQA ratios, scales, windows, softcaps, biases (dtypes and
broadcast forms), memory layouts (permuted, strided, expanded with stride
0) and, for half of the examples, one wrong argument (a wrong type, a
non-finite or out-of-range value, a wrong dtype, device, rank or shape).
The call must then either
- compute: every output within FlashAttention's criterion of the float64
  reference (fa_mlir.reference), the LSE close to it, no NaN, and rows
  that see no key exactly O = 0, LSE = -inf; the caches an append wrote
  hold the new keys where they belong and nothing else changed; or
- for the wrong argument, raise ArgumentError whose message names it.

Kernels are compiled per configuration (static heads and head dims) and
cached for the session (conftest's FA_MLIR_CACHE and the registry's
in-process memo), so CI draws the kernel options from a small POOL of
configurations covering each feature, and the shapes, data and mistakes
freely: about 10 compiles and FA_MLIR_FUZZ_EXAMPLES (default 100)
examples. A larger FA_MLIR_FUZZ_EXAMPLES draws at random (CI's examples
are fixed) and also the kernel options freely from the whole space (a
compile per new configuration), e.g. FA_MLIR_FUZZ_EXAMPLES=3000 pytest -q
-s python/tests/test_fuzz_api.py; FA_MLIR_FUZZ_WIDE=0 keeps the pool (many
examples per compile), FA_MLIR_FUZZ_AMPS the input amplitudes.
"""
import math
import os
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import reference  # noqa: E402
from fa_mlir.arguments import f32  # noqa: E402
from fa_mlir.errors import ArgumentError  # noqa: E402
from fa_mlir.testing import EPSILON  # noqa: E402

CI_EXAMPLES = 100
EXAMPLES = int(os.environ.get("FA_MLIR_FUZZ_EXAMPLES", CI_EXAMPLES))
# Kernel options drawn freely (a compile per new configuration) rather
# than from POOL: by default when more examples than CI's are asked for.
WIDE = os.environ.get("FA_MLIR_FUZZ_WIDE",
                      "1" if EXAMPLES > CI_EXAMPLES else "0") == "1"
# The input amplitudes drawn (FA_MLIR_FUZZ_AMPS="0.5,1": smaller logits,
# e.g. to look past a known failure with large ones).
AMPS = [float(a) for a in os.environ.get("FA_MLIR_FUZZ_AMPS",
                                         "0.5,1,6").split(",")]
TORCH = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
UNBOUNDED = 1 << 30
STATS = {"examples": 0, "computed": 0, "refused": 0}

# Kernel options covering each feature once or twice: GQA and MQA, odd
# head dims and Dv != D, both layouts and alignments, windows (one side
# unbounded), softcap, a negative scale, bool/f32/q-dtype biases in every
# broadcast form. The varlen and kvcache entries share kernels with the
# attention ones where the CPU path allows (both run bshd kernels).
POOL = [
    dict(api="attention", dtype="f32", hq=4, hkv=2, d=8, dv=8,
         layout="bhsd", causal=True),
    dict(api="attention", dtype="bf16", hq=3, hkv=1, d=16, dv=8,
         layout="bshd", window=(2, None), mask_alignment="bottom_right",
         softcap=5.0),
    dict(api="attention", dtype="f16", hq=2, hkv=2, d=3, dv=3,
         layout="bhsd", scale=-0.7, bias=("bool", "2d")),
    dict(api="attention", dtype="f32", hq=1, hkv=1, d=1, dv=5,
         layout="bshd", window=(0, 3), bias=("f32", "full")),
    dict(api="attention", dtype="bf16", hq=2, hkv=1, d=8, dv=8,
         layout="bhsd", causal=True, mask_alignment="bottom_right",
         bias=("same", "heads")),
    dict(api="varlen", dtype="bf16", hq=3, hkv=1, d=16, dv=8,
         window=(2, None), mask_alignment="bottom_right", softcap=5.0),
    dict(api="varlen", dtype="f32", hq=4, hkv=2, d=8, dv=8, causal=True),
    dict(api="kvcache", dtype="bf16", hq=3, hkv=1, d=16, dv=8,
         window=(2, None), softcap=5.0),
    dict(api="kvcache", dtype="f32", hq=4, hkv=2, d=8, dv=8, causal=True),
]


# -- strategies --------------------------------------------------------------

def window_side():
    return st.one_of(st.none(), st.just(-1), st.integers(0, 6),
                     st.integers(0, 80))


@st.composite
def kernel_options(draw):
    """Every kernel option, drawn freely (the WIDE run)."""
    api = draw(st.sampled_from(["attention", "attention", "varlen",
                                "kvcache"]))
    hkv = draw(st.integers(1, 3))
    d = draw(st.sampled_from([1, 2, 3, 8, 16, 24]))
    opts = dict(api=api, dtype=draw(st.sampled_from(list(TORCH))), hkv=hkv,
                hq=hkv * draw(st.integers(1, 4)), d=d,
                dv=draw(st.sampled_from([d, 1, 5, 8])),
                causal=draw(st.booleans()))
    if draw(st.booleans()):
        opts["window"] = (draw(window_side()), draw(window_side()))
    if draw(st.integers(0, 3)) == 0:
        opts["softcap"] = draw(st.sampled_from([0.5, 5.0, 50.0]))
    if draw(st.integers(0, 3)) == 0:
        opts["scale"] = draw(st.sampled_from([-0.7, 0.01, 2.5, 1e-3]))
    if api != "kvcache":
        opts["mask_alignment"] = draw(st.sampled_from(
            [None, "top_left", "bottom_right"]))
    if api == "attention":
        opts["layout"] = draw(st.sampled_from(["bhsd", "bshd"]))
        if draw(st.booleans()):
            opts["bias"] = (draw(st.sampled_from(["bool", "f32", "same"])),
                            draw(st.sampled_from(["full", "2d", "heads",
                                                  "batch"])))
    return opts


def seq_len(high=40):
    return st.one_of(st.integers(0, 3), st.integers(0, high),
                     st.sampled_from([63, 64, 65, 129]))


def tensor(draw, shape, dtype, amp=1.0, seed_offset=0):
    """A random tensor of `shape` in a random memory layout: contiguous,
    permuted (a transposed copy), strided (every other element of a larger
    one) or, where a dim is 1-expandable, expanded with stride 0."""
    seed = draw(st.integers(0, 2**31 - 1)) + seed_offset
    g = torch.Generator().manual_seed(seed)
    kind = draw(st.sampled_from(["contiguous", "permuted", "strided",
                                 "expanded"]))
    if kind == "expanded" and shape and shape[0] > 1:
        base = torch.randn((1,) + tuple(shape[1:]), generator=g) * amp
        return base.to(dtype).expand(*shape)
    if kind == "strided" and shape:
        big = torch.randn(tuple(shape[:-1]) + (2 * shape[-1] + 1,),
                          generator=g) * amp
        return big.to(dtype)[..., 1::2]
    x = (torch.randn(shape, generator=g) * amp).to(dtype)
    if kind == "permuted" and len(shape) >= 2:
        return x.transpose(0, -1).contiguous().transpose(0, -1)
    return x


def reference_cfg(dtype, sq, sk, d, causal=False, mask_alignment=None,
                  window=None, softcap=None, scale=None):
    """What fa_mlir.reference reads of a configuration."""
    if window is not None:
        window = tuple(UNBOUNDED if w is None or w == -1 else w
                       for w in window)
    return types.SimpleNamespace(
        dtype=dtype, seq_q=sq, seq_k=sk, causal=causal,
        mask_alignment=mask_alignment, window=window,
        softcap=None if softcap is None else f32(softcap),
        effective_scale=f32(scale) if scale is not None else d ** -0.5)


def reference_forward(cfg, q, k, v, bias):
    """fa_mlir.reference.forward, and without keys (which it does not
    take: a max over nothing) O = 0, LSE = -inf."""
    if cfg.seq_k == 0:
        rows = q.shape[:3]
        return np.zeros(rows + v.shape[3:]), np.full(rows, -np.inf)
    return reference.forward(cfg, q, k, v, bias)


def check_forward(cfg, q, k, v, out, lse, bias=None):
    """out [B, Hq, Sq, Dv] and lse [B, Hq, Sq] (torch, bhsd) against the
    float64 reference of q, k, v (torch, bhsd) and bias."""
    args = [t.double().numpy() for t in (q, k, v)]
    bias = None if bias is None else bias.double().numpy()
    ref_o, ref_lse = reference_forward(cfg, *args, bias)
    out = out.double().numpy()
    assert out.shape == ref_o.shape, (out.shape, ref_o.shape)
    assert not np.isnan(out).any(), "NaN in the output"
    if lse is not None:
        lse = lse.double().numpy()
        assert lse.shape == ref_lse.shape
        assert not np.isnan(lse).any(), "NaN in the LSE"
        hidden = np.isneginf(ref_lse)
        assert (np.isneginf(lse) == hidden).all(), "rows with no key differ"
        assert (out[hidden] == 0).all(), "a row with no key is not 0"
        seen = ~hidden
        tol = 2e-4 * np.maximum(1.0, np.abs(ref_lse[seen]))
        assert (np.abs(lse[seen] - ref_lse[seen]) <= tol).all(), \
            np.abs(lse[seen] - ref_lse[seen]).max()
    base = (ref_o if cfg.seq_k == 0 else
            reference.forward_lowp(cfg, *args, bias))
    err, base_err = (reference.max_error(x, ref_o) for x in (out, base))
    assert err <= 2 * base_err + EPSILON[cfg.dtype], (err, base_err)


def options_of(fam):
    """The keyword options of the family's call."""
    out = {}
    for key in ("causal", "window", "softcap", "scale", "mask_alignment"):
        if key in fam:
            out[key] = fam[key]
    if fam["api"] == "kvcache":
        out.pop("mask_alignment", None)
    return out


# -- the calls -----------------------------------------------------------------

def make_bias(draw, fam, b, sq, sk, qdtype):
    kind, form = fam["bias"]
    shape = {"full": (b, fam["hq"], sq, sk), "2d": (sq, sk),
             "heads": (fam["hq"], sq, sk), "batch": (b, 1, sq, sk)}[form]
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    keep = torch.rand(shape, generator=g) < draw(st.sampled_from([0.3, 0.9,
                                                                  1.0]))
    if kind == "bool":
        return keep
    dtype = torch.float32 if kind == "f32" else qdtype
    values = tensor(draw, shape, dtype, amp=draw(st.sampled_from([0.5, 4.0])))
    return values.masked_fill(~keep, float("-inf"))


def bias_bhsd(bias, b, hq, sq, sk):
    if bias is None:
        return None
    if bias.dtype == torch.bool:
        bias = torch.zeros(bias.shape).masked_fill(~bias, float("-inf"))
    return bias.double().expand(b, hq, sq, sk)


def attention_call(draw, fam):
    dtype = TORCH[fam["dtype"]]
    b, sq, sk = draw(st.integers(0, 3)), draw(seq_len()), draw(seq_len())
    amp = draw(st.sampled_from(AMPS))
    layout = fam["layout"]

    def shaped(h, s, d):
        return (b, h, s, d) if layout == "bhsd" else (b, s, h, d)
    q = tensor(draw, shaped(fam["hq"], sq, fam["d"]), dtype, amp)
    k = tensor(draw, shaped(fam["hkv"], sk, fam["d"]), dtype, amp)
    v = tensor(draw, shaped(fam["hkv"], sk, fam["dv"]), dtype)
    kwargs = dict(options_of(fam), layout=layout,
                  return_lse=draw(st.booleans()))
    if "bias" in fam:
        kwargs["bias"] = make_bias(draw, fam, b, sq, sk, dtype)

    def check(result):
        out, lse = result if kwargs["return_lse"] else (result, None)
        bhsd = (lambda t: t) if layout == "bhsd" else (
            lambda t: t.transpose(1, 2))
        cfg = reference_cfg(fam["dtype"], sq, sk, fam["d"], **options_of(fam))
        check_forward(cfg, bhsd(q), bhsd(k), bhsd(v), bhsd(out), lse,
                      bias_bhsd(kwargs.get("bias"), b, fam["hq"], sq, sk))
    return fat.attention, [q, k, v], kwargs, check


def varlen_call(draw, fam):
    dtype = TORCH[fam["dtype"]]
    n = draw(st.integers(0, 4))
    lq = [draw(seq_len(20)) for _ in range(n)]
    lk = [draw(seq_len(20)) for _ in range(n)]
    cu_q = torch.tensor([0] + np.cumsum(lq).tolist(), dtype=torch.int32)
    cu_k = torch.tensor([0] + np.cumsum(lk).tolist(), dtype=torch.int32)
    q = tensor(draw, (sum(lq), fam["hq"], fam["d"]), dtype, 2.0)
    k = tensor(draw, (sum(lk), fam["hkv"], fam["d"]), dtype, 2.0)
    v = tensor(draw, (sum(lk), fam["hkv"], fam["dv"]), dtype)
    slack = draw(st.sampled_from([0, 0, 5]))
    max_q, max_k = max(lq, default=0) + slack, max(lk, default=0) + slack
    kwargs = dict(options_of(fam), return_lse=draw(st.booleans()))

    def check(result):
        out, lse = result if kwargs["return_lse"] else (result, None)
        assert out.shape == (sum(lq), fam["hq"], fam["dv"])
        for i in range(n):
            rows = slice(int(cu_q[i]), int(cu_q[i + 1]))
            keys = slice(int(cu_k[i]), int(cu_k[i + 1]))
            cfg = reference_cfg(fam["dtype"], lq[i], lk[i], fam["d"],
                                **options_of(fam))
            one = lambda t: t.transpose(0, 1).unsqueeze(0)  # noqa: E731
            check_forward(cfg, one(q[rows]), one(k[keys]), one(v[keys]),
                          one(out[rows]), None if lse is None else
                          lse[:, rows].unsqueeze(0))
    return (fat.varlen_attention, [q, k, v, cu_q, cu_k, max_q, max_k], kwargs,
            check)


def kvcache_call(draw, fam):
    dtype = TORCH[fam["dtype"]]
    b, sq = draw(st.integers(0, 3)), draw(st.integers(1, 4))
    new = draw(st.sampled_from([0, 0, 1, 3]))
    paged = draw(st.booleans())
    page = draw(st.sampled_from([1, 4, 16]))
    capacity = page * draw(st.integers(max(1, -(-new // page)), 5)) \
        if paged else draw(st.integers(new, 40))
    cached = [draw(st.integers(0, capacity - new)) for _ in range(b)]
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    if paged:
        per_seq = capacity // page
        num_pages = b * per_seq + draw(st.integers(0, 2))
        table = torch.randperm(num_pages, generator=g)[:b * per_seq].reshape(
            b, per_seq).to(torch.int32)
        cache_shape = (num_pages, page)
    else:
        table, cache_shape = None, (b, capacity)
    k_cache = tensor(draw, cache_shape + (fam["hkv"], fam["d"]), dtype, 2.0)
    v_cache = tensor(draw, cache_shape + (fam["hkv"], fam["dv"]), dtype)
    if new:  # appends write into the caches: give them memory of their own
        k_cache, v_cache = k_cache.clone(), v_cache.clone()
    q = tensor(draw, (b, sq, fam["hq"], fam["d"]), dtype, 2.0)
    kwargs = dict(options_of(fam), block_table=table,
                  num_splits=draw(st.sampled_from([1, 1, 0] if not WIDE else
                                                  [0, 1, 2, 3])),
                  return_lse=draw(st.booleans()),
                  cache_seqlens=torch.tensor(cached, dtype=torch.int32))
    if new:
        kwargs["k"] = tensor(draw, (b, new, fam["hkv"], fam["d"]), dtype, 2.0)
        kwargs["v"] = tensor(draw, (b, new, fam["hkv"], fam["dv"]), dtype)
    before = (k_cache.clone(), v_cache.clone())

    def logical(cache, i, n):
        """Sequence i's first n cache rows [n, Hkv, D]."""
        if table is None:
            return cache[i, :n]
        return cache[table[i].long()].flatten(0, 1)[:n]

    def check(result):
        out, lse = result if kwargs["return_lse"] else (result, None)
        assert out.shape == (b, sq, fam["hq"], fam["dv"])
        opts = options_of(fam)
        masked = opts.get("causal") or "window" in opts
        for i in range(b):
            n = cached[i] + new
            keys = [logical(c, i, n) for c in (k_cache, v_cache)]
            old = [logical(c, i, cached[i]) for c in before]
            for now, was, added in zip(keys, old, (kwargs.get("k"),
                                                   kwargs.get("v"))):
                assert torch.equal(now[:cached[i]], was), "cache changed"
                if new:
                    assert torch.equal(now[cached[i]:], added[i]), "append"
            cfg = reference_cfg(fam["dtype"], sq, n, fam["d"],
                                mask_alignment="bottom_right" if masked
                                else None, **opts)
            one = lambda t: t.transpose(0, 1).unsqueeze(0)  # noqa: E731
            check_forward(cfg, one(q[i]), one(keys[0]), one(keys[1]),
                          one(out[i]), None if lse is None else lse[i:i + 1])
    return fat.attention_with_kvcache, [q, k_cache, v_cache], kwargs, check


CALLS = {"attention": attention_call, "varlen": varlen_call,
         "kvcache": kvcache_call}


# -- mistakes --------------------------------------------------------------------
# Each takes (args, kwargs, fam) and changes one argument, returning the
# regex the ArgumentError's message must match (it names the argument).

def _option(name, values, pattern=None):
    def apply(draw, args, kwargs, fam):
        kwargs[name] = draw(st.sampled_from(values))
        return pattern or name
    return apply


NUMBERS = [math.nan, math.inf, -math.inf, "1", True, 1e39, None]
OPTIONS = [
    _option("causal", ["yes", 1, None, 0.0], "causal must be True or False"),
    _option("scale", [x for x in NUMBERS if x is not None] + [1e-50, 0.0],
            "scale must be"),
    _option("softcap", [0.0, -1.0, math.nan, math.inf, "3", 1e39, 1e-50],
            "softcap must be"),
    _option("window", [5, (1.5, 0), (-2, 0), (2**40, 0), (0, "1"), (1, 2, 3),
                       "ab", (True, 0), (0, 2**31)], "window"),
    _option("return_lse", [1, "no", None], "return_lse must be True or False"),
]
ATTENTION_OPTIONS = OPTIONS + [
    _option("mask_alignment", ["bogus", 1, "TOP_LEFT"], "mask_alignment"),
    _option("layout", ["sbhd", None, 1], "layout must be"),
    _option("deterministic", ["yes", 1], "deterministic must be"),
]


def _replace(i, make, pattern):
    def apply(draw, args, kwargs, fam):
        args[i] = make(args[i], fam)
        return pattern
    return apply


def _meta(t, fam):
    return t.to("meta")


ATTENTION_TENSORS = [
    _replace(0, lambda t, f: t.double(), "query has dtype torch.float64"),
    _replace(0, lambda t, f: t.to(torch.int32), "query has dtype torch.int32"),
    _replace(1, lambda t, f: t.to(torch.float64 if t.dtype != torch.float64
                                  else torch.float32), "key has dtype"),
    _replace(2, _meta, "value is on meta"),
    _replace(0, lambda t, f: t.flatten(0, 1), "query must have rank 4"),
    _replace(0, lambda t, f: t.tolist(), "query must be a torch.Tensor"),
    _replace(1, lambda t, f: torch.cat([t, torch.zeros((1,) + t.shape[1:],
                                                       dtype=t.dtype)]),
             "key has batch"),
    _replace(1, lambda t, f: torch.cat([t, t[..., :1]], dim=3),
             "key head dim"),
]


def _heads_mismatch(draw, args, kwargs, fam):
    """k and v with hq + 1 heads (hq % (hq + 1) != 0)."""
    dim = 1 if kwargs["layout"] == "bhsd" else 2
    for i in (1, 2):
        args[i] = torch.cat([args[i]] * (fam["hq"] + 1), dim).narrow(
            dim, 0, fam["hq"] + 1)
    return "not a multiple of key/value's"


def _bias_mistake(draw, args, kwargs, fam):
    q, k = args[0], args[1]
    sdim = 2 if kwargs["layout"] == "bhsd" else 1
    sq, sk = q.shape[sdim], k.shape[sdim]
    choice = draw(st.sampled_from(["shape", "dtype", "device", "type",
                                   "batch"]))
    if choice == "shape":
        kwargs["bias"] = torch.zeros(sq + 1, sk)
        return "bias has shape"
    if choice == "dtype":
        kwargs["bias"] = torch.zeros(sq, sk, dtype=draw(st.sampled_from(
            [torch.int32, torch.float64, torch.int8])))
        return "bias has dtype"
    if choice == "device":
        kwargs["bias"] = torch.zeros(sq, sk, device="meta")
        return "bias is on meta"
    if choice == "type":
        kwargs["bias"] = draw(st.sampled_from([0.5, [[0.0]], "mask"]))
        return "bias must be a torch.Tensor"
    kwargs["bias"] = torch.zeros(q.shape[0] + 2, 1, sq, sk)
    return "bias dimension 0"


def _descale_on_float(draw, args, kwargs, fam):
    kwargs["q_descale"] = torch.ones(())
    return "q_descale is only for float8_e4m3fn"


ATTENTION_MISTAKES = ATTENTION_OPTIONS + ATTENTION_TENSORS + [
    _heads_mismatch, _bias_mistake, _descale_on_float]


def _cu_mistake(draw, args, kwargs, fam):
    i = draw(st.sampled_from([3, 4]))
    name = "cu_seqlens_q" if i == 3 else "cu_seqlens_k"
    cu = args[i]
    choice = draw(st.sampled_from(["dtype", "start", "end", "device", "rank",
                                   "type", "length"]))
    if choice == "dtype":
        args[i] = cu.long()
        return f"{name} has dtype torch.int64"
    if choice == "start":
        args[i] = cu + 1
        return rf"{name}\[0\] must be 0"
    if choice == "end":
        args[i] = torch.cat([cu[:-1], cu[-1:] + 1])
        return (rf"{name}\[-1\] is|{name}\[0\] must be 0|"
                rf"of {name} has length \d+, more than max_seqlen")
    if choice == "device":
        args[i] = cu.to("meta")
        return f"{name} is on meta"
    if choice == "rank":
        args[i] = cu[None]
        return f"{name} must have rank 1"
    if choice == "type":
        args[i] = cu.tolist()
        return f"{name} must be a torch.Tensor"
    args[i] = torch.cat([cu, cu[-1:]])  # one more (empty) sequence
    return "both must be B\\+1"


def _max_seqlen_mistake(draw, args, kwargs, fam):
    i = draw(st.sampled_from([5, 6]))
    name = "max_seqlen_q" if i == 5 else "max_seqlen_k"
    args[i] = draw(st.sampled_from([-1, 2.0, True, "8", None, 2**31]))
    return f"{name} must be an int"


VARLEN_MISTAKES = OPTIONS + [
    _option("mask_alignment", ["bogus", 1], "mask_alignment"),
    _replace(0, lambda t, f: t.double(), "q has dtype torch.float64"),
    _replace(1, lambda t, f: t.to(torch.float64), "k has dtype"),
    _replace(2, _meta, "v is on meta"),
    _replace(0, lambda t, f: t[None], "q must have rank 3"),
    _replace(1, lambda t, f: torch.cat([t, t[..., :1]], dim=2),
             "k dimension 2 is"),
    _cu_mistake, _max_seqlen_mistake,
]


def _seqlens_mistake(draw, args, kwargs, fam):
    lens = kwargs["cache_seqlens"]
    choice = draw(st.sampled_from(["negative", "dtype", "type", "length",
                                   "device"]))
    if choice == "negative" and lens.numel():
        kwargs["cache_seqlens"] = lens - lens.max() - 1
        return r"cache_seqlens\[0\] is -"
    if choice == "dtype":
        kwargs["cache_seqlens"] = lens.long()
        return "cache_seqlens has dtype torch.int64"
    if choice == "type":
        kwargs["cache_seqlens"] = draw(st.sampled_from([2.0, True, "3",
                                                        [1]]))
        return "cache_seqlens must be a torch.Tensor"
    if choice == "device":
        kwargs["cache_seqlens"] = lens.to("meta")
        return "cache_seqlens is on meta"
    one_more = torch.zeros(1, dtype=lens.dtype)  # lens may be empty
    kwargs["cache_seqlens"] = torch.cat([lens, one_more])
    return "cache_seqlens has"


def _overflow(draw, args, kwargs, fam):
    lens = kwargs["cache_seqlens"]
    if not lens.numel():
        kwargs["num_splits"] = -1
        return "num_splits must be an int"
    table = kwargs["block_table"]
    capacity = (table.shape[1] * args[1].shape[1] if table is not None
                else args[1].shape[1])
    kwargs["cache_seqlens"] = lens * 0 + capacity + 1
    return "pages for|capacity"


def _table_mistake(draw, args, kwargs, fam):
    table = kwargs["block_table"]
    new = kwargs["k"].shape[1] if "k" in kwargs else 0
    if table is None or not (kwargs["cache_seqlens"] + new > 0).any():
        kwargs["k"] = args[1][:, :1]
        kwargs.pop("v", None)
        return "give both or neither"
    if draw(st.booleans()):
        kwargs["block_table"] = table.long()
        return "block_table has dtype torch.int64"
    kwargs["block_table"] = table + args[1].shape[0]
    return "outside the cache's"


def _append_into_expanded(draw, args, kwargs, fam):
    """An append into a cache whose rows share memory (stride 0)."""
    cache = args[1]
    if "k" not in kwargs or cache.shape[0] < 2:
        kwargs["num_splits"] = 2**40
        return "num_splits must be an int"
    args[1] = cache[:1].expand(cache.shape)
    return "k_cache"


KVCACHE_MISTAKES = OPTIONS + [
    _append_into_expanded,
    _option("num_splits", [-1, 1.5, True, "2", None], "num_splits must be"),
    _replace(0, lambda t, f: t.double(), "q has dtype torch.float64"),
    _replace(1, lambda t, f: t.double(), "k_cache has dtype"),
    _replace(2, _meta, "v_cache is on meta"),
    _replace(0, lambda t, f: t.flatten(0, 1), "q must have rank 4"),
    _seqlens_mistake, _overflow, _table_mistake,
]
MISTAKES = {"attention": ATTENTION_MISTAKES, "varlen": VARLEN_MISTAKES,
            "kvcache": KVCACHE_MISTAKES}


# -- the property -------------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    print(f"\nfuzz: {STATS['examples']} examples, {STATS['computed']} "
          f"computed and checked, {STATS['refused']} refused as expected "
          f"({'wide' if WIDE else 'pool'} kernel options)")


@settings(max_examples=EXAMPLES, deadline=None,
          derandomize=EXAMPLES <= CI_EXAMPLES,
          database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_call_computes_or_names_the_wrong_argument(data):
    draw = data.draw
    fam = draw(kernel_options() if WIDE else st.sampled_from(POOL))
    fn, args, kwargs, check = CALLS[fam["api"]](draw, fam)
    STATS["examples"] += 1
    if draw(st.booleans()):
        mistake = draw(st.sampled_from(MISTAKES[fam["api"]]))
        pattern = mistake(draw, args, kwargs, fam)
        with pytest.raises(ArgumentError, match=pattern):
            fn(*args, **kwargs)
        STATS["refused"] += 1
        return
    check(fn(*args, **kwargs))
    STATS["computed"] += 1

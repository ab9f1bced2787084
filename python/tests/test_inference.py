"""fa_mlir.torch.varlen_attention and attention_with_kvcache on the CPU:
each sequence against the float64 reference with FlashAttention's criterion
(tails, page boundaries, scattered pages, empty sequences, seqlens shorter
than the allocated pages, appends that cross pages, GQA, windows, softcap),
split-KV equal to unsplit, the varlen backward, and every rejected input."""
import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import reference  # noqa: E402
from fa_mlir.config import AttentionConfig  # noqa: E402
from fa_mlir.errors import ArgumentError, UnsupportedError  # noqa: E402

from _util import within_criterion  # noqa: E402
from _fake_cuda import fake_cuda  # noqa: E402

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
HQ, HKV, D = 4, 2, 16


def rand(*shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def bhsd(x):
    """[seq, heads, dim] torch -> [1, heads, seq, dim] float64 numpy."""
    return x.to(torch.float64).permute(1, 0, 2).unsqueeze(0).numpy()


def sequence_cfg(dtype, sq, sk, **options):
    window = options.get("window")
    return AttentionConfig(
        batch=1, heads_q=HQ, heads_kv=HKV, seq_q=sq, seq_k=sk, head_dim=D,
        dtype=dtype, causal=options.get("causal", False),
        mask_alignment=options.get("mask_alignment"),
        window=None if window is None else tuple(window),
        softcap=options.get("softcap"), scale=options.get("scale"))


def check_sequence(dtype, q, k, v, out, lse, **options):
    """out [sq, Hq, D] and lse [Hq, sq] of one sequence against float64."""
    cfg = sequence_cfg(dtype, q.shape[0], k.shape[0], **options)
    ref_o, ref_lse = reference.forward(cfg, bhsd(q), bhsd(k), bhsd(v))
    base = reference.forward_lowp(cfg, bhsd(q), bhsd(k), bhsd(v))
    ok, errs = within_criterion(bhsd(out), ref_o, base, dtype)
    assert ok, errs
    assert reference.max_error(lse.unsqueeze(0).numpy(), ref_lse) < 1e-4


# -- varlen ---------------------------------------------------------------

# Sequence 1 has no query, sequence 2 no key, the rest straddle tiles.
CU_Q = [0, 3, 3, 10, 11, 81]
CU_K = [0, 5, 9, 9, 29, 99]
VARLEN_CASES = {
    "plain": dict(),
    "causal-top-left": dict(causal=True),
    "causal-bottom-right": dict(causal=True, mask_alignment="bottom_right"),
    "window-softcap": dict(window=(6, 2), softcap=3.0,
                           mask_alignment="bottom_right"),
}


def varlen_inputs(dtype, seed=0, grad=False):
    q = rand(CU_Q[-1], HQ, D, dtype=dtype, seed=seed)
    k = rand(CU_K[-1], HKV, D, dtype=dtype, seed=seed + 1)
    v = rand(CU_K[-1], HKV, D, dtype=dtype, seed=seed + 2)
    return [t.requires_grad_(grad) for t in (q, k, v)]


def cu(values):
    return torch.tensor(values, dtype=torch.int32)


def spans(cu_list):
    return list(zip(cu_list, cu_list[1:]))


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", list(VARLEN_CASES))
def test_varlen_forward(dtype, case):
    options = VARLEN_CASES[case]
    q, k, v = varlen_inputs(DTYPES[dtype])
    out, lse = fat.varlen_attention(q, k, v, cu(CU_Q), cu(CU_K), 70, 70,
                                    return_lse=True, **options)
    assert out.shape == q.shape and lse.shape == (HQ, CU_Q[-1])
    for (q0, q1), (k0, k1) in zip(spans(CU_Q), spans(CU_K)):
        if q1 == q0:
            continue
        if k1 == k0:
            assert torch.all(out[q0:q1] == 0)
            assert torch.all(torch.isneginf(lse[:, q0:q1]))
            continue
        check_sequence(dtype, q[q0:q1], k[k0:k1], v[k0:k1], out[q0:q1].float(),
                       lse[:, q0:q1], **options)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_varlen_backward(dtype):
    options = dict(causal=True, mask_alignment="bottom_right")
    q, k, v = varlen_inputs(DTYPES[dtype], seed=4, grad=True)
    out = fat.varlen_attention(q, k, v, cu(CU_Q), cu(CU_K), 70, 70, **options)
    do = rand(*out.shape, dtype=out.dtype, seed=9)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), do)
    for (q0, q1), (k0, k1) in zip(spans(CU_Q), spans(CU_K)):
        if q1 == q0 or k1 == k0:  # no pair: no gradient
            assert torch.all(dq[q0:q1] == 0)
            continue
        cfg = sequence_cfg(dtype, q1 - q0, k1 - k0, **options)
        args = [bhsd(t.detach()[a:b]) for t, a, b in
                ((q, q0, q1), (k, k0, k1), (v, k0, k1), (do, q0, q1))]
        ref = reference.backward(cfg, *args)
        base = reference.backward_lowp(cfg, *args)
        for ours, r, bl in zip((dq[q0:q1], dk[k0:k1], dv[k0:k1]), ref, base):
            ok, errs = within_criterion(bhsd(ours.float()), r, bl, dtype)
            assert ok, errs


VARLEN_BAD = {
    "cu_seqlens_q must be non-decreasing": dict(cu_q=[0, 5, 3, 10, 11, 81]),
    r"cu_seqlens_k\[0\] must be 0": dict(cu_k=[1, 5, 9, 9, 29, 99]),
    r"cu_seqlens_q\[-1\] is 80, expected 81": dict(cu_q=[0, 3, 3, 10, 11, 80]),
    "more than max_seqlen": dict(max_q=10),
    "cu_seqlens_q has dtype torch.int64": dict(cu_q_dtype=torch.int64),
    "both must be B\\+1": dict(cu_k=[0, 9, 9, 29, 99]),
    "k has dtype torch.float16": dict(k_dtype=torch.float16),
    "v dimension 1 is 1, expected 2": dict(v_heads=1),
    "not a multiple of k's 3": dict(k_heads=3),
    "max_seqlen_q must be an int": dict(max_q=7.0),
}


@pytest.mark.parametrize("message", list(VARLEN_BAD))
def test_varlen_rejects(message):
    bad = VARLEN_BAD[message]
    q, k, v = varlen_inputs(torch.float32)
    if "k_dtype" in bad:
        k = k.to(bad["k_dtype"])
    if "v_heads" in bad:
        v = v[:, :bad["v_heads"]]
    if "k_heads" in bad:
        k = torch.cat([k, k[:, :1]], dim=1)
        v = torch.cat([v, v[:, :1]], dim=1)
    cu_q = torch.tensor(bad.get("cu_q", CU_Q),
                        dtype=bad.get("cu_q_dtype", torch.int32))
    with pytest.raises(ArgumentError, match=message):
        fat.varlen_attention(q, k, v, cu_q, cu(bad.get("cu_k", CU_K)),
                             bad.get("max_q", 70), 70)


# -- KV cache ---------------------------------------------------------------

PAGE = 8
BATCH = 3


def scattered_table(max_pages, num_pages, seed=0):
    """Each sequence's pages at random, distinct places of the cache."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(num_pages, generator=g)[:BATCH * max_pages]
    return perm.view(BATCH, max_pages).to(torch.int32)


def logical_keys(cache, table, b, n):
    """Sequence b's first n keys read position by position (the reference's
    own walk of the block table, independent of the op's gather)."""
    if table is None:
        return cache[b, :n]
    rows = [cache[int(table[b, t // PAGE]), t % PAGE] for t in range(n)]
    return torch.stack(rows) if rows else cache.new_zeros((0,) + cache.shape[2:])


def make_cache(dtype, paged, capacity, seed):
    if paged:
        shape = (BATCH * capacity // PAGE + 3, PAGE, HKV, D)
    else:
        shape = (BATCH, capacity, HKV, D)
    return (rand(*shape, dtype=dtype, seed=seed),
            rand(*shape, dtype=dtype, seed=seed + 1))


def run_kvcache(dtype, paged, seqlens, sq=1, new=0, capacity=40, **options):
    """Runs the op and checks every sequence, the append and the untouched
    cache slots; returns (out, lse)."""
    torch_dtype = DTYPES[dtype]
    k_cache, v_cache = make_cache(torch_dtype, paged, capacity, seed=1)
    table = (scattered_table(capacity // PAGE, k_cache.shape[0])
             if paged else None)
    q = rand(BATCH, sq, HQ, D, dtype=torch_dtype, seed=3)
    k_new = v_new = None
    if new:
        k_new = rand(BATCH, new, HKV, D, dtype=torch_dtype, seed=4)
        v_new = rand(BATCH, new, HKV, D, dtype=torch_dtype, seed=5)
    before = [(logical_keys(k_cache, table, b, n).clone(),
               logical_keys(v_cache, table, b, n).clone())
              for b, n in enumerate(seqlens)]
    k_before, v_before = k_cache.clone(), v_cache.clone()
    out, lse = fat.attention_with_kvcache(
        q, k_cache, v_cache, cache_seqlens=torch.tensor(seqlens, dtype=torch.int32),
        block_table=table, k=k_new, v=v_new, return_lse=True, **options)
    assert out.shape == q.shape and lse.shape == (BATCH, HQ, sq)
    score_options = {kw: options[kw] for kw in ("causal", "window", "softcap",
                                                "scale")
                     if kw in options}
    if score_options.get("causal") or score_options.get("window"):
        score_options["mask_alignment"] = "bottom_right"
    written = torch.zeros(k_cache.shape[:2], dtype=torch.bool)
    for b, n in enumerate(seqlens):
        keys, values = before[b]
        if new:
            keys = torch.cat([keys, k_new[b]])
            values = torch.cat([values, v_new[b]])
            # The append landed where the reference's walk reads it.
            assert torch.equal(logical_keys(k_cache, table, b, n + new), keys)
            assert torch.equal(logical_keys(v_cache, table, b, n + new), values)
            for t in range(n, n + new):
                row = (int(table[b, t // PAGE]), t % PAGE) if paged else (b, t)
                written[row] = True
        if keys.shape[0] == 0:
            assert torch.all(out[b] == 0) and torch.all(torch.isneginf(lse[b]))
            continue
        check_sequence(dtype, q[b], keys, values, out[b].float(), lse[b],
                       **score_options)
    assert torch.equal(k_cache[~written], k_before[~written])
    assert torch.equal(v_cache[~written], v_before[~written])
    return out, lse


# Sequence lengths: a tail, an exact page boundary, an empty sequence, and
# (paged) fewer keys than the 5 pages allocated to each.
KV_CASES = {
    "contiguous": dict(paged=False, seqlens=[13, 0, 40], causal=True),
    "contiguous-append": dict(paged=False, seqlens=[13, 0, 36], new=3,
                              causal=True),
    "paged-scattered": dict(paged=True, seqlens=[13, 0, 16], causal=True),
    "paged-append-crossing-pages": dict(paged=True, seqlens=[7, 0, 15], new=3,
                                        sq=3, causal=True),
    "paged-window-chunk": dict(paged=True, seqlens=[21, 3, 30], new=4, sq=4,
                               causal=True, window=(6, 0)),
    "paged-softcap-noncausal": dict(paged=True, seqlens=[9, 24, 1],
                                    softcap=4.0, scale=0.3),
}


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", list(KV_CASES))
def test_kvcache(dtype, case):
    run_kvcache(dtype, **KV_CASES[case])


@pytest.mark.parametrize("paged", [False, True])
def test_split_kv_equals_unsplit(paged):
    case = dict(paged=paged, seqlens=[37, 0, 29], new=2, sq=2, causal=True)
    split, split_lse = run_kvcache("f32", num_splits=3, **case)
    whole, whole_lse = run_kvcache("f32", num_splits=1, **case)
    assert (split - whole).abs().max() < 1e-5
    finite = torch.isfinite(whole_lse)
    assert torch.equal(finite, torch.isfinite(split_lse))
    assert (split_lse[finite] - whole_lse[finite]).abs().max() < 1e-5


def kv_args(paged=True, new=True):
    k_cache, v_cache = make_cache(torch.float32, paged, 16, seed=1)
    args = dict(q=rand(BATCH, 1, HQ, D, dtype=torch.float32, seed=2),
                k_cache=k_cache, v_cache=v_cache,
                cache_seqlens=torch.tensor([3, 8, 0], dtype=torch.int32),
                block_table=(scattered_table(2, k_cache.shape[0])
                             if paged else None))
    if new:
        args["k"] = rand(BATCH, 2, HKV, D, dtype=torch.float32, seed=3)
        args["v"] = rand(BATCH, 2, HKV, D, dtype=torch.float32, seed=4)
    return args


def _set(**changes):
    return lambda a: a.update(changes)


KV_BAD = {
    r"cache_seqlens\[1\] is -1": _set(cache_seqlens=torch.tensor(
        [3, -1, 0], dtype=torch.int32)),
    "cache_seqlens has dtype torch.int64": _set(cache_seqlens=torch.tensor(
        [3, 8, 0])),
    "cache_seqlens has 2 entries, expected 3": _set(cache_seqlens=torch.tensor(
        [3, 8], dtype=torch.int32)),
    "sequence 1 needs 3 pages for 17 keys": _set(cache_seqlens=torch.tensor(
        [3, 15, 0], dtype=torch.int32)),
    r"block_table\[1, 0\] is 99, outside the cache's": lambda a: a[
        "block_table"].__setitem__((1, 0), 99),
    "block_table has dtype torch.int64": lambda a: a.update(
        block_table=a["block_table"].long()),
    "block_table has 2 rows, expected 3": lambda a: a.update(
        block_table=a["block_table"][:2]),
    "k and v are appended together": _set(v=None),
    "k dimension 2 is 1, expected 2": lambda a: a.update(k=a["k"][:, :, :1]),
    "v dimension 1 is 1, expected 2": lambda a: a.update(v=a["v"][:, :1]),
    "v_cache has dtype torch.float16": lambda a: a.update(
        v_cache=a["v_cache"].half()),
    "k_cache dimension 3 is 8, expected 16": lambda a: a.update(
        k_cache=a["k_cache"][..., :8], v_cache=a["v_cache"][..., :8]),
    "num_splits must be an int": _set(num_splits=-1),
    "q must have rank 4": lambda a: a.update(q=a["q"][0]),
}


@pytest.mark.parametrize("message", list(KV_BAD))
def test_kvcache_rejects(message):
    args = kv_args()
    KV_BAD[message](args)
    q = args.pop("q")
    k_cache, v_cache = args.pop("k_cache"), args.pop("v_cache")
    with pytest.raises(ArgumentError, match=message):
        fat.attention_with_kvcache(q, k_cache, v_cache, **args)


def test_kvcache_rejects_contiguous_overflow_and_batch():
    args = kv_args(paged=False)
    q, kc, vc = args.pop("q"), args.pop("k_cache"), args.pop("v_cache")
    args["cache_seqlens"] = torch.tensor([3, 15, 0], dtype=torch.int32)
    with pytest.raises(ArgumentError, match="sequence 1 holds 17 keys .* "
                       "more than k_cache's capacity 16"):
        fat.attention_with_kvcache(q, kc, vc, **args)
    with pytest.raises(ArgumentError, match="k_cache dimension 0 is 2, "
                       "expected 3"):
        fat.attention_with_kvcache(q, kc[:2], vc[:2], cache_seqlens=1)


def test_cuda_varlen_f32_is_refused_naming_the_op():
    # bf16/f16 run the sm_90a kernel (test_varlen_cuda_route.py); f32 has
    # no kernel there.
    packed = fake_cuda(torch.zeros(4, HQ, D))
    bounds = fake_cuda(cu([0, 4]))
    with pytest.raises(UnsupportedError, match="varlen_attention: q has "
                       "dtype torch.float32; on CUDA the sm_90a kernel takes "
                       "torch.bfloat16 or torch.float16"):
        fat.varlen_attention(packed, packed, packed, bounds, bounds, 4, 4)


def test_device_mismatch_is_an_argument_error():
    q, k, v = varlen_inputs(torch.float32)
    with pytest.raises(ArgumentError, match="k is on meta, expected cpu"):
        fat.varlen_attention(q, k.to("meta"), v, cu(CU_Q), cu(CU_K), 70, 70)

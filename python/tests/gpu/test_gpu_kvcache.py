"""fa_mlir.torch.attention_with_kvcache on an sm_90a GPU (the
fa.attention_kvcache kernel sequence: split-KV partials, then their
combine) against float64 attention per sequence, with FlashAttention's
criterion: ours <= 2x the error of the same attention computed in bf16,
plus 1e-4.

Decode (one query) and chunked prefill (four queries) over a contiguous
cache, GQA 32/8, d128 bf16, bottom-right causal, lengths [1000, 517, 0, 1];
the cache slots past each length hold NaN, so reading one shows. Rows
without keys (the empty sequence, and prefill queries before the first
key) must give O = 0 and LSE = -inf.

Paged caches and in-place appends (CASES): page sizes 16, 64, 128, 256,
pages scattered (a random permutation, with pages no sequence uses), lengths
that are not multiples of the page, empty sequences, appends that cross page
boundaries, GQA groups 1, 3, 4, causal and a window; every cache slot that
holds no key is NaN (appended slots too, until the append writes them), and
the caches after the call must equal the expected ones slot for slot.

The kernels are in configs.json; python/tests/test_gpu_configs.py checks
that on the CPU."""
from dataclasses import dataclass
import math
from typing import Optional, Tuple

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import fa_mlir.torch as fat  # noqa: E402

HQ, HKV, D, CAPACITY = 32, 8, 128, 1024
LENGTHS = [1000, 517, 0, 1]
DTYPE = torch.bfloat16
EPS = 1e-4


def cache_inputs(sq, lengths=LENGTHS, device="cuda", seed=0):
    """q [B, sq, HQ, D] and NaN-padded caches [B, CAPACITY, HKV, D], with
    cache_seqlens int32 [B]."""
    g = torch.Generator(device=device).manual_seed(seed)
    b = len(lengths)
    q = torch.randn(b, sq, HQ, D, generator=g, device=device).to(DTYPE)
    caches = []
    for _ in range(2):
        c = torch.randn(b, CAPACITY, HKV, D, generator=g, device=device)
        for i, n in enumerate(lengths):
            c[i, n:] = float("nan")
        caches.append(c.to(DTYPE))
    lens = torch.tensor(lengths, dtype=torch.int32, device=device)
    return q, caches[0], caches[1], lens


def call(q, k_cache, v_cache, cache_seqlens):
    """The call the tests make (test_gpu_configs.py replays it on the CPU)."""
    return fat.attention_with_kvcache(q, k_cache, v_cache,
                                      cache_seqlens=cache_seqlens,
                                      causal=True, return_lse=True)


def _visible(sq, n, device):
    """[sq, n] bottom-right causal mask: query i sits at n - sq + i."""
    rows = torch.arange(sq, device=device)[:, None] + (n - sq)
    return torch.arange(n, device=device)[None, :] <= rows


def reference(q, k, v, n, dtype=torch.float64):
    """One sequence's (out [sq, HQ, D], lse [HQ, sq]) over its n keys,
    computed in `dtype` (float64: the oracle; bf16: the baseline)."""
    sq, hq = q.shape[0], q.shape[1]
    if n == 0:
        return (torch.zeros(sq, hq, D, dtype=dtype, device=q.device),
                torch.full((hq, sq), -math.inf, dtype=torch.float64,
                           device=q.device))
    q, k, v = (t.to(dtype).transpose(0, 1) for t in (q, k[:n], v[:n]))
    mask = _visible(sq, n, q.device)
    if dtype == torch.float64:
        k, v = (t.repeat_interleave(HQ // HKV, 0) for t in (k, v))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D)
        s = s.masked_fill(~mask, -math.inf)
        lse = torch.logsumexp(s, -1)
        p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
        return (p @ v).transpose(0, 1), lse
    # A plain bf16 implementation; rows without a visible key are NaN there.
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                         enable_gqa=True)
    return out.nan_to_num(0.0).transpose(0, 1), None


def check(q, k_cache, v_cache, lengths, out, lse):
    torch.cuda.synchronize()
    assert out.dtype == q.dtype and out.is_contiguous()
    assert out.shape == q.shape and lse.shape == (q.shape[0], HQ, q.shape[1])
    assert lse.dtype == torch.float32
    err = base = 0.0
    for b, n in enumerate(lengths):
        ref, ref_lse = reference(q[b], k_cache[b], v_cache[b], n)
        low, _ = reference(q[b], k_cache[b], v_cache[b], n, DTYPE)
        err = max(err, (out[b].double() - ref).abs().max().item())
        base = max(base, (low.double() - ref).abs().max().item())
        empty = torch.isneginf(ref_lse)  # [HQ, sq]: rows without keys
        assert torch.equal(torch.isneginf(lse[b]), empty), b
        assert torch.all(out[b].transpose(0, 1)[empty] == 0), b
        finite = ~empty
        if finite.any():
            assert (lse[b].double()[finite] - ref_lse[finite]).abs().max() \
                < 1e-3, b
    assert err <= 2 * base + EPS, (err, base)


@pytest.mark.parametrize("sq", [1, 4], ids=["decode", "prefill4"])
def test_kvcache_against_float64(sq):
    q, kc, vc, lens = cache_inputs(sq)
    out, lse = call(q, kc, vc, lens)
    check(q, kc, vc, LENGTHS, out, lse)


def test_kvcache_int_seqlens():
    lengths = [517] * 3
    q, kc, vc, _ = cache_inputs(1, lengths)
    out, lse = call(q, kc, vc, 517)
    check(q, kc, vc, lengths, out, lse)


# -- paged caches and appends -------------------------------------------------

@dataclass(frozen=True)
class Case:
    name: str
    page_size: Optional[int]  # None: a contiguous cache
    lengths: Tuple[int, ...]  # cache_seqlens: the keys cached before the call
    seq_new: int = 0          # tokens appended (0: no k/v)
    sq: int = 1
    hq: int = HQ
    hkv: int = HKV
    causal: bool = True
    window: Optional[Tuple[int, int]] = None


CASES = [
    Case("paged16-decode", 16, (1000, 517, 0, 1, 35)),
    Case("paged64-prefill4", 64, (1000, 517, 0, 1, 130), sq=4),
    Case("paged128-gqa1", 128, (300, 129, 0, 127), hq=8, hkv=8),
    Case("paged256-gqa3", 256, (1000, 255, 0, 257), sq=2, hq=12, hkv=4),
    Case("paged64-window", 64, (1000, 517, 0, 70), causal=False,
         window=(100, 0)),
    Case("paged16-append-crossing", 16, (14, 0, 31, 100, 1), seq_new=5),
    Case("paged128-append-prefill", 128, (125, 0, 256, 1000), seq_new=7,
         sq=4, hq=12, hkv=4),
    Case("contiguous-append", None, (1000, 0, 3, 517), seq_new=3, sq=2),
]


def _slots(table, page_size, b, positions):
    """(page, row) of sequence b's keys at `positions` (a long tensor)."""
    return table[b].long()[positions // page_size], positions % page_size


def case_inputs(case, device="cuda", seed=1):
    """{q, k_cache, v_cache, cache_seqlens, block_table, k, v} for `case`,
    and the caches the call must leave ({"k_cache", "v_cache"}: what the
    append writes, NaN in every slot that holds no key)."""
    g = torch.Generator(device=device).manual_seed(seed)
    b = len(case.lengths)

    def randn(*shape):
        return torch.randn(*shape, generator=g, device=device).to(DTYPE)
    inputs = {"q": randn(b, case.sq, case.hq, D),
              "cache_seqlens": torch.tensor(case.lengths, dtype=torch.int32,
                                            device=device),
              "block_table": None, "k": None, "v": None}
    rows = _cache_rows(case, inputs, g, device)
    if case.seq_new:
        inputs["k"], inputs["v"] = (randn(b, case.seq_new, case.hkv, D)
                                    for _ in range(2))
    expected = {}
    for name, new in (("k_cache", inputs["k"]), ("v_cache", inputs["v"])):
        inputs[name] = _nan_padded(case, inputs, randn(*rows, case.hkv, D))
        expected[name] = inputs[name].clone()
        for i, n in enumerate(case.lengths):
            if new is not None:
                pos = torch.arange(n, n + case.seq_new, device=device)
                expected[name][_cache_slots(case, inputs, i, pos)] = new[i]
    return inputs, expected


def _cache_rows(case, inputs, g, device):
    """The caches' two leading dims: [batch, capacity], or [num_pages,
    page_size] with the block table (a random permutation of the pages, a
    spare column, and pages no sequence uses) put in `inputs`."""
    b = len(case.lengths)
    most = max(case.lengths) + case.seq_new
    if case.page_size is None:
        return (b, most + 5)
    max_pages = -(-most // case.page_size) + 1
    num_pages = b * max_pages + 3
    perm = torch.randperm(num_pages, generator=g, device=device)
    inputs["block_table"] = perm[:b * max_pages].reshape(b, max_pages).to(
        torch.int32)
    return (num_pages, case.page_size)


def _nan_padded(case, inputs, data):
    """`data` in the slots that hold the cached keys, NaN elsewhere."""
    cache = torch.full_like(data, float("nan"))
    for i, n in enumerate(case.lengths):
        keep = _cache_slots(case, inputs, i,
                            torch.arange(n, device=data.device))
        cache[keep] = data[keep]
    return cache


def _cache_slots(case, inputs, b, positions):
    """Index of sequence b's keys at `positions` into a cache."""
    if case.page_size is None:
        return (torch.full_like(positions, b), positions)
    return _slots(inputs["block_table"], case.page_size, b, positions)


def case_call(case, inputs):
    """The call the tests make (test_gpu_configs.py replays it on the CPU)."""
    return fat.attention_with_kvcache(
        inputs["q"], inputs["k_cache"], inputs["v_cache"],
        cache_seqlens=inputs["cache_seqlens"],
        block_table=inputs["block_table"], k=inputs["k"], v=inputs["v"],
        causal=case.causal, window=case.window, return_lse=True)


def _case_visible(case, sq, n, device):
    """[sq, n] bottom-right mask: query i sits at n - sq + i."""
    pos = torch.arange(sq, device=device)[:, None] + (n - sq)
    keys = torch.arange(n, device=device)[None, :]
    left, right = case.window if case.window else (math.inf, math.inf)
    if case.causal:
        right = min(right, 0)
    return (keys <= pos + right) & (keys >= pos - left)


def case_reference(case, q, k, v, dtype=torch.float64):
    """(out [sq, hq, D], lse [hq, sq]) of one sequence over its keys k, v
    [n, hkv, D], in `dtype` (float64: the oracle; bf16: the baseline, LSE
    None)."""
    sq, n = q.shape[0], k.shape[0]
    if n == 0:
        return reference(q, k, v, 0, dtype)
    mask = _case_visible(case, sq, n, q.device)
    q, k, v = (t.to(dtype).transpose(0, 1) for t in (q, k, v))
    group = case.hq // case.hkv
    if dtype != torch.float64:
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                             enable_gqa=True)
        return out.nan_to_num(0.0).transpose(0, 1), None
    k, v = (t.repeat_interleave(group, 0) for t in (k, v))
    s = (q @ k.transpose(-1, -2)) / math.sqrt(D)
    s = s.masked_fill(~mask, -math.inf)
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    return (p @ v).transpose(0, 1), lse


def _sequence_kv(case, caches, inputs, b):
    """Sequence b's keys and values [n, hkv, D] after the call."""
    n = case.lengths[b] + case.seq_new
    slots = _cache_slots(case, inputs, b,
                         torch.arange(n, device=caches["k_cache"].device))
    return caches["k_cache"][slots], caches["v_cache"][slots]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_paged_and_append_against_float64(case):
    inputs, expected = case_inputs(case)
    out, lse = case_call(case, inputs)
    torch.cuda.synchronize()
    for name in ("k_cache", "v_cache"):  # the append, in place, exactly
        torch.testing.assert_close(inputs[name], expected[name], rtol=0,
                                   atol=0, equal_nan=True, msg=name)
    q = inputs["q"]
    assert out.shape == q.shape and out.dtype == DTYPE
    assert lse.shape == (q.shape[0], case.hq, case.sq)
    err = base = 0.0
    for b in range(q.shape[0]):
        k, v = _sequence_kv(case, expected, inputs, b)
        ref, ref_lse = case_reference(case, q[b], k, v)
        low, _ = case_reference(case, q[b], k, v, DTYPE)
        err = max(err, (out[b].double() - ref).abs().max().item())
        base = max(base, (low.double() - ref).abs().max().item())
        empty = torch.isneginf(ref_lse)  # [hq, sq]: rows without keys
        assert torch.equal(torch.isneginf(lse[b]), empty), b
        assert torch.all(out[b].transpose(0, 1)[empty] == 0), b
        if (~empty).any():
            assert (lse[b].double()[~empty] - ref_lse[~empty]).abs().max() \
                < 1e-3, b
    assert err <= 2 * base + EPS, (err, base)

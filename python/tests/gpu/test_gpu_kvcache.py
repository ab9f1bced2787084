"""fa_mlir.torch.attention_with_kvcache on an sm_90a GPU (the
fa.attention_kvcache kernel sequence: split-KV partials, then their
combine) against float64 attention per sequence, with FlashAttention's
criterion: ours <= 2x the error of the same attention computed in bf16,
plus 1e-4.

Decode (one query) and chunked prefill (four queries) over a contiguous
cache, GQA 32/8, d128 bf16, bottom-right causal, lengths [1000, 517, 0, 1];
the cache slots past each length hold NaN, so reading one shows. Rows
without keys (the empty sequence, and prefill queries before the first
key) must give O = 0 and LSE = -inf. The kernel is in configs.json;
python/tests/test_gpu_configs.py checks that on the CPU."""
import math

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.errors import UnsupportedError  # noqa: E402

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
    sq = q.shape[0]
    if n == 0:
        return (torch.zeros(sq, HQ, D, dtype=dtype, device=q.device),
                torch.full((HQ, sq), -math.inf, dtype=torch.float64,
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


def test_kvcache_paged_and_append_are_unsupported():
    q, kc, vc, lens = cache_inputs(1)
    table = torch.zeros(len(LENGTHS), 1, dtype=torch.int32, device="cuda")
    with pytest.raises(UnsupportedError, match="paged KV caches"):
        fat.attention_with_kvcache(q, kc, vc, cache_seqlens=lens.clamp(max=1),
                                   block_table=table)
    new = torch.zeros(len(LENGTHS), 1, HKV, D, dtype=DTYPE, device="cuda")
    with pytest.raises(UnsupportedError, match=r"append \(k, v\)"):
        fat.attention_with_kvcache(q, kc, vc, cache_seqlens=lens, k=new,
                                   v=new)

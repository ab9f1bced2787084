"""FlashAttention-4's paged decode and the decode bandwidth floor, shared by
bench_decode.py (the kernels alone) and bench_api_overhead.py (through
fa_mlir.torch), so that both time the same peer call and the same floor.

  copy_bandwidth  the card's HBM bandwidth, measured in the calling process:
                  a 2 GiB device-to-device copy reads and writes each byte
                  once, so 2 x bytes over the time the caller's timer gives
  fa4_best        FA4 with its split heuristic, or unsplit where its sm_90
                  kernel refuses to split
  fa4_paged       FA4's flash_attn_varlen_func over a paged KV cache
  decode_bytes    the least a decode step moves: the keys and values of each
                  sequence's length, q and the output
"""
import math

import torch

import peers


def copy_bandwidth(ms_of, device="cuda", nbytes=2 << 30):
    """Bytes per second of a device-to-device copy of `nbytes`, timed by
    ms_of(fn) -> milliseconds per call of fn."""
    src = torch.empty(nbytes // 2, dtype=torch.int16, device=device)
    dst = torch.empty_like(src)
    ms = ms_of(lambda: dst.copy_(src))
    return 2 * nbytes / (ms * 1e-3)


def fa4_best(call):
    """FA4 with its split heuristic (num_splits=0), or unsplit where it
    refuses to split ("SplitKV not supported on SM 9.0": its sm_90 kernel
    has no split-KV, and its heuristic still asks for one at small
    batches). Decided by one call, outside the timing."""
    try:
        call(0)
        return lambda: call(0)
    except AssertionError as ex:
        print(f"# fa4 num_splits=0: {ex}; timing num_splits=1")
        return lambda: call(1)


def fa4_paged(q, key_cache, value_cache, seq_lens, block_table, **kw):
    """FA4's decode over paged caches: q [B, Sq, Hq, D], key_cache and
    value_cache [num_pages, page, Hkv, D], the pages of sequence b listed in
    block_table[b], seq_lens (int32, on the device) keys each; `kw` goes to
    flash_attn_varlen_func (causal=...). The call returns (out, lse).
    Raises peers.Unavailable without FA4."""
    f = peers.fa4_varlen_func()
    return fa4_best(lambda splits: f(q, key_cache, value_cache,
                                     seqused_k=seq_lens, page_table=block_table,
                                     num_splits=splits, **kw))


def decode_bytes(q, key_cache, value_cache, seq_lens, out):
    """Bytes a decode step must move at least: sum(seq_lens) rows of keys and
    of values (a row is [Hkv, D] of a cache, paged [num_pages, page, Hkv, D]
    or contiguous [B, S, Hkv, D]), q read once and `out` written once. The
    block table and the lengths (a few hundred bytes) are left out."""
    rows = sum(int(n) for n in seq_lens)
    row_bytes = sum(math.prod(c.shape[2:]) * c.element_size()
                    for c in (key_cache, value_cache))
    return rows * row_bytes + sum(t.numel() * t.element_size() for t in (q, out))

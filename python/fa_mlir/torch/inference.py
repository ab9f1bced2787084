"""Serving-side attention with flash-attn's conventions: ragged batches
(varlen_attention) and KV caches, contiguous or paged, with in-place appends
and split-KV decode (attention_with_kvcache).

On the CPU both run one dense fa.attention kernel per sequence (bshd,
dynamic lengths, so one compiled kernel serves every length) on that
sequence's slice of the packed tensors, or its keys gathered from the cache
pages. On CUDA attention_with_kvcache runs the sm_90a fa.attention_kvcache
kernel sequence (all sequences in one call), over contiguous or paged
caches, with the append written into the caches in place by the sequence's
first kernel; varlen_attention runs the sm_90a fa.attention_varlen kernel
once for the whole batch, and its backward the sm_90a
fa.attention_varlen_grad kernels. See docs/Inference.md for why, and for
what is not built yet.

Both take FlexAttention's score_mod and mask_mod as fa_mlir.torch.attention
does (traced into the ops' regions; docs/Modifiers.md, *On the inference
ops*, fixes what the indices count). On the CPU each sequence's dense call
gets the regions rebased to those positions (_sequence_mods.py).
"""
import torch

from ..arguments import check_bool, check_f32, check_int
from ..errors import UnsupportedError
from . import _inference_checks as checks
from . import _ops
from . import modifiers
from ._forward_only import forward_only, needs_grad
from ._sequence_mods import SequenceModifiers
from .attention import _regions, mask_options, run_traced, window_ints

VARLEN, KVCACHE = _ops.VARLEN, _ops.KVCACHE


def _score_options(where, scale, softcap, window):
    if scale is not None:
        scale = check_f32(where, "scale", scale)
    if softcap is not None:
        softcap = check_f32(where, "softcap", softcap, positive=True)
    return scale, softcap, window_ints(where, window)


def _modifiers(where, score_mod, mask_mod, q):
    """The call's traced functions (modifiers.Modifiers, or None), their
    captures checked against q."""
    mods = modifiers.trace(where, score_mod, mask_mod, q.device)
    if mods is not None:
        modifiers.check_captures(where, mods, q)
    return mods


def _region_args(mods):
    """(score_mod text, mask_mod text, captures) as _ops takes them."""
    return _regions(mods) + (list(mods.captures) if mods else [],)


def varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                     max_seqlen_k, *, causal=False, mask_alignment=None,
                     scale=None, window=None, softcap=None, return_lse=False,
                     deterministic=False, score_mod=None, mask_mod=None):
    """Attention over a ragged batch packed along the tokens.

    q: [total_q, Hq, D], k: [total_k, Hkv, D], v: [total_k, Hkv, Dv];
    sequence b is rows cu_seqlens_q[b]:cu_seqlens_q[b+1] of q and
    cu_seqlens_k[b]:cu_seqlens_k[b+1] of k and v (int32 [B+1], starting at 0,
    non-decreasing: empty sequences are allowed). Masks, scale, window and
    softcap as fa_mlir.torch.attention, per sequence (mask_alignment None is
    top-left, as there). Returns out [total_q, Hq, Dv], and with return_lse
    the f32 lse [Hq, total_q]. Differentiable in q, k and v: on CUDA the
    backward is the sm_90a fa.attention_varlen_grad kernels, one launch
    sequence for the whole batch; on the CPU the backward kernel per
    sequence. deterministic: the CUDA backward accumulates dQ in a fixed
    order, so that repeated runs are bitwise equal (the CPU's always is).

    score_mod(score, b, h, q_idx, kv_idx) and mask_mod(b, h, q_idx, kv_idx):
    FlexAttention's modifiers, as fa_mlir.torch.attention takes them
    (traced into fa.attention_varlen's regions; tensors they read are
    passed to the kernel on every call). b is the sequence (0 .. B-1),
    q_idx and kv_idx the query's and the key's position within their
    sequence, from 0 (what the same batch padded to [B, max_seqlen] gives
    attention and FlexAttention); h is the query head. A table read per
    packed row needs cu_seqlens as a capture. Differentiable on the CPU
    (per sequence); on CUDA the backward (fa.attention_varlen_grad) takes
    no regions, so a backward through an output computed with them raises
    UnsupportedError naming them (never a gradient without them).

    CUDA tensors (bf16/f16, sm_90a) run the fa.attention_varlen kernel once
    for the whole batch, without reading the bounds back (no device->host
    sync: the call can be captured in a CUDA graph; the grid comes from
    the tensors' shapes). Their values are trusted there, as
    FlashAttention's kernels trust them, unless FA_MLIR_DEBUG_CHECKS=1
    asks for the host checks the CPU always runs. max_seqlen_q/_k are
    checked as ints >= 0 (and against the bounds when those are read).
    What the kernel cannot do (a head dim) is the compiler's
    UnsupportedError. The backward reads no bound back either.
    """
    checks.query(VARLEN, q, 3)
    for name, t in (("k", k), ("v", v)):
        checks.tensor(VARLEN, name, t, 3, q.dtype, q.device)
    checks.same_dims(VARLEN, "v", v, (0, 1), k, "k")
    checks.same_dims(VARLEN, "k", k, (2,), q, "q")
    checks.heads(VARLEN, q.shape[1], k.shape[1], "k")
    mods = _modifiers(VARLEN, score_mod, mask_mod, q)
    max_q = check_int(VARLEN, "max_seqlen_q", max_seqlen_q, 0)
    max_k = check_int(VARLEN, "max_seqlen_k", max_seqlen_k, 0)
    len_q = checks.cu_seqlens(VARLEN, "cu_seqlens_q", cu_seqlens_q,
                              q.shape[0], max_q, q.device)
    len_k = checks.cu_seqlens(VARLEN, "cu_seqlens_k", cu_seqlens_k,
                              k.shape[0], max_k, q.device)
    if cu_seqlens_q.shape[0] != cu_seqlens_k.shape[0]:
        raise checks.ArgumentError(
            f"{VARLEN}: cu_seqlens_q has {cu_seqlens_q.shape[0]} entries, "
            f"cu_seqlens_k {cu_seqlens_k.shape[0]}; both must be B+1")
    return_lse = check_bool(VARLEN, "return_lse", return_lse)
    deterministic = check_bool(VARLEN, "deterministic", deterministic)
    # Checked here, not only by the kernels' calls: a batch of empty
    # sequences calls none of them.
    checked = _score_options(VARLEN, scale, softcap, None)[:2] + mask_options(
        VARLEN, causal, window, mask_alignment)
    if q.device.type == "cuda":
        out, lse = _cuda_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, *checked,
                                deterministic=deterministic, mods=mods)
        return (out, lse) if return_lse else out
    scale, softcap, causal, wl, wr, alignment = checked
    options = (causal, scale, wl, wr, softcap, alignment, "bshd")
    per_sequence = SequenceModifiers(mods, rebase_q=False)
    outs, lses = [], []
    q0 = k0 = 0
    for b, (sq, sk) in enumerate(zip(len_q, len_k)):
        qb = q[q0:q0 + sq].unsqueeze(0)
        kb, vb = (t[k0:k0 + sk].unsqueeze(0) for t in (k, v))
        q0, k0 = q0 + sq, k0 + sk
        if sq == 0:
            continue
        if sk == 0:  # no key: output 0, LSE -inf (and no gradient)
            outs.append(q.new_zeros((sq, q.shape[1], v.shape[2])))
            lses.append(torch.full((q.shape[1], sq), float("-inf"),
                                   device=q.device))
            continue
        ob, lb = run_traced(qb, kb, vb, None, options,
                            mods=per_sequence.of(b, 0, q.device))
        outs.append(ob[0])
        lses.append(lb[0])
    out = (torch.cat(outs) if outs else
           q.new_zeros((0, q.shape[1], v.shape[2])))
    if not return_lse:
        return out
    lse = (torch.cat(lses, dim=1) if lses else
           torch.zeros((q.shape[1], 0), device=q.device))
    return out, lse


def _cuda_varlen(q, k, v, cu_q, cu_k, scale, softcap, causal, wl, wr,
                 alignment, deterministic=False, mods=None):
    """(out, lse) of the sm_90a varlen kernel, differentiable in q, k, v
    without modifiers (`mods`); with them a backward raises."""
    if q.dtype not in (torch.bfloat16, torch.float16):
        raise UnsupportedError(
            f"{VARLEN}: q has dtype {q.dtype}; on CUDA the sm_90a kernel "
            "takes torch.bfloat16 or torch.float16")
    options = (causal, scale, wl, wr, softcap, alignment)
    if q.shape[0] == 0:  # no query: nothing to compute
        return (q.new_zeros((0, q.shape[1], v.shape[2])),
                q.new_zeros((q.shape[1], 0), dtype=torch.float32))
    regions = _region_args(mods)
    if not needs_grad(q, k, v):  # inference: no autograd node
        return _ops.run_varlen(q, k, v, cu_q, cu_k, *options, *regions)
    if mods is not None:
        return forward_only(
            lambda: tuple(_ops.run_varlen(q, k, v, cu_q, cu_k, *options,
                                          *regions)),
            _no_varlen_grad(mods), q, k, v, constant=(1,))
    return _VarlenFunction.apply(q, k, v, cu_q, cu_k, options, deterministic)


def _no_varlen_grad(mods):
    names = " and ".join(n for n, text in (("score_mod", mods.score_mod),
                                           ("mask_mod", mods.mask_mod)) if text)
    return (f"{VARLEN}: no gradient through an output computed with "
            f"{names} on CUDA: the sm_90a backward (fa.attention_varlen_grad) "
            "takes no score_mod/mask_mod regions (its kernels see packed "
            "rows, not the sequences' positions). Call it under "
            "torch.no_grad() for inference, or train on CPU tensors, whose "
            "backward runs per sequence")


class _VarlenFunction(torch.autograd.Function):
    """forward: the varlen kernel over the whole batch; backward: the
    varlen backward kernels over the whole batch (fa.attention_varlen_grad:
    sequences without queries or keys get zero gradients). The LSE is not
    differentiable."""

    @staticmethod
    def forward(ctx, q, k, v, cu_q, cu_k, options, deterministic):
        out, lse = _ops.run_varlen(q, k, v, cu_q, cu_k, *options)
        ctx.save_for_backward(q, k, v, out, lse, cu_q, cu_k)
        ctx.options = options + (deterministic,)
        ctx.mark_non_differentiable(lse)
        ctx.set_materialize_grads(False)  # no zeros for the LSE's gradient
        return out, lse

    @staticmethod
    def backward(ctx, dout, dlse):
        if dout is None:  # no gradient reached the output: all zero
            return (None,) * 7
        q, k, v, out, lse, cu_q, cu_k = ctx.saved_tensors
        dq, dk, dv = _ops.run_varlen_backward(dout, q, k, v, out, lse, cu_q,
                                              cu_k, *ctx.options)
        return dq, dk, dv, None, None, None, None


def _check_cache(q, k_cache, v_cache, block_table, k, v):
    checks.query(KVCACHE, q, 4)
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        checks.tensor(KVCACHE, name, t, 4, q.dtype, q.device)
    checks.same_dims(KVCACHE, "v_cache", v_cache, (0, 1, 2), k_cache, "k_cache")
    checks.same_dims(KVCACHE, "k_cache", k_cache, (3,), q, "q")
    checks.heads(KVCACHE, q.shape[2], k_cache.shape[2], "k_cache")
    if block_table is None:
        checks.same_dims(KVCACHE, "k_cache", k_cache, (0,), q, "q")
    if (k is None) != (v is None):
        raise checks.ArgumentError(f"{KVCACHE}: k and v are appended "
                                   "together; give both or neither")
    if k is not None:
        for name, t, cache in (("k", k, k_cache), ("v", v, v_cache)):
            checks.own_memory(KVCACHE, f"{name}_cache", cache)
            checks.tensor(KVCACHE, name, t, 4, q.dtype, q.device)
            checks.same_dims(KVCACHE, name, t, (0,), q, "q")
            checks.same_dims(KVCACHE, name, t, (2, 3), cache, f"{name}_cache")
        checks.same_dims(KVCACHE, "v", v, (1,), k, "k")


def _slots(cache_len, num_new, block_table, page_size):
    """(page or batch row, position in it) of each appended token [B, Sn]."""
    pos = cache_len.long()[:, None] + torch.arange(num_new,
                                                   device=cache_len.device)
    if block_table is None:
        rows = torch.arange(cache_len.shape[0], device=cache_len.device)
        return rows[:, None].expand_as(pos), pos
    return (torch.gather(block_table.long(), 1, pos // page_size),
            pos % page_size)


def _sequence_keys(cache, block_table, b, length):
    """[1, length, Hkv, D]: the first `length` keys of sequence b; a copy
    gathered from its pages when the cache is paged."""
    if block_table is None:
        return cache[b:b + 1, :length]
    page_size = cache.shape[1]
    pages = block_table[b, :-(-length // page_size)].long()
    return cache[pages].flatten(0, 1)[:length].unsqueeze(0)


def attention_with_kvcache(q, k_cache, v_cache, *, cache_seqlens,
                           block_table=None, k=None, v=None, causal=False,
                           scale=None, window=None, softcap=None, num_splits=0,
                           return_lse=False, score_mod=None, mask_mod=None):
    """Decode / chunked prefill over a KV cache (flash-attn's
    flash_attn_with_kvcache).

    q: [B, Sq, Hq, D]. Contiguous caches k_cache/v_cache [B, capacity, Hkv,
    D]; paged ones [num_pages, page_size, Hkv, D] with block_table int32
    [B, max_pages] (sequence b's key t lives in page block_table[b, t //
    page_size], row t % page_size). cache_seqlens: int32 [B] (or an int), the
    keys already cached. k/v [B, Sk_new, Hkv, D], when given, are written
    into the caches at cache_seqlens first (in place, as flash-attn does);
    the attention then covers cache_seqlens + Sk_new keys. causal and window
    align bottom-right: the queries are the last Sq tokens. num_splits:
    split-KV chunks per (sequence, head) (0: a heuristic from the shape and
    the core count; 1: unsplit). Returns out [B, Sq, Hq, D], and with
    return_lse the f32 lse [B, Hq, Sq]. Not differentiable (inference).

    score_mod(score, b, h, q_idx, kv_idx) and mask_mod(b, h, q_idx, kv_idx):
    FlexAttention's modifiers, as fa_mlir.torch.attention takes them
    (traced into fa.attention_kvcache's regions; tensors they read are
    passed to the kernel on every call). b is the sequence, kv_idx the
    key's position in it (0 .. cache_seqlens[b] + Sk_new - 1: a paged
    cache's pages are invisible), and q_idx the query's absolute position
    in the same sequence, cache_seqlens[b] + Sk_new - Sq + i for query row
    i (the queries are the last Sq tokens): ALiBi's kv_idx - q_idx is the
    true distance at every decode step, mask_mod kv_idx <= q_idx is
    causal, and one table indexed by position serves queries and keys.

    CUDA tensors (bf16/f16, sm_90a) run the fa.attention_kvcache kernel
    sequence, paged or not, with or without k/v; to append there the caches
    must be contiguous (the kernel writes into them; ArgumentError
    otherwise). The values of cache_seqlens and block_table are not read
    back there (no device->host sync: the call can be captured in a CUDA
    graph and replayed with new lengths and tables); the kernels trust
    them as FlashAttention's do, unless FA_MLIR_DEBUG_CHECKS=1 asks for
    the host checks the CPU always runs (lengths >= 0, within the
    capacity or the table's pages, pages in range). What the kernel
    cannot do (a page size it cannot tile, an element type) is the
    compiler's UnsupportedError.
    """
    _check_cache(q, k_cache, v_cache, block_table, k, v)
    batch, num_new = q.shape[0], (0 if k is None else k.shape[1])
    lens, cached = checks.cache_lengths(KVCACHE, cache_seqlens, batch,
                                        q.device)
    lengths = None if cached is None else [n + num_new for n in cached]
    if block_table is None:
        for b, n in enumerate(lengths or ()):
            if n > k_cache.shape[1]:
                raise checks.ArgumentError(
                    f"{KVCACHE}: sequence {b} holds {n} keys (cache_seqlens "
                    f"{cached[b]} + {num_new} new), more than k_cache's "
                    f"capacity {k_cache.shape[1]}")
    else:
        checks.block_table(KVCACHE, block_table, batch, k_cache.shape[0],
                           lengths, k_cache.shape[1], q.device)
    causal = check_bool(KVCACHE, "causal", causal)
    return_lse = check_bool(KVCACHE, "return_lse", return_lse)
    splits = check_int(KVCACHE, "num_splits", num_splits, 0)
    scale, softcap, (wl, wr) = _score_options(KVCACHE, scale, softcap, window)
    mods = _modifiers(KVCACHE, score_mod, mask_mod, q)

    with torch.no_grad():
        if q.device.type == "cuda":
            if k is not None:
                checks.in_place(KVCACHE, "k_cache", k_cache)
                checks.in_place(KVCACHE, "v_cache", v_cache)
            out, lse = _ops.run_kvcache(q, k_cache, v_cache, lens, causal,
                                        scale, wl, wr, softcap, splits,
                                        block_table, k, v, *_region_args(mods))
        else:
            out, lse = _cpu_kvcache(q, k_cache, v_cache, block_table, k, v,
                                    cached, lengths, causal, scale, wl, wr,
                                    softcap, splits, mods)
    return (out, lse) if return_lse else out


def _cpu_kvcache(q, k_cache, v_cache, block_table, k, v, cached, lengths,
                 causal, scale, wl, wr, softcap, splits, mods=None):
    """Appends k and v (in place), then runs the forward kernel on each
    sequence's keys: [out, lse]. `mods`: the call's modifiers, rebased per
    sequence (the queries of sequence b start at position lengths[b] -
    Sq)."""
    masked = causal or (wl, wr) != (-1, -1)
    if k is not None:
        cache_len = torch.tensor(cached, dtype=torch.int32, device=q.device)
        rows, cols = _slots(cache_len, k.shape[1], block_table,
                            k_cache.shape[1])
        k_cache[rows, cols] = k
        v_cache[rows, cols] = v
    per_sequence = SequenceModifiers(mods, rebase_q=True)
    outs, lses = [], []
    for b, n in enumerate(lengths):
        kb = _sequence_keys(k_cache, block_table, b, n)
        vb = _sequence_keys(v_cache, block_table, b, n)
        score_text, mask_text, captures = _region_args(
            per_sequence.of(b, n - q.shape[1], q.device))
        ob, lb = _ops.run_forward(
            q[b:b + 1], kb, vb, None, causal, scale, wl, wr, softcap,
            "bottom_right" if masked else "", "bshd",
            num_splits=None if splits == 1 else splits, score_mod=score_text,
            mask_mod=mask_text, captures=captures)
        outs.append(ob)
        lses.append(lb)
    if not outs:  # batch 0: nothing to concatenate
        out_shape, lse_shape = _ops._shapes(q, v_cache, "bshd")
        return (q.new_empty(out_shape),
                q.new_empty(lse_shape, dtype=torch.float32))
    return torch.cat(outs), torch.cat(lses)

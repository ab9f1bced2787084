"""Ring attention: one attention whose sequence is split over the ranks of a
torch.distributed group (context parallelism).

Forward: each rank keeps its queries and passes its keys and values around
the ring; at each step it runs the fa.attention kernel on the chunk that is
here (while the next one is in flight) and merges the partial result into
its running output with fa.combine (fa_mlir.torch.combine), in float32.

Backward (FlashAttention-2's, per chunk): with the merged output and LSE,
the backward kernel on (queries, one key chunk) gives exactly that chunk's
share of dQ, and the whole of dK and dV that these queries contribute to
the chunk. dQ accumulates here; dK and dV (float32) travel around the ring
with their keys and arrive at their owner after a full turn.
"""
from typing import NamedTuple, Optional

import torch
import torch.distributed as dist

from ...arguments import check_bool, check_f32
from ...errors import ArgumentError
from .. import _convert, _ops
from .._combine import combine
from . import _plan
from ._ring import Ring

WHERE = "fa_mlir.torch.distributed.ring_attention"
SEQ_DIM = {"bhsd": 2, "bshd": 1}


class Options(NamedTuple):
    causal: bool
    scale: Optional[float]
    layout: str
    sharding: str


def ring_attention(q, k, v, *, group=None, causal=False, scale=None,
                   layout="bhsd", sharding="contiguous", return_lse=False):
    """This rank's chunk of softmax(mask(scale * Q Kᵀ)) V over the whole
    sequence, whose chunks the ranks of `group` hold.

    q: [B, Hq, Sq, D], k: [B, Hkv, Sk, D], v: [B, Hkv, Sk, Dv] ("bhsd";
    "bshd" swaps heads and seq), the local chunks; every rank passes the
    same shapes and options. sharding "contiguous": rank r holds chunk r of
    W equal chunks; "zigzag" (load-balanced for causal): chunks r and
    2W-1-r of 2W (fa_mlir.torch.distributed.shard_sequence lays a sequence
    out either way). causal: causal over the whole sequence (needs Sq ==
    Sk). scale: default 1/sqrt(D). Returns this rank's output [B, Hq, Sq,
    Dv] (in the layout), and with return_lse the float32 log-sum-exp [B, Hq,
    Sq] over all keys. Differentiable in q, k and v.

    CPU tensors need a gloo group, CUDA tensors an NCCL one (and the sm_90a
    kernels, fa.combine's included).
    """
    if not (dist.is_available() and dist.is_initialized()):
        raise ArgumentError(f"{WHERE}: torch.distributed is not initialized "
                            "(call torch.distributed.init_process_group "
                            "first)")
    if dist.get_rank(group) < 0:  # only this process is wrong: nobody waits
        raise ArgumentError(f"{WHERE}: this process (global rank "
                            f"{dist.get_rank()}) is not a member of group")
    ring = Ring(group)
    try:
        options, problem = _check(q, k, v, group, causal, scale, layout,
                                  sharding, return_lse), None
    except ArgumentError as e:
        options, problem = None, e
    # Every rank raises, or none does: a rank that raised alone would leave
    # the others waiting for its chunks.
    _check_agreement(ring, q, k, v, options, problem)
    out, lse = _RingAttention.apply(q, k, v, ring, options)
    return (out, lse) if return_lse else out


class _RingAttention(torch.autograd.Function):

    @staticmethod
    def forward(ctx, q, k, v, ring, options):
        out, lse = ring_forward(ring, q, k, v, options)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.ring, ctx.options = ring, options
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    def backward(ctx, grad_out, grad_lse):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = ring_backward(ctx.ring, grad_out, q, k, v, out, lse,
                                   ctx.options)
        return dq, dk, dv, None, None


def _blocks(ring, q, k, options):
    """This rank's Block (or None) at each step of the ring."""
    dim = SEQ_DIM[options.layout]
    return [_plan.block(ring.rank, _plan.step_source(ring.rank, s, ring.world),
                        q.shape[dim], k.shape[dim], options.causal,
                        options.sharding) for s in range(ring.world)]


def _rows(t, dim, start, length):
    """A view of rows [start, start + length) along dim (accumulators)."""
    return t.narrow(dim, start, length)


def _operand(t, dim, start, length):
    """Those rows as a kernel operand: dense (a copy only for a half of
    zigzag's chunk), the form every kernel and runtime check takes."""
    return t.narrow(dim, start, length).contiguous()


def _lse_rows(lse, layout):
    """The kernel's LSE [B, H, S] in the output's row order ([B, S, H] for
    bshd), so that fa.combine sees the same rows in both operands."""
    return lse if layout == "bhsd" else lse.transpose(1, 2)


def ring_forward(ring, q, k, v, options):
    """(output, lse [B, Hq, Sq]) of ring attention, without autograd."""
    dim = SEQ_DIM[options.layout]
    kv, acc_out, acc_lse = (k, v), None, None
    for step, blk in enumerate(_blocks(ring, q, k, options)):
        pending = ring.shift(kv) if step + 1 < ring.world else None
        if blk is not None:
            q_rows, k_rows = blk.q_rows(dim), blk.k_rows(dim)
            out, lse = _ops.forward_impl(
                _operand(q, *q_rows), _operand(kv[0], *k_rows),
                _operand(kv[1], *k_rows), None, blk.causal, options.scale,
                -1, -1, None, "", options.layout)
            lse = _lse_rows(lse, options.layout)
            if acc_out is None:  # step 0: the own keys, every query row
                acc_out, acc_lse = out.float(), lse.contiguous()
            else:
                _merge_into(_rows(acc_out, *q_rows), _rows(acc_lse, *q_rows),
                            out, lse)
        if pending is not None:
            kv = pending.wait()
    return (acc_out.to(q.dtype),
            _lse_rows(acc_lse, options.layout).contiguous())


def _merge_into(acc_out, acc_lse, out, lse):
    """acc := fa.combine(acc, (out, lse)), in place (views of the running
    float32 output and LSE)."""
    merged_out, merged_lse = combine(torch.stack([acc_out, out.float()]),
                                     torch.stack([acc_lse, lse]))
    acc_out.copy_(merged_out)
    acc_lse.copy_(merged_lse)


def ring_backward(ring, grad_out, q, k, v, out, lse, options):
    """(dq, dk, dv) of ring attention given the merged output and LSE."""
    dim = SEQ_DIM[options.layout]
    dq = torch.zeros_like(q, dtype=torch.float32)
    kv = (k, v)
    dkv = (torch.zeros_like(k, dtype=torch.float32),
           torch.zeros_like(v, dtype=torch.float32))
    pending_dkv = None
    for step, blk in enumerate(_blocks(ring, q, k, options)):
        pending_kv = ring.shift(kv) if step + 1 < ring.world else None
        # The kernel runs while this chunk's dK/dV (from the ranks before)
        # and the next chunk's K/V are on their way.
        grads = None if blk is None else _backward_kernel(
            blk, dim, grad_out, q, kv, out, lse, options)
        if pending_dkv is not None:
            dkv = pending_dkv.wait()
        if grads is not None:
            q_rows, k_rows = blk.q_rows(dim), blk.k_rows(dim)
            _rows(dq, *q_rows).add_(grads[0])
            _rows(dkv[0], *k_rows).add_(grads[1])
            _rows(dkv[1], *k_rows).add_(grads[2])
        pending_dkv = ring.shift(dkv)
        if pending_kv is not None:
            kv = pending_kv.wait()
    dk, dv = pending_dkv.wait()  # a full turn: this rank's own chunk
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)


def _backward_kernel(blk, dim, grad_out, q, kv, out, lse, options):
    """[dq, dk, dv, _] of the backward kernel on one Block's rows."""
    q_rows, k_rows = blk.q_rows(dim), blk.k_rows(dim)
    lse_rows = blk.q_rows(2)  # [B, H, S] in both layouts
    return _ops.backward_impl(
        _operand(grad_out, *q_rows), _operand(q, *q_rows),
        _operand(kv[0], *k_rows), _operand(kv[1], *k_rows),
        _operand(out, *q_rows), _operand(lse, *lse_rows), None, blk.causal,
        options.scale, -1, -1, None, "", options.layout)


def _check(q, k, v, group, causal, scale, layout, sharding, return_lse):
    """The arguments' own checks (before any communication)."""
    check_bool(WHERE, "return_lse", return_lse)
    if not isinstance(layout, str) or layout not in SEQ_DIM:
        raise ArgumentError(f"{WHERE}: layout must be 'bhsd' or 'bshd', got "
                            f"{layout!r}")
    causal = check_bool(WHERE, "causal", causal)
    if scale is not None:
        scale = check_f32(WHERE, "scale", scale)
    _convert.check_inputs(q, k, v, None, layout, where=WHERE)
    dim = SEQ_DIM[layout]
    problem = _plan.check_sharding(WHERE, sharding, causal, q.shape[dim],
                                   k.shape[dim])
    if problem:
        raise ArgumentError(problem)
    _check_backend(q, group)
    return Options(causal, scale, layout, sharding)


def _check_backend(q, group):
    backend = str(dist.get_backend(group)).lower()
    want = "nccl" if q.device.type == "cuda" else "gloo"
    if want not in backend:
        raise ArgumentError(
            f"{WHERE}: {q.device.type} tensors need a {want} process group "
            f"for their point-to-point transfers, the group's backend is "
            f"{backend!r}")


# What every rank must agree on, in the order _signature writes it.
_AGREED = (["q"] * 4 + ["k"] * 4 + ["v"] * 4 +
           ["dtype", "causal", "scale", "layout", "sharding"])


def _signature(q, k, v, options):
    scale = -1.0 if options.scale is None else options.scale
    return ([*q.shape, *k.shape, *v.shape,
             list(_convert.FA_DTYPE).index(q.dtype), int(options.causal),
             int(torch.tensor(scale, dtype=torch.float64).view(torch.int64)),
             list(SEQ_DIM).index(options.layout),
             _plan.SHARDINGS.index(options.sharding)])


def _check_agreement(ring, q, k, v, options, problem):
    """ArgumentError on every rank unless every rank's arguments passed
    their checks (`problem`: this rank's error, or None) and all ranks
    passed the same shapes and options: a rank that differs would otherwise
    receive chunks of the wrong size or mix masks (a hang or a silently
    wrong answer)."""
    if ring.world == 1:
        if problem:
            raise problem
        return
    mine = ([1] + [0] * len(_AGREED) if problem else
            [0] + _signature(q, k, v, options))
    mine = torch.tensor(mine, dtype=torch.int64, device=ring.device)
    everyone = [torch.empty_like(mine) for _ in range(ring.world)]
    dist.all_gather(everyone, mine, group=ring.group)
    if problem:
        raise problem
    everyone = [t.tolist() for t in everyone]
    failed = [rank for rank, theirs in enumerate(everyone) if theirs[0]]
    if failed:
        raise ArgumentError(
            f"{WHERE}: rank(s) {failed} rejected their arguments (their "
            "errors say why); every rank must pass valid chunks of the same "
            "shapes and the same options")
    first = everyone[0][1:]
    for rank, theirs in enumerate(s[1:] for s in everyone):
        differ = [i for i, (a, b) in enumerate(zip(first, theirs)) if a != b]
        if differ:
            what = _AGREED[differ[0]]
            raise ArgumentError(
                f"{WHERE}: the ranks disagree on {what} (rank 0 has "
                f"{_describe(what, first)}, rank {rank} "
                f"{_describe(what, theirs)}); every rank must pass chunks of "
                "the same shapes and the same options")


def _describe(what, signature):
    """A field of a _signature list in words."""
    i = _AGREED.index(what)
    if what in ("q", "k", "v"):
        return f"shape {tuple(signature[i:i + 4])}"
    code = signature[i]
    if what == "scale":
        scale = torch.tensor(code, dtype=torch.int64).view(torch.float64)
        return "the default" if scale < 0 else f"{float(scale)!r}"
    names = {"dtype": list(_convert.FA_DTYPE), "causal": [False, True],
             "layout": list(SEQ_DIM), "sharding": list(_plan.SHARDINGS)}
    return repr(names[what][code])

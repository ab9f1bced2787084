"""fa_mlir.torch.attention: FlashAttention forward and backward kernels as a
torch.autograd.Function over the fa_mlir:: custom ops."""
import functools

import torch

from ..arguments import MAX_SIZE, check_bool, check_f32, is_int
from ..errors import ArgumentError
from . import _convert
from . import _ops
from . import fp8
from . import modifiers
from .block_mask import BlockMask
from ._forward_only import needs_grad


def _eager(*tensors):
    """Plain tensors outside torch.compile: call the kernels directly, which
    skips the custom-op dispatch (about 100 us per call on the H200 host).
    Fake, functional or subclass tensors take the registered op."""
    return not torch.compiler.is_compiling() and all(
        t is None or type(t) is torch.Tensor for t in tensors)


class AttentionFunction(torch.autograd.Function):
    """forward: fa_mlir::attention_forward; backward: attention_backward.

    The log-sum-exp output is not differentiable (the backward kernel takes
    no gradient for it), so it is marked as such.
    """

    @staticmethod
    def forward(ctx, q, k, v, bias, causal, scale, window_left, window_right,
                softcap, mask_alignment, layout, deterministic=False,
                mods=None, sinks=None, block_mask=None):
        captures = list(mods.captures) if mods else []
        eager = _eager(q, k, v, bias, sinks, *captures)
        # The custom op takes no BlockMask: its calls build the map.
        fwd = (functools.partial(_ops.forward_impl, block_mask=block_mask)
               if eager else torch.ops.fa_mlir.attention_forward)
        options = (causal, scale, window_left, window_right, softcap,
                   mask_alignment, layout)
        regions = _regions(mods)
        if eager and (any(ctx.needs_input_grad[:4]) or
                      ctx.needs_input_grad[13]):
            _ops.prefetch_backward(q, k, v, bias, *options, deterministic,
                                   *regions, captures, sinks)
        out, lse = fwd(q, k, v, bias, *options, *regions, captures, sinks)
        ctx.save_for_backward(q, k, v, out, lse, bias, sinks, *captures)
        # deterministic concerns only the backward kernel.
        ctx.options = options + (deterministic,) + regions
        ctx.block_mask = block_mask
        ctx.bias_shape = None if bias is None else bias.shape
        ctx.mark_non_differentiable(lse)
        # The LSE gets no gradient: left None instead of a zeros tensor
        # autograd would allocate and fill on every backward.
        ctx.set_materialize_grads(False)
        return out, lse

    @staticmethod
    def backward(ctx, grad_out, grad_lse):
        if grad_out is None:  # no gradient reached the output: all zero
            return (None,) * 15
        q, k, v, out, lse, bias, sinks, *captures = ctx.saved_tensors
        bwd = (functools.partial(_ops.backward_impl,
                                 block_mask=ctx.block_mask)
               if _eager(grad_out, q, k, v, bias, sinks, *captures)
               else torch.ops.fa_mlir.attention_backward)
        dq, dk, dv, dbias, dsinks = bwd(
            grad_out, q, k, v, out, lse, bias, *ctx.options, captures, sinks)
        dbias = dbias if (bias is not None and ctx.needs_input_grad[3]) else None
        dsinks = dsinks if (sinks is not None and ctx.needs_input_grad[13]) \
            else None
        return (dq, dk, dv, dbias) + (None,) * 9 + (dsinks, None)


def _regions(mods):
    """(score_mod, mask_mod) region texts as the custom ops take them ("":
    none)."""
    if mods is None:
        return ("", "")
    return (mods.score_mod or "", mods.mask_mod or "")


def window_ints(where, window):
    """(left, right) of a `window` argument, -1 for an unbounded side."""
    if window is None:
        return -1, -1
    if not isinstance(window, (tuple, list)) or len(window) != 2:
        raise ArgumentError(f"{where}: window must be (left, right), got "
                            f"{window!r}")
    sides = []
    for name, w in zip(("left", "right"), window):
        if w is None or (is_int(w) and w == -1):
            sides.append(-1)
        elif is_int(w) and 0 <= w <= MAX_SIZE:
            sides.append(int(w))
        else:
            raise ArgumentError(
                f"{where}: window {name} must be an int in [0, {MAX_SIZE}], "
                f"or None/-1 for unbounded; got {w!r}")
    return tuple(sides)


def mask_options(where, causal, window, mask_alignment):
    """(causal, window left, window right, mask_alignment) as the kernels'
    options take them: window sides -1 for unbounded, the alignment "" for
    the default (top-left) and dropped when there is no mask to align (the
    op would reject it)."""
    if not (mask_alignment is None or isinstance(mask_alignment, str)) or \
            mask_alignment not in (None, "top_left", "bottom_right"):
        raise ArgumentError(f"{where}: mask_alignment must be None, "
                            f"'top_left' or 'bottom_right'; got "
                            f"{mask_alignment!r}")
    causal = check_bool(where, "causal", causal)
    wl, wr = window_ints(where, window)
    if not causal and (wl, wr) == (-1, -1):
        mask_alignment = None
    return causal, wl, wr, mask_alignment or ""


def attention(q, k, v, *, causal=False, scale=None, window=None, softcap=None,
              bias=None, return_lse=False, mask_alignment=None, layout="bhsd",
              deterministic=False, q_descale=None, k_descale=None,
              v_descale=None, descale_block=None, out_dtype=torch.bfloat16,
              score_mod=None, mask_mod=None, sinks=None, block_mask=None):
    """Exact attention softmax(mask(scale * q kᵀ + bias)) v with FlashAttention
    kernels, differentiable in q, k, v and a floating-point bias.

    q: [B, Hq, Sq, D], k: [B, Hkv, Sk, D], v: [B, Hkv, Sk, Dv] (layout
    "bhsd", SDPA's; "bshd" swaps heads and seq). Hq must be a multiple of
    Hkv (grouped-query attention). dtype float32, float16 or bfloat16; CPU
    tensors, or CUDA tensors on sm_90a.

    causal: hide keys after the query (aligned top-left like SDPA's
    is_causal, or bottom-right with mask_alignment="bottom_right").
    scale: default 1/sqrt(D). window: (left, right) keys visible around the
    diagonal, None/-1 for unbounded. softcap: s -> softcap*tanh(s/softcap).
    bias: additive [B|1, Hq|1, Sq, Sk] (leading dims may be omitted), or a
    bool mask (True = keep). return_lse: also return the f32 log-sum-exp
    [B, Hq, Sq] of each row (-inf for fully hidden rows, whose output is 0).
    deterministic: the backward accumulates dQ in a fixed order, so repeated
    backward passes are bitwise equal (sm_90a: a little slower; the CPU
    backward always is deterministic). The forward ignores it.

    FP8 (forward only): float8_e4m3fn q, k, v need q_descale, k_descale
    and v_descale (float32, on q's device; the real values are the stored
    ones times the descale), each () per tensor, [B, Hkv] per (batch, kv
    head), or per block with descale_block=(block_q, block_k): q's [B, Hq,
    ceil(Sq / block_q)], k's and v's [B, Hkv, ceil(Sk / block_k)]
    (fa_mlir.torch.quantize_fp8 makes all of them). The output has
    out_dtype (bfloat16, float16 or float32); no bias; a backward through
    it raises UnsupportedError. On CUDA (sm_90a): every descale form (with
    descale_block, block_k a multiple of 128, or of 192 or 224 at 64 < D <= 128;
    per-tensor and per-head descales given with it are expanded to
    blocks), out_dtype bfloat16 or float16, no softcap, head dims multiples
    of 16 up to 256; the CPU takes every form and block.

    score_mod(score, b, h, q_idx, kv_idx) -> score and mask_mod(b, h,
    q_idx, kv_idx) -> bool (True keeps the key): FlexAttention's modifiers,
    traced (torch's make_fx, on 0-d tensors: a float32 score, int32
    indices) into the kernel's score_mod / mask_mod regions, forward and
    backward. score_mod applies after the scale and the bias, before the
    softcap; mask_mod intersects with causal and window. Tensors they read
    (ALiBi slopes, a bias table, document ids, ...) are passed to the kernel
    as they are on every call (float32/64, int32/64 or bool, on q's device,
    not requiring grad); Python numbers become constants; a traced value
    in Python control flow is an error (use torch.where). h is the query
    head. CPU and sm_90a, forward and backward (a score_mod op the
    backward cannot differentiate is a CompileError naming it).
    docs/Python.md.

    sinks: attention sinks as in gpt-oss, a [Hq] tensor of per-query-head
    logits (float32, float16 or bfloat16, computed in float32, on q's
    device) that join every row's softmax normalizer without a value row:
    softmax over [scores, sink] with the sink's column dropped. The LSE
    includes them; a row that sees no key gives output 0 and LSE = sink.
    Differentiable (their gradient is float32, cast back to their dtype).
    CPU and sm_90a (not with float8_e4m3fn inputs). docs/Modifiers.md.

    block_mask: a BlockMask from fa_mlir.torch.create_block_mask (its
    mask_mod is the call's; passing mask_mod too must name the same
    function): on sm_90a a block-sparse forward reuses the block map it
    keeps instead of building one per call (FlexAttention's block_mask).
    The CPU builds its own (its tiles differ). docs/Python.md.
    """
    _convert.check_layout(_convert.WHERE, layout)
    causal, wl, wr, mask_alignment = mask_options(
        _convert.WHERE, causal, window, mask_alignment)
    return_lse = check_bool(_convert.WHERE, "return_lse", return_lse)
    deterministic = check_bool(_convert.WHERE, "deterministic", deterministic)
    if scale is not None:
        scale = check_f32(_convert.WHERE, "scale", scale)
    if softcap is not None:
        softcap = check_f32(_convert.WHERE, "softcap", softcap, positive=True)
    descales = (q_descale, k_descale, v_descale)
    dtype, sizes = _convert.check_inputs_once(
        q, k, v, bias, layout, where=_convert.WHERE, allow_fp8=True)
    if block_mask is not None:
        mask_mod = _check_block_mask(block_mask, mask_mod, sizes, q.device)
    mods = modifiers.trace(_convert.WHERE, score_mod, mask_mod, q.device)
    if mods is not None:
        modifiers.check_captures(_convert.WHERE, mods, q)
    if dtype == "f8E4M3FN":
        for name, value in (("bias", bias), ("score_mod", score_mod),
                            ("block_mask", block_mask),
                            ("mask_mod", mask_mod), ("sinks", sinks)):
            if value is not None:
                raise ArgumentError(f"{_convert.WHERE}: {name} is not "
                                    "supported with float8_e4m3fn inputs")
        out, lse = fp8.forward(q, k, v, descales, descale_block, out_dtype,
                               sizes, _fp8_options(
                                   layout, causal, scale, wl, wr, softcap,
                                   mask_alignment))
        return (out, lse) if return_lse else out
    for name, d in zip(("q_descale", "k_descale", "v_descale"), descales):
        if d is not None:
            raise ArgumentError(f"{_convert.WHERE}: {name} is only for "
                                f"float8_e4m3fn inputs, not {q.dtype}")
    bias = _convert.prepare_bias(bias, q, sizes)
    sinks = prepare_sinks(_convert.WHERE, sinks, q, sizes)
    out, lse = run_traced(
        q, k, v, bias, (causal, scale, wl, wr, softcap, mask_alignment,
                        layout), deterministic, mods, sinks, block_mask,
        checked=(dtype, sizes))
    return (out, lse) if return_lse else out


def run_traced(q, k, v, bias, options, deterministic=False, mods=None,
               sinks=None, block_mask=None, checked=None):
    """(out, lse) of a call whose arguments are checked and whose
    functions are traced (`mods`, modifiers.Modifiers or None); `options`:
    (causal, scale, window_left, window_right, softcap, mask_alignment,
    layout) as the kernels take them; `checked`: check_inputs' result, if
    known. The serving calls' CPU route runs each sequence through it."""
    captures = mods.captures if mods else ()
    if _eager(q, k, v, bias, sinks, *captures) and \
            not needs_grad(q, k, v, bias, sinks):
        # Inference: no autograd node to build (its cost is host time on
        # every call of a serving loop).
        score_text, mask_text = _regions(mods)
        return _ops.run_forward(q, k, v, bias, *options, checked=checked,
                                score_mod=score_text, mask_mod=mask_text,
                                captures=list(captures), sinks=sinks,
                                block_mask=block_mask)
    return AttentionFunction.apply(q, k, v, bias, *options, deterministic,
                                   mods, sinks, block_mask)


def _check_block_mask(block_mask, mask_mod, sizes, device):
    """The call's mask_mod: block_mask's, which must fit the call."""
    if not isinstance(block_mask, BlockMask):
        raise ArgumentError(f"{_convert.WHERE}: block_mask must be a "
                            "BlockMask from fa_mlir.torch.create_block_mask, "
                            f"got {type(block_mask).__name__}")
    return block_mask.check_call(_convert.WHERE, mask_mod, sizes, device)


_SINK_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def prepare_sinks(where, sinks, q, sizes):
    """`sinks` as the kernels take them: a float32 [Hq] tensor on q's
    device (a float16/bfloat16 one is cast, differentiably); None stays
    None. Errors name the argument and what is wrong with it."""
    if sinks is None:
        return None
    if not isinstance(sinks, torch.Tensor):
        raise ArgumentError(f"{where}: sinks must be a torch.Tensor of shape "
                            f"[{sizes['heads_q']}] (one per query head), got "
                            f"{type(sinks).__name__}")
    if tuple(sinks.shape) != (sizes["heads_q"],):
        raise ArgumentError(f"{where}: sinks must have shape "
                            f"[{sizes['heads_q']}] (one per query head), got "
                            f"{list(sinks.shape)}")
    if sinks.dtype not in _SINK_DTYPES:
        raise ArgumentError(f"{where}: sinks must be float32, float16 or "
                            f"bfloat16, got {sinks.dtype}")
    if sinks.device != q.device:
        raise ArgumentError(f"{where}: sinks must be on q's device "
                            f"({q.device}), got {sinks.device}")
    return sinks.float()


def _fp8_options(layout, causal, scale, wl, wr, softcap, mask_alignment):
    """AttentionConfig fields of an FP8 call (window sides -1: unbounded)."""
    return dict(layout=layout, causal=causal, scale=scale,
                window=_ops._window(wl, wr), softcap=softcap,
                mask_alignment=mask_alignment or None)

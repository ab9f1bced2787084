"""The kernels as torch.library custom ops: fa_mlir::attention_forward and
fa_mlir::attention_backward.

Custom ops are opaque to torch.compile (it calls them, it does not trace
into ctypes), and their fake implementations give it output shapes without
running anything. Options travel as plain scalars because op schemas do not
take tuples or None-able tuples: window is (left, right) with -1 meaning
unbounded on that side, mask_alignment "" means the default.
"""
import functools
from typing import List, Optional

import torch

from ..errors import UnsupportedError
from ..gpu_runtime import pack, repack
from ..registry import get_bundle, prefetch
from ..signature import symbols_of
from ..spec import KernelConfig
from . import _convert
from .modifiers import capture_type

VARLEN = "fa_mlir.torch.varlen_attention"
KVCACHE = "fa_mlir.torch.attention_with_kvcache"

# A window side given as -1 (unbounded) reaches this far; any real sequence
# is shorter, so the mask never hides a key on that side.
UNBOUNDED = 1 << 30


def _window(left, right):
    if left < 0 and right < 0:
        return None
    return (UNBOUNDED if left < 0 else left, UNBOUNDED if right < 0 else right)


_configs = {}  # call signature -> KernelConfig: keeps the per-call cost low
# (op, options, q/k/v/bias as check_inputs reads them) -> KernelConfig: a
# repeat call neither checks its inputs again nor sizes them up.
_call_configs = {}
MEMO_LIMIT = 1024  # entries per memo here; a full one starts over


def _memo_put(memo, key, value):
    if len(memo) >= MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


_input_key = _convert.input_key


def kernel_config(op, q, k, v, bias, causal, scale, window_left, window_right,
                  softcap, mask_alignment, layout, deterministic=False,
                  num_splits=None, checked=None, score_mod="", mask_mod="",
                  captures=(), sinks=False):
    """The KernelConfig a call needs: static heads and head dims, dynamic
    batch and sequence lengths (one kernel serves every length).
    `checked`: check_inputs' (dtype, sizes) of these tensors, when the
    caller has them (not checked twice). `score_mod`, `mask_mod`: region
    texts ("" for none) reading `captures` (modifiers.py). `sinks`: the
    call passes attention sinks (operand "sinks"). Remembered per
    inputs' key: only calls whose inputs passed check_inputs are, so a
    repeat passes too."""
    try:
        memo = (op, causal, scale, window_left, window_right, softcap,
                mask_alignment, layout, deterministic, num_splits,
                _input_key(q), _input_key(k), _input_key(v), _input_key(bias),
                score_mod, mask_mod,
                tuple((c.dim(), c.dtype) for c in captures), sinks)
        kcfg = _call_configs.get(memo)
    except (AttributeError, TypeError):  # not tensors: check_inputs says so
        memo = kcfg = None
    if kcfg is not None:
        return kcfg
    dtype, sizes = checked or _convert.check_inputs(
        q, k, v, bias, layout, where=_convert.WHERE)
    regions = region_fields(score_mod, mask_mod, captures)
    if sinks:
        regions["sinks"] = True
    kcfg = _memo_config(op, dtype, sizes, bias, causal, scale, window_left,
                        window_right, softcap, mask_alignment, layout,
                        deterministic, num_splits, **regions)
    return kcfg if memo is None else _memo_put(_call_configs, memo, kcfg)


def region_fields(score_mod, mask_mod, captures):
    """The KernelConfig fields of a call's modifier regions (texts, "" for
    none) and the tensors they capture; {} without regions."""
    if not (score_mod or mask_mod):
        return {}
    return dict(score_mod=score_mod or None, mask_mod=mask_mod or None,
                captures=tuple(capture_type(c) for c in captures))


def kvcache_config(q, k_cache, v_cache, page_size, append, causal, scale,
                   window_left, window_right, softcap, num_splits,
                   score_mod="", mask_mod="", captures=()):
    """The KernelConfig of an attention_with_kvcache call on CUDA (whose
    arguments inference.py checked): static heads, head dims and page size
    (k_cache.shape[1] of a paged cache, else None), every other size
    dynamic; `append`: the call writes new tokens into the caches.
    `score_mod`, `mask_mod`: region texts ("" for none) reading
    `captures`."""
    sizes = dict(heads_q=q.shape[2], heads_kv=k_cache.shape[2],
                 head_dim=q.shape[3], head_dim_v=v_cache.shape[3])
    return _memo_config("kvcache", _convert.fa_dtype(q, "q", KVCACHE), sizes,
                        None,
                        causal, scale, window_left, window_right, softcap, "",
                        "bshd", num_splits=num_splits, page_size=page_size,
                        append=append,
                        **region_fields(score_mod, mask_mod, captures))


def varlen_config(q, k, v, causal, scale, window_left, window_right, softcap,
                  mask_alignment, op="varlen", deterministic=False,
                  score_mod="", mask_mod="", captures=()):
    """The KernelConfig of a varlen_attention call on CUDA (q [total_q, Hq,
    D], k/v [total_k, Hkv, D(v)], checked by inference.py): static heads and
    head dims; the sequence count and token totals are dynamic. `op`
    "varlen_backward": its backward (fa.attention_varlen_grad).
    `score_mod`, `mask_mod`: region texts ("" for none) reading
    `captures`."""
    sizes = dict(heads_q=q.shape[1], heads_kv=k.shape[1], head_dim=q.shape[2],
                 head_dim_v=v.shape[2])
    return _memo_config(op, _convert.fa_dtype(q, "q", VARLEN), sizes,
                        None,
                        causal, scale, window_left, window_right, softcap,
                        mask_alignment, "bshd", deterministic,
                        **region_fields(score_mod, mask_mod, captures))


def _bias_flags(bias, sizes):
    """(per_batch, per_head) of a [B|1, Hq|1, Sq, Sk] bias; a size-1 dim
    counts as full where the call's batch or heads_q is 1 too (one writer
    per dBias element: no sum, the sm_90a backward's direct stores)."""
    return (bias.shape[0] != 1 or sizes["batch"] == 1,
            bias.shape[1] != 1 or sizes["heads_q"] == 1)


def _memo_config(op, dtype, sizes, bias, causal, scale, window_left,
                 window_right, softcap, mask_alignment, layout,
                 deterministic=False, num_splits=None, **extra):
    """`extra`: the kvcache fields (page_size, append) or the modifier
    regions (score_mod, mask_mod, captures) of KernelConfig."""
    memo = (op, dtype, sizes["heads_q"], sizes["heads_kv"], sizes["head_dim"],
            sizes["head_dim_v"], None if bias is None else
            (*_bias_flags(bias, sizes), bias.dtype), causal,
            scale, window_left, window_right, softcap, mask_alignment, layout,
            deterministic, num_splits, tuple(sorted(extra.items())))
    kcfg = _configs.get(memo)
    if kcfg is None:
        if len(_configs) >= 4096:  # traced regions make the keys unbounded
            _configs.clear()
        kcfg = _configs[memo] = _make_config(op, dtype, sizes, bias, causal,
                                             scale, window_left, window_right,
                                             softcap, mask_alignment, layout,
                                             deterministic, num_splits,
                                             **extra)
    return kcfg


def _make_config(op, dtype, sizes, bias, causal, scale, window_left,
                 window_right, softcap, mask_alignment, layout,
                 deterministic=False, num_splits=None, **extra):
    bias_spec = None if bias is None else _bias_flags(bias, sizes)
    return KernelConfig(
        op=op, dtype=dtype, head_dim=sizes["head_dim"],
        head_dim_v=sizes["head_dim_v"], layout=layout, causal=causal,
        mask_alignment=mask_alignment or None,
        window=_window(window_left, window_right), softcap=softcap,
        scale=scale, bias=bias_spec,
        bias_dtype=None if bias is None else _convert.fa_dtype(
            bias, "bias", _convert.WHERE),
        deterministic=deterministic, num_splits=num_splits,
        heads_q=sizes["heads_q"], heads_kv=sizes["heads_kv"], **extra)


def prefetch_backward(q, k, v, bias, causal, scale, window_left,
                      window_right, softcap, mask_alignment, layout,
                      deterministic=False, score_mod="", mask_mod="",
                      captures=(), sinks=None):
    """Compiles the backward kernel of a CPU forward call on a background
    thread, so that the first backward does not wait for all of it."""
    if q.device.type != "cpu":
        return
    kcfg = kernel_config("backward", q, k, v, bias, causal, scale, window_left,
                         window_right, softcap, mask_alignment, layout,
                         deterministic, score_mod=score_mod,
                         mask_mod=mask_mod, captures=captures,
                         sinks=sinks is not None)
    prefetch(kcfg, "cpu")


def _target(t):
    if t.device.type == "cpu":
        return "cpu"
    return _cuda_target(t.device.index)


@functools.lru_cache(maxsize=None)
def _cuda_target(index):
    major, minor = torch.cuda.get_device_capability(index)
    if (major, minor) != (9, 0):
        raise UnsupportedError(
            f"fa_mlir.torch: no kernels for cuda:{index} "
            f"(sm_{major}{minor}); the GPU back end targets sm_90a (H100/H200)")
    return "sm_90a"


def _launch(bundle, tensors, device):
    """Runs `bundle` on the operands the calls here made (their inputs
    checked, their outputs and workspace fresh from torch.empty): on CUDA
    packed without the per-operand Python checks the public
    GpuBundle.launch runs (fa_mlir.torch.launch takes that one)."""
    if device.type == "cpu":
        bundle.launch({r: _convert.numpy_view(t) for r, t in tensors.items()},
                      threads=torch.get_num_threads())
    else:
        _launch_cuda(bundle, tensors, _stream(device))


def _launch_cuda(bundle, tensors, stream):
    bundle.launch_packed(_fa_tensors(tensors), stream)


# The current stream's raw handle without a torch.cuda.Stream object (what
# torch's own generated code calls); the public route where it is absent.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _stream(device):
    if _raw_stream is not None:
        return _raw_stream(device.index)
    return torch.cuda.current_stream(device).cuda_stream


_templates = {}  # operands' signature -> pack()'s bytes of them


def _fa_tensors(tensors):
    """gpu_runtime.pack of tensors by role, its bytes remembered per
    signature (roles, shapes, strides, dtypes): a repeat call writes only
    the data pointers into a copy."""
    key = tuple([(r, t.shape, t.stride(), t.dtype)
                 for r, t in tensors.items()])
    template = _templates.get(key)
    if template is None:
        template = _memo_put(_templates, key, bytes(pack(
            {r: _convert.runtime_tensor(t) for r, t in tensors.items()})))
    return repack(template, [t.data_ptr() for t in tensors.values()])


def _dense(t):
    # CPU kernels take identity-layout memrefs; GPU ones need only a unit
    # innermost stride (libfa_runtime checks the rest and says what is off).
    if t is None:
        return None
    if t.device.type == "cpu" or t.stride(-1) != 1:
        return t.contiguous()
    return t


def _shapes(q, v, layout):
    if layout == "bhsd":
        b, h, s = q.shape[0], q.shape[1], q.shape[2]
        out = (b, h, s, v.shape[3])
    else:
        b, s, h = q.shape[0], q.shape[1], q.shape[2]
        out = (b, s, h, v.shape[3])
    return out, (b, h, s)


def forward_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                 bias: Optional[torch.Tensor], causal: bool,
                 scale: Optional[float], window_left: int, window_right: int,
                 softcap: Optional[float], mask_alignment: str,
                 layout: str, score_mod: str = "", mask_mod: str = "",
                 captures: Optional[List[torch.Tensor]] = None,
                 sinks: Optional[torch.Tensor] = None, block_mask=None
                 ) -> List[torch.Tensor]:
    """[output, lse] (fa_mlir::attention_forward; schema from the hints).
    score_mod, mask_mod: region texts ("" for none) reading `captures`;
    sinks: attention sinks [Hq] float32 (checked by attention());
    block_mask: a BlockMask (the eager path only: the custom op does not
    take it, and its calls build the map themselves)."""
    return run_forward(q, k, v, bias, causal, scale, window_left,
                       window_right, softcap, mask_alignment, layout,
                       score_mod=score_mod, mask_mod=mask_mod,
                       captures=captures, sinks=sinks, block_mask=block_mask)


def _capture_operands(captures):
    """{capture<i>: tensor} of a region's captures (contiguous, as every
    CPU operand)."""
    return {f"capture{i}": _dense(c) for i, c in enumerate(captures or ())}


def run_forward(q, k, v, bias, causal, scale, window_left, window_right,
                softcap, mask_alignment, layout, num_splits=None,
                checked=None, score_mod="", mask_mod="", captures=None,
                sinks=None, block_mask=None):
    """forward_impl with a split-KV choice (KernelConfig.num_splits), which
    the custom op's schema does not carry (the inference API passes it),
    check_inputs' result when the caller has it (`checked`), and a
    BlockMask whose map a block-sparse forward reuses (`block_mask`,
    checked by attention())."""
    q, k, v, bias = _dense(q), _dense(k), _dense(v), _dense(bias)
    kcfg = kernel_config("forward", q, k, v, bias, causal, scale, window_left,
                         window_right, softcap, mask_alignment, layout,
                         num_splits=num_splits, checked=checked,
                         score_mod=score_mod, mask_mod=mask_mod,
                         captures=captures or (), sinks=sinks is not None)
    bundle = get_bundle(kcfg, _target(q))
    out_shape, lse_shape = _shapes(q, v, layout)
    out = torch.empty(out_shape, dtype=q.dtype, device=q.device)
    lse = torch.empty(lse_shape, dtype=torch.float32, device=q.device)
    tensors = {"query": q, "key": k, "value": v, "output": out, "lse": lse}
    if bias is not None:
        tensors["bias"] = bias
    if sinks is not None:
        tensors["sinks"] = sinks.contiguous()
    tensors.update(_capture_operands(captures))
    if getattr(bundle, "workspace", None):  # a block-sparse mask_mod's map (a sequence)
        symbols = _operand_symbols(bundle, kcfg, tensors)
        tensors.update(_workspace(bundle, symbols, q.device))
        tensors.update(written_buffers(bundle, tensors, symbols, q.device,
                                       block_mask))
    _launch(bundle, tensors, q.device)
    return [out, lse]


def kvcache_operands(q, k_cache, v_cache, cache_seqlens, block_table=None,
                     k=None, v=None):
    """The kvcache kernel's operands by role (docs/BundleFormat.md): the
    caches as key/value (contiguous) or key_cache/value_cache with the
    block_table (paged), the new tokens as key_new/value_new, and a fresh
    contiguous output [B, Sq, Hq, Dv] and f32 lse [B, Hq, Sq] on q's device
    (the kernel needs both contiguous)."""
    out_shape, lse_shape = _shapes(q, v_cache, "bshd")
    paged = block_table is not None
    key, value = ("key_cache", "value_cache") if paged else ("key", "value")
    tensors = {"query": q, key: k_cache, value: v_cache,
               "cache_seqlens": cache_seqlens.contiguous(),
               "output": torch.empty(out_shape, dtype=q.dtype,
                                     device=q.device),
               "lse": torch.empty(lse_shape, dtype=torch.float32,
                                  device=q.device)}
    if paged:
        tensors["block_table"] = block_table.contiguous()
    if k is not None:
        tensors["key_new"], tensors["value_new"] = _dense(k), _dense(v)
    return tensors


def run_kvcache(q, k_cache, v_cache, cache_seqlens, causal, scale,
                window_left, window_right, softcap, num_splits,
                block_table=None, k=None, v=None, score_mod="", mask_mod="",
                captures=()):
    """[output, lse] of fa.attention_kvcache on CUDA: sequence b attends
    over its first cache_seqlens[b] (int32 [B]) keys, masks aligned
    bottom-right. Caches contiguous [B, capacity, Hkv, D], or paged
    [num_pages, page_size, Hkv, D] with block_table (int32 [B, max_pages]).
    k, v [B, Sn, Hkv, D], when given, are written into the caches at
    cache_seqlens first by the sequence's kvcache_append kernel, in place:
    the caches are passed as they are (inference.py checked they are
    contiguous), never copied. The sm_90a kernel is a sequence ([append,]
    split-KV partials, their combine). `score_mod`, `mask_mod`: region
    texts ("" for none) reading `captures`, operands capture<i>."""
    q = _dense(q)
    if k is None:  # read only: a copy with a unit innermost stride is fine
        k_cache, v_cache = _dense(k_cache), _dense(v_cache)
    page_size = None if block_table is None else k_cache.shape[1]
    kcfg = kvcache_config(q, k_cache, v_cache, page_size, k is not None,
                          causal, scale, window_left, window_right, softcap,
                          num_splits, score_mod, mask_mod, captures)
    bundle = get_bundle(kcfg, _target(q))
    tensors = kvcache_operands(q, k_cache, v_cache, cache_seqlens,
                               block_table, k, v)
    tensors.update(_capture_operands(captures))
    tensors.update(_workspace(bundle, _operand_symbols(bundle, kcfg, tensors),
                              q.device))
    _launch(bundle, tensors, q.device)
    return [tensors["output"], tensors["lse"]]


_symbols_memo = {}  # (bundle, operand shapes) -> size symbols


def _operand_symbols(bundle, kcfg, tensors):
    """signature.symbols_of the operands, remembered per bundle and shapes:
    a serving loop repeats a few shapes, and binding every role's dims is
    a good part of a decode call's host time."""
    key = (bundle, tuple((r, t.shape) for r, t in tensors.items()))
    symbols = _symbols_memo.get(key)
    if symbols is None:
        symbols = _memo_put(_symbols_memo, key, symbols_of(
            kcfg, {r: t.shape for r, t in tensors.items()}))
    return symbols


def _packed(t):
    """A packed [total, H, D] tensor as the varlen kernel's [1, total, H, D]
    operand: its head and dim dims must be dense (TMA reads rows of H * D),
    so anything else is passed as a contiguous copy (they are inputs)."""
    if t.stride(-1) != 1 or t.stride(-2) != t.shape[-1]:
        t = t.contiguous()
    return t.unsqueeze(0)


def varlen_operands(q, k, v, cu_seqlens_q, cu_seqlens_k):
    """The varlen kernel's operands by role (docs/BundleFormat.md, *Ragged
    batches (varlen)*): the packed tensors with batch 1, the int32 bounds,
    a fresh output [1, total_q, Hq, Dv] and f32 lse [1, Hq, total_q]."""
    total_q, heads_q = q.shape[0], q.shape[1]
    return {"query": _packed(q), "key": _packed(k), "value": _packed(v),
            "cu_seqlens_q": cu_seqlens_q.contiguous(),
            "cu_seqlens_k": cu_seqlens_k.contiguous(),
            "output": torch.empty((1, total_q, heads_q, v.shape[2]),
                                  dtype=q.dtype, device=q.device),
            "lse": torch.empty((1, heads_q, total_q), dtype=torch.float32,
                               device=q.device)}


def run_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale,
               window_left, window_right, softcap, mask_alignment,
               score_mod="", mask_mod="", captures=()):
    """[output [total_q, Hq, Dv], lse [Hq, total_q]] of fa.attention_varlen
    on CUDA: one launch for the whole ragged batch (inference.py checked
    the bounds' values on the host; the kernel trusts them). `score_mod`,
    `mask_mod`: region texts ("" for none) reading `captures`, operands
    capture<i>."""
    kcfg = varlen_config(q, k, v, causal, scale, window_left, window_right,
                         softcap, mask_alignment, score_mod=score_mod,
                         mask_mod=mask_mod, captures=captures)
    bundle = get_bundle(kcfg, _target(q))
    tensors = varlen_operands(q, k, v, cu_seqlens_q, cu_seqlens_k)
    tensors.update(_capture_operands(captures))
    _launch(bundle, tensors, q.device)
    return [tensors["output"][0], tensors["lse"][0]]


def run_varlen_backward(dout, q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k,
                        causal, scale, window_left, window_right, softcap,
                        mask_alignment, deterministic=False):
    """[dq, dk, dv] of fa.attention_varlen_grad on CUDA: one kernel
    sequence (pre, main, post) for the whole ragged batch, the sequences
    found on the device through cu_seqlens (no bound is read back). dout,
    out [total_q, Hq, Dv], lse [Hq, total_q] f32 (the forward's)."""
    kcfg = varlen_config(q, k, v, causal, scale, window_left, window_right,
                         softcap, mask_alignment, "varlen_backward",
                         deterministic)
    bundle = get_bundle(kcfg, _target(q))
    # autograd may hand an expanded (stride 0) gradient: TMA reads dense rows.
    dout = dout.to(q.dtype).contiguous()
    grads = [torch.empty((1,) + t.shape, dtype=t.dtype, device=t.device)
             for t in (q, k, v)]
    tensors = {"grad_output": dout.unsqueeze(0), "query": _packed(q),
               "key": _packed(k), "value": _packed(v), "output": _packed(out),
               "lse": lse.contiguous().unsqueeze(0),
               "cu_seqlens_q": cu_seqlens_q.contiguous(),
               "cu_seqlens_k": cu_seqlens_k.contiguous(),
               "grad_query": grads[0], "grad_key": grads[1],
               "grad_value": grads[2]}
    tensors.update(_workspace(bundle, _operand_symbols(bundle, kcfg, tensors),
                              q.device))
    _launch(bundle, tensors, q.device)
    return [g[0] for g in grads]


def _forward_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                bias: Optional[torch.Tensor], causal: bool,
                scale: Optional[float], window_left: int, window_right: int,
                softcap: Optional[float], mask_alignment: str, layout: str,
                score_mod: str, mask_mod: str, captures: List[torch.Tensor],
                sinks: Optional[torch.Tensor] = None
                ) -> List[torch.Tensor]:
    """forward_impl with every argument required but `sinks`: the op
    schema. Older torch (2.11, the GPU machine's) infers no schema for an
    Optional list or a list default."""
    return forward_impl(q, k, v, bias, causal, scale, window_left,
                        window_right, softcap, mask_alignment, layout,
                        score_mod, mask_mod, captures, sinks)


attention_forward = torch.library.custom_op(
    "fa_mlir::attention_forward", _forward_op, mutates_args=())


@attention_forward.register_fake
def _(q, k, v, bias, causal, scale, window_left, window_right, softcap,
      mask_alignment, layout, score_mod, mask_mod, captures, sinks=None):
    out_shape, lse_shape = _shapes(q, v, layout)
    return [q.new_empty(out_shape),
            q.new_empty(lse_shape, dtype=torch.float32)]


def _workspace(bundle, symbols, device):
    """torch buffers for a sequence's workspace (the sm_90a backward's dQ
    accumulator, log2 LSE, semaphores, dBias accumulator; the decode's
    partials), for a launch
    with these size symbols. torch's caching allocator hands out
    stream-ordered memory without a driver call, where the runtime's own
    fallback (cuMemAllocAsync/cuMemFreeAsync per launch) would go through the
    driver's pool every call. The runtime zeroes the "init": "zero" ones on
    the stream, so torch.empty is enough."""
    num_sms = _num_sms(device)
    if num_sms is not None:  # the decode's split count reads it
        symbols = {**symbols, "num_sms": num_sms}
    shapes = bundle.workspace_shapes(symbols)
    if len(shapes) < len(bundle.workspace):
        _check_not_capturing(bundle, shapes, device)
    # Buffers a kernel computes ("written_by") are passed only with their
    # contents: written_buffers makes them.
    kept = {name for names in bundle.written_by.values() for name in names}
    return {name: _empty(sizes, dtype, device)
            for name, (sizes, dtype) in shapes.items() if name not in kept}


def _empty(sizes, dtype, device):
    return torch.empty(sizes, device=device,
                       dtype=_convert.torch_runtime_dtype(dtype))


def written_buffers(bundle, tensors, symbols, device, block_mask=None):
    """{name: tensor} of the buffers a sequence's kernels compute from the
    operands alone ("written_by": a block-sparse forward's map), passed to
    the sequence so that libfa_runtime skips those kernels: block_mask's
    (built by its first call with these sizes, then kept: BlockMask), else
    computed now by launching each such kernel alone (the map rebuilt at
    every call)."""
    out = {}
    for index in sorted(bundle.written_by):
        if block_mask is not None:
            out.update(block_mask.buffers(bundle, index, tensors, symbols))
        else:
            out.update(compute_written(bundle, index, tensors, symbols, device))
    return out


def compute_written(bundle, index, tensors, symbols, device):
    """Launches kernel `index` of `bundle` alone into fresh torch buffers
    (its "written_by" ones), reading the call's inputs (`tensors`: q, k, v
    give the sizes, the captures the values), and returns them."""
    shapes = bundle.workspace_shapes(symbols)
    out = {name: _empty(*shapes[name], device)
           for name in bundle.written_by[index]}
    inputs = {r: t for r, t in tensors.items()
              if r in ("query", "key", "value") or r.startswith("capture")}
    _launch(bundle.kernel_bundle(index), {**inputs, **out}, device)
    return out


def _num_sms(device):
    """The multiprocessor count libfa_runtime gives the num_sms symbol (the
    launching device's), or None where torch sees no GPU (CPU tensors
    posing as CUDA in tests: the runtime then sizes what needs it)."""
    return _device_sms(device.index) if device.type == "cuda" else None


@functools.lru_cache(maxsize=None)
def _device_sms(index):
    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_properties(index).multi_processor_count


def _check_not_capturing(bundle, shapes, device):
    """Workspace Python cannot size is allocated by libfa_runtime
    (cuMemAllocAsync), outside torch's caching allocator: refused while
    the stream is captured into a CUDA graph, whose memory must all come
    from torch's graph pool."""
    if device.type != "cuda" or not torch.cuda.is_available() or \
            not torch.cuda.is_current_stream_capturing():
        return
    missing = [w["name"] for w in bundle.workspace if w["name"] not in shapes]
    raise UnsupportedError(
        f"fa_mlir.torch: cannot capture {bundle.op} in a CUDA graph: the "
        f"shapes of its workspace buffers {missing} are not known in Python "
        "(libfa_runtime would allocate them outside torch's allocator)")


def backward_impl(grad_out: torch.Tensor, q: torch.Tensor, k: torch.Tensor,
                  v: torch.Tensor, out: torch.Tensor, lse: torch.Tensor,
                  bias: Optional[torch.Tensor], causal: bool,
                  scale: Optional[float], window_left: int, window_right: int,
                  softcap: Optional[float], mask_alignment: str,
                  layout: str, deterministic: bool = False,
                  score_mod: str = "", mask_mod: str = "",
                  captures: Optional[List[torch.Tensor]] = None,
                  sinks: Optional[torch.Tensor] = None, block_mask=None
                  ) -> List[torch.Tensor]:
    """[dq, dk, dv, dbias, dsinks]; dbias is empty when there is no bias,
    else of the bias's shape and dtype (the kernels write all of it);
    dsinks is empty without sinks, else [Hq] float32.

    On CUDA the sm_90a backward is a kernel sequence (pre, main, post, and
    with a broadcast float32 bias the dBias kernel, which reads the
    dbias_accum workspace); `deterministic` selects its fixed-order dQ
    accumulation (refused with a broadcast float32 bias:
    KernelConfig.check_target). The CPU backward is
    deterministic whatever it says (its kernel is the same). A
    block-sparse backward (a mask_mod that is more than a band) starts
    with its map kernel: `block_mask`'s kept map (the eager path), else
    built here (written_buffers)."""
    grad_out, q, k, v, out, lse, bias = (
        _dense(t) for t in (grad_out, q, k, v, out, lse, bias))
    if grad_out.dtype != q.dtype:
        grad_out = grad_out.to(q.dtype)
    target = _target(q)
    kcfg = kernel_config("backward", q, k, v, bias, causal, scale, window_left,
                         window_right, softcap, mask_alignment, layout,
                         deterministic and target != "cpu",
                         score_mod=score_mod, mask_mod=mask_mod,
                         captures=captures or (), sinks=sinks is not None)
    bundle = get_bundle(kcfg, target)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    tensors = {"grad_output": grad_out, "query": q, "key": k, "value": v,
               "output": out, "lse": lse, "grad_query": dq, "grad_key": dk,
               "grad_value": dv}
    dbias = q.new_empty(0)
    if bias is not None:
        dbias = torch.empty_like(bias)
        tensors["bias"], tensors["grad_bias"] = bias, dbias
    dsinks = q.new_empty(0, dtype=torch.float32)
    if sinks is not None:
        dsinks = torch.empty_like(sinks, dtype=torch.float32)
        tensors["sinks"], tensors["grad_sinks"] = sinks.contiguous(), dsinks
    tensors.update(_capture_operands(captures))
    if target != "cpu":
        symbols = _convert.sizes_of(q, k, v, layout)
        tensors.update(_workspace(bundle, symbols, q.device))
        tensors.update(written_buffers(bundle, tensors, symbols, q.device,
                                       block_mask))
    _launch(bundle, tensors, q.device)
    return [dq, dk, dv, dbias, dsinks]


def _backward_op(grad_out: torch.Tensor, q: torch.Tensor, k: torch.Tensor,
                 v: torch.Tensor, out: torch.Tensor, lse: torch.Tensor,
                 bias: Optional[torch.Tensor], causal: bool,
                 scale: Optional[float], window_left: int, window_right: int,
                 softcap: Optional[float], mask_alignment: str, layout: str,
                 deterministic: bool, score_mod: str, mask_mod: str,
                 captures: List[torch.Tensor],
                 sinks: Optional[torch.Tensor] = None) -> List[torch.Tensor]:
    """backward_impl with every argument required but `sinks` (see
    _forward_op)."""
    return backward_impl(grad_out, q, k, v, out, lse, bias, causal, scale,
                         window_left, window_right, softcap, mask_alignment,
                         layout, deterministic, score_mod, mask_mod, captures,
                         sinks)


attention_backward = torch.library.custom_op(
    "fa_mlir::attention_backward", _backward_op, mutates_args=())


@attention_backward.register_fake
def _(grad_out, q, k, v, out, lse, bias, causal, scale, window_left,
      window_right, softcap, mask_alignment, layout, deterministic, score_mod,
      mask_mod, captures, sinks=None):
    dbias = q.new_empty(0) if bias is None else torch.empty_like(bias)
    dsinks = (q.new_empty(0, dtype=torch.float32) if sinks is None
              else torch.empty_like(sinks, dtype=torch.float32))
    return [torch.empty_like(q), torch.empty_like(k), torch.empty_like(v),
            dbias, dsinks]

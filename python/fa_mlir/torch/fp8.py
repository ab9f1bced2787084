"""FP8 (float8_e4m3fn) attention: quantize_fp8 makes the inputs with
FlashAttention-3's block quantization and incoherent processing, as the
compiler's fa-fp8-quantize pass does, and forward() runs the f8E4M3FN
fa.attention with their descales: on the CPU a kernel compiled for the
call's shapes (every descale form, any output dtype), on CUDA the sm_90a
FP8 forward bundle (every descale form too, a block_k the kernel's key
tiles divide; bf16 or f16 out). Forward only: a backward through it raises
UnsupportedError.
"""
import functools
from typing import NamedTuple, Optional, Tuple

import torch

from ..arguments import check_bool, is_int
from ..config import DESCALES, AttentionConfig, fp8_forward_mlir
from ..cpu import compile_to_shared_library
from ..errors import ArgumentError, UnsupportedError
from ..memref import CompiledFunction
from ..spec import FP8, KernelConfig
from . import _convert
from . import _ops
from ._forward_only import forward_only

E4M3_MAX = 448.0
PIPELINE = "fa-cpu-pipeline{tiled=true}"
OUT_DTYPES = _convert.FA_DTYPE  # bf16, f16 or f32 out
_M64 = (1 << 64) - 1


class FP8Inputs(NamedTuple):
    """quantize_fp8's result: the FP8 tensors, their descales (the real
    values are the stored ones times the descale) and the descale blocks
    (None per tensor), as fa_mlir.torch.attention takes them."""
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    q_descale: torch.Tensor
    k_descale: torch.Tensor
    v_descale: torch.Tensor
    descale_block: Optional[Tuple[int, int]]


def _signs(n, seed):
    """splitmix64 from `seed`: -1 where output i has its top bit set (the
    signs fa-fp8-quantize draws)."""
    state, signs = seed & _M64, []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & _M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        signs.append(-1.0 if (z ^ (z >> 31)) >> 63 else 1.0)
    return torch.tensor(signs, dtype=torch.float32)


def _parity(x):
    p = torch.zeros_like(x)
    while bool(x.any()):
        p ^= x & 1
        x = x >> 1
    return p


@functools.lru_cache(maxsize=None)
def incoherent_matrix(n, seed=0):
    """fa-fp8-quantize's orthogonal n x n float32 matrix diag(s)
    blockdiag(H_k / sqrt(k)): a Sylvester Hadamard block ((-1)^popcount(i &
    j)) per set bit of n, largest first; signs s from `seed`."""
    m = torch.zeros(n, n, dtype=torch.float32)
    offset = 0
    for bit in reversed(range(n.bit_length())):
        k = 1 << bit
        if not n & k:
            continue
        i = torch.arange(k)
        norm = 1.0 / torch.sqrt(torch.tensor(float(k)))
        m[offset:offset + k, offset:offset + k] = torch.where(
            _parity(i[:, None] & i[None, :]) == 1, -norm, norm)
        offset += k
    return _signs(n, seed)[:, None] * m


def _bhsd(x, layout):
    return x if layout == "bhsd" else x.transpose(1, 2)


def _quantize(x, block, heads_kv):
    """(x8, descale) of a bhsd tensor: amax / 448 per tensor (block None),
    per (batch, kv head) (block "head": the query heads of one kv head
    share it) or per (batch, head, block of rows); 1 where amax is 0."""
    x = x.float()
    if block == "head":
        b, h, s, d = x.shape
        amax = x.abs().reshape(b, heads_kv, -1).amax(dim=2)
        scale = torch.where(amax == 0, 1.0, amax / E4M3_MAX)
        expanded = scale.repeat_interleave(h // heads_kv, dim=1)[..., None,
                                                                  None]
    elif block is None:
        amax = x.abs().amax()
        expanded = scale = torch.where(amax == 0, 1.0, amax / E4M3_MAX)
    else:
        b, h, s, d = x.shape
        blocks = -(-s // block)
        padded = torch.nn.functional.pad(x.abs(), (0, 0, 0, blocks * block - s))
        amax = padded.view(b, h, blocks, block * d).amax(dim=3)
        scale = torch.where(amax == 0, 1.0, amax / E4M3_MAX)
        expanded = scale.repeat_interleave(block, dim=2)[:, :, :s, None]
    return (x / expanded).to(torch.float8_e4m3fn), scale.to(torch.float32)


def dequantize_fp8(x8, descale, block=None, layout="bhsd"):
    """The float32 values an FP8 tensor and its descale (one of the op's
    forms; `block`: its rows per block when per block) stand for."""
    x = _bhsd(x8, layout).float()
    d = descale.float()
    if d.dim() == 2:  # per (batch, kv head): shared by its query heads
        d = d.repeat_interleave(x.shape[1] // d.shape[1], dim=1)[..., None,
                                                                 None]
    elif d.dim() == 3:
        d = d.repeat_interleave(block, dim=2)[:, :, :x.shape[2], None]
    return _bhsd(x * d, layout)


def _is_rows(n):
    return is_int(n) and not isinstance(n, bool) and n >= 1


def _check_block(where, block):
    """block as (q's rows, k's and v's rows), or None / "head"."""
    if block is None or block == "head":
        return block, block
    if _is_rows(block):
        return int(block), int(block)
    if (isinstance(block, (tuple, list)) and len(block) == 2 and
            all(_is_rows(b) for b in block)):
        return int(block[0]), int(block[1])
    raise ArgumentError(f"{where}: block must be None (per tensor), 'head' "
                        f"(per (batch, kv head)), an int >= 1 or a tuple "
                        f"(block_q, block_k) of them, got {block!r}")


def quantize_fp8(q, k, v, *, block=None, incoherent=False, seed=0,
                 layout="bhsd"):
    """float32/float16/bfloat16 q, k, v -> FP8Inputs for
    fa_mlir.torch.attention (what fa-fp8-quantize computes in IR).

    Scales are amax / 448 per tensor (block=None), per (batch, kv head)
    (block="head": [B, Hkv] each, q's over the query heads of a kv head;
    the sm_90a kernel takes these two forms) or per block of `block` rows
    of one head: q's descale [B, Hq, ceil(Sq / block)], k's and v's
    [B, Hkv, ceil(Sk / block)]; block=(block_q, block_k) gives q and k, v
    blocks of their own (the sm_90a kernel wants block_k a multiple of 128,
    or of 192 or 224 at 64 < D <= 128). incoherent: q and k are first multiplied
    along the head dim by incoherent_matrix(D, seed), which is orthogonal,
    so q kᵀ is unchanged while outliers spread over the head dim.
    """
    where = "fa_mlir.torch.quantize_fp8"
    _convert.check_layout(where, layout)
    _convert.check_inputs(q, k, v, None, layout, where=where)
    blocks = _check_block(where, block)
    incoherent = check_bool(where, "incoherent", incoherent)
    if not is_int(seed) or not 0 <= seed <= _M64:
        raise ArgumentError(f"{where}: seed must be an int in [0, 2^64), got "
                            f"{seed!r}")
    if incoherent:
        m = incoherent_matrix(q.shape[3], int(seed)).to(q.device)
        q, k = q.float() @ m, k.float() @ m
    heads_kv = k.shape[1 if layout == "bhsd" else 2]
    out = []
    for x, rows in zip((q, k, v), (blocks[0], blocks[1], blocks[1])):
        x8, scale = _quantize(_bhsd(x, layout), rows, heads_kv)
        out.append((_bhsd(x8, layout).contiguous(), scale))
    (q8, dq), (k8, dk), (v8, dv) = out
    return FP8Inputs(q8, k8, v8, dq, dk, dv,
                     None if blocks[0] in (None, "head") else blocks)


def _dequantized_bhsd(q8, k8, v8, descales, descale_block, layout, dtype):
    """q, k, v as the values their descales (any of the op's forms) make
    them, bhsd, k and v repeated over the query heads of their kv head; the
    product is rounded to float32 first (as a kernel's f32 arithmetic
    sees it), then taken to `dtype`."""
    rows = descale_block or (None, None)
    q, k, v = (_bhsd(dequantize_fp8(t, d, block, layout), layout).to(dtype)
               for t, d, block in zip((q8, k8, v8), descales,
                                      (rows[0], rows[1], rows[1])))
    group = q.shape[1] // k.shape[1]
    return (q,) + tuple(t.repeat_interleave(group, dim=1) for t in (k, v))


def _masked_scores(q, k, scale, causal, bottom_right, seq_q):
    """scale q kᵀ of q's rows (the first rows of seq_q queries), -inf
    where the causal mask hides a key."""
    s = q @ k.transpose(-1, -2) * (scale or q.shape[-1] ** -0.5)
    if causal:
        rows, sk = s.shape[-2:]
        offset = sk - seq_q if bottom_right else 0
        hidden = torch.ones(rows, sk, dtype=torch.bool,
                            device=s.device).triu(1 + offset)
        s = s.masked_fill(hidden, float("-inf"))
    return s


def emulated_fp8_attention(q8, k8, v8, descales, *, causal=False,
                           bottom_right=False, scale=None, layout="bhsd",
                           out_dtype=torch.bfloat16, p_scale=256.0,
                           descale_block=None):
    """A plain FP8 attention in torch, the baseline of FlashAttention's
    criterion adapted to FP8 (and issue 12's "standard" FP8 attention):
    S = (q dq)(k dk)ᵀ in float32, its softmax in float32, P rounded to
    float8_e4m3fn as p_scale * P (as a kernel stores P for its FP8 P V
    product), O = P (v dv) in float32, then out_dtype. Descales of any of
    the op's forms (per block ones with descale_block (block_q, block_k));
    the output in `layout`."""
    q, k, v = _dequantized_bhsd(q8, k8, v8, descales, descale_block, layout,
                                torch.float32)
    s = _masked_scores(q, k, scale, causal, bottom_right, q.shape[2])
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    p = (p * p_scale).to(torch.float8_e4m3fn).float() / p_scale
    return _bhsd((p @ v).to(out_dtype), layout)


def reference_fp8_attention(q8, k8, v8, descales, *, causal=False,
                            bottom_right=False, scale=None, layout="bhsd",
                            descale_block=None, rows=None):
    """The float64 attention of what FP8 inputs stand for (their dequantized
    values): (O, LSE), both bhsd, O 0 and LSE -inf on rows that see no key.
    `rows`: of the first `rows` queries only (long sequences). The reference
    of the FP8 tests and benchmarks."""
    q, k, v = _dequantized_bhsd(q8, k8, v8, descales, descale_block, layout,
                                torch.float64)
    seq_q = q.shape[2]
    s = _masked_scores(q[:, :, :rows], k, scale, causal, bottom_right, seq_q)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    return p @ v, lse


def _descale_forms(sizes, role, block):
    """The shapes a descale of `role` may have: per tensor, per (batch,
    kv head), and per block when `block` is given."""
    b, hkv = sizes["batch"], sizes["heads_kv"]
    forms = [(), (b, hkv)]
    if block is not None:
        heads, seq = ((sizes["heads_q"], sizes["seq_q"]) if role == "q"
                      else (hkv, sizes["seq_k"]))
        forms.append((b, heads, -(-seq // block)))
    return forms


def check_descales(where, descales, descale_block, sizes, device):
    """The (q, k, v) descales: float32 tensors on `device` (query's) of one
    of the op's forms; descale_block (bq, bk) given exactly when one is per
    block."""
    if descale_block is not None:
        if (not isinstance(descale_block, (tuple, list))
                or len(descale_block) != 2
                or not all(is_int(x) and x >= 1 for x in descale_block)):
            raise ArgumentError(f"{where}: descale_block must be (block_q, "
                                f"block_k), both ints >= 1; got "
                                f"{descale_block!r}")
    blocks = descale_block or (None, None)
    per_block = False
    for role, d, block in zip("qkv", descales, (blocks[0], blocks[1],
                                                blocks[1])):
        name = f"{role}_descale"
        if not isinstance(d, torch.Tensor):
            raise ArgumentError(f"{where}: {name} must be a torch.Tensor for "
                                f"float8_e4m3fn inputs, got "
                                f"{type(d).__name__}")
        if d.dtype != torch.float32:
            raise ArgumentError(f"{where}: {name} must be a float32 tensor, "
                                f"got {d.dtype}")
        if d.device != device:
            raise ArgumentError(f"{where}: {name} is on {d.device}, expected "
                                f"{device} (the device of query)")
        forms = _descale_forms(sizes, role, block)
        if tuple(d.shape) not in forms:
            raise ArgumentError(
                f"{where}: {name} has shape {tuple(d.shape)}; expected one of "
                f"{', '.join(str(f) for f in forms)} (per tensor, per (batch, "
                f"kv head)" + (", per block)" if block else ")"))
        per_block |= d.dim() == 3
    if descale_block is not None and not per_block:
        raise ArgumentError(f"{where}: descale_block is given but no descale "
                            f"is per block")


@functools.lru_cache(maxsize=None)
def _compiled(text):
    return CompiledFunction(compile_to_shared_library(text, PIPELINE),
                            "attention")


def forward(q, k, v, descales, descale_block, out_dtype, sizes, cfg_options):
    """(output, lse) of the f8E4M3FN fa.attention on checked q, k, v: the
    CPU kernel or, on CUDA, the sm_90a one. The output is attached to the
    graph when q, k or v needs a gradient, so that a backward through it
    fails with UnsupportedError instead of leaving the gradients out."""
    where = _convert.WHERE
    if out_dtype not in OUT_DTYPES:
        raise ArgumentError(f"{where}: out_dtype must be torch.bfloat16, "
                            f"torch.float16 or torch.float32 for "
                            f"float8_e4m3fn inputs, got {out_dtype}")
    check_descales(where, descales, descale_block, sizes, q.device)
    run = _cuda_forward if q.device.type == "cuda" else _cpu_forward

    def compute():
        return run(q, k, v, descales, descale_block, out_dtype, sizes,
                   cfg_options)
    return forward_only(compute, f"{_convert.WHERE}: float8_e4m3fn "
                        "attention is forward only (no FP8 backward kernel); "
                        "train in bfloat16 or float16", q, k, v, constant=(1,))


def _cpu_forward(q, k, v, descales, descale_block, out_dtype, sizes,
                 cfg_options):
    """The CPU kernel compiled for this call's shapes and descale forms."""
    cfg = AttentionConfig(
        batch=sizes["batch"], heads_q=sizes["heads_q"],
        heads_kv=sizes["heads_kv"], seq_q=sizes["seq_q"],
        seq_k=sizes["seq_k"], head_dim=sizes["head_dim"],
        head_dim_v=sizes["head_dim_v"], **cfg_options)
    text = fp8_forward_mlir(cfg, [tuple(d.shape) for d in descales],
                            descale_block, OUT_DTYPES[out_dtype])
    q, k, v = (t.contiguous().view(torch.uint8) for t in (q, k, v))
    out = torch.empty(cfg.shape("output"), dtype=out_dtype)
    lse = torch.empty(cfg.shape("lse"), dtype=torch.float32)
    arrays = [t.numpy() for t in (q, k, v)]
    arrays += [d.contiguous().numpy() for d in descales]
    _compiled(text)(*arrays, _convert.numpy_view(out), lse.numpy())
    return out, lse


@functools.lru_cache(maxsize=None)
def _cuda_config(heads_q, heads_kv, head_dim, head_dim_v, out_elem,
                 descale_block, options):
    return KernelConfig(op="forward", dtype=FP8, out_dtype=out_elem,
                        heads_q=heads_q, heads_kv=heads_kv,
                        head_dim=head_dim, head_dim_v=head_dim_v,
                        descale_block=descale_block, **dict(options))


def cuda_config(sizes, out_dtype, cfg_options, descale_block=None):
    """The KernelConfig of an FP8 call on CUDA: static heads and head dims
    (the descales' shapes have them), dynamic batch and sequences; with
    descale_block, the kernel of per-block descales."""
    if descale_block is not None:
        descale_block = tuple(int(b) for b in descale_block)
    return _cuda_config(sizes["heads_q"], sizes["heads_kv"],
                        sizes["head_dim"], sizes["head_dim_v"],
                        OUT_DTYPES[out_dtype], descale_block,
                        tuple(sorted(cfg_options.items())))


def descale_operand(d, batch, heads_kv):
    """A checked descale as the kernel's [batch, heads_kv] f32 operand: a
    per-tensor one is broadcast along batch (stride 0). Its heads are a
    copy: libfa_runtime wants a unit innermost stride on every operand."""
    if d.dim() == 0:
        return d.reshape(1, 1).expand(1, heads_kv).contiguous().expand(
            batch, heads_kv)
    return d if d.stride(-1) == 1 or heads_kv == 1 else d.contiguous()


def descale_operands(descales, batch, heads_kv):
    """descale_operand of each of the three descales, where the per-tensor
    ones (quantize_fp8's default) share one [n, heads_kv] copy: one small
    kernel per call instead of one per descale (the copies are redone on
    every call, so that a CUDA graph replays them after the caller updates
    a descale in place)."""
    scalars = [i for i, d in enumerate(descales) if d.dim() == 0]
    out = [None if d.dim() == 0 else descale_operand(d, batch, heads_kv)
           for d in descales]
    if len(scalars) < 2 or heads_kv == 1:  # no copy to share
        return [descale_operand(d, batch, heads_kv) if o is None else o
                for d, o in zip(descales, out)]
    rows = torch.cat([descales[i].reshape(1, 1).expand(1, heads_kv)
                      for i in scalars])
    for row, i in enumerate(scalars):
        out[i] = rows[row:row + 1].expand(batch, heads_kv)
    return out


def block_descale_operand(d, role, sizes, descale_block):
    """A checked descale of `role` ("q", "k" or "v") as the per-block
    kernel's [B, H, blocks] f32 operand (q: H = Hq, blocks = ceil(Sq / bq);
    k, v: H = Hkv, blocks = ceil(Sk / bk)): a per-tensor or per-(batch, kv
    head) one is expanded, each query head taking its kv head's value. The
    copies are small (one float per block); the block dim is dense, as
    libfa_runtime wants."""
    b, hq, hkv = sizes["batch"], sizes["heads_q"], sizes["heads_kv"]
    if role == "q":
        heads, blocks = hq, -(-sizes["seq_q"] // descale_block[0])
    else:
        heads, blocks = hkv, -(-sizes["seq_k"] // descale_block[1])
    if d.dim() == 3:
        return d if d.stride(-1) == 1 or blocks == 1 else d.contiguous()
    if d.dim() == 0:
        return d.reshape(1, 1, 1).expand(1, 1, blocks).contiguous().expand(
            b, heads, blocks)
    per_head = d.repeat_interleave(heads // hkv, dim=1)  # [B, heads]
    return per_head[..., None].expand(b, heads, blocks).contiguous()


def _cuda_forward(q, k, v, descales, descale_block, out_dtype, sizes,
                  cfg_options):
    """The sm_90a FP8 bundle (a sequence: V transposed into the value_t
    workspace, then the attention) on checked CUDA tensors."""
    where = _convert.WHERE
    if out_dtype == torch.float32:
        raise UnsupportedError(f"{where}: out_dtype torch.float32: the sm_90a "
                               "FP8 kernel writes torch.bfloat16 or "
                               "torch.float16 (the CPU writes float32 too)")
    bundle, tensors = cuda_operands(q, k, v, descales, out_dtype, sizes,
                                    cfg_options, descale_block)
    _ops._launch(bundle, tensors, q.device)
    return tensors["output"], tensors["lse"]


def cuda_operands(q, k, v, descales, out_dtype, sizes, cfg_options,
                  descale_block=None):
    """(bundle, operands by role) of an FP8 call on CUDA: fresh output and
    LSE, the descales as [batch, heads_kv] (or, with descale_block, all
    three per block), the value_t workspace from torch's allocator. What a
    launch takes (test/Device/bench_fp8.py times the launch alone with
    them)."""
    target = _ops._target(q)
    kcfg = cuda_config(sizes, out_dtype, cfg_options, descale_block)
    # softcap, head dims, descale_block: before any lookup
    kcfg.check_target(target)
    bundle = _ops.get_bundle(kcfg, target)
    q, k, v = _ops._dense(q), _ops._dense(k), _ops._dense(v)
    layout = cfg_options["layout"]
    out_shape, lse_shape = _ops._shapes(q, v, layout)
    tensors = {"query": q, "key": k, "value": v,
               "output": torch.empty(out_shape, dtype=out_dtype,
                                     device=q.device),
               "lse": torch.empty(lse_shape, dtype=torch.float32,
                                  device=q.device)}
    if descale_block is None:
        tensors.update(zip(DESCALES, descale_operands(
            descales, sizes["batch"], sizes["heads_kv"])))
    else:
        for role, d in zip(DESCALES, descales):
            tensors[role] = block_descale_operand(d, role[0], sizes,
                                                  descale_block)
    symbols = _convert.sizes_of(q, k, v, layout)
    tensors.update(_ops._workspace(bundle, symbols, q.device))
    return bundle, tensors

"""What the FP8 device scripts share: quantized inputs, our FP8 sequences
launched through libfa_runtime (fa_mlir.gpu_runtime), the float64
reference on the dequantized inputs and the plain low-precision baseline.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "python"))
from fa_mlir import gpu_runtime  # noqa: E402

E4M3_MAX = 448.0
P_SHIFT = 256.0  # the kernel scales P by 2^8 before rounding it to e4m3
_RUNTIME_DTYPE = {torch.float8_e4m3fn: "f8e4m3fn", torch.bfloat16: "bf16",
                  torch.float16: "f16", torch.float32: "f32"}


def runtime_tensor(t):
    return (t.data_ptr(), _RUNTIME_DTYPE[t.dtype], tuple(t.shape), tuple(t.stride()))


def bhsd(t, layout):
    return t if layout == "bhsd" else t.transpose(1, 2)


def quantize(x, per_head):
    """(x8, descale [B, H]) of a bhsd tensor: amax / 448 per tensor or per
    (batch, head)."""
    amax = x.abs().amax(dim=(2, 3)) if per_head else x.abs().amax().expand(x.shape[:2])
    scale = torch.where(amax == 0, torch.ones_like(amax), amax / E4M3_MAX).float()
    return (x / scale[:, :, None, None]).to(torch.float8_e4m3fn), scale.contiguous()


class Inputs:
    """Random N(0, 1) q, k, v quantized to e4m3 (bhsd views of the layout's
    tensors), their descales [B, Hkv] and dequantized float64 copies."""

    def __init__(self, B, Hq, Hkv, Sq, Sk, d, layout, per_head, device="cuda"):
        self.layout, self.d = layout, d
        raw = [torch.randn(B, h, s, d, device=device) for h, s in
               ((Hq, Sq), (Hkv, Sk), (Hkv, Sk))]
        group = Hq // Hkv
        quantized = []
        for i, x in enumerate(raw):
            if i == 0:  # Q's descale is per (batch, kv head): amax over the group
                xg = x.view(B, Hkv, group * Sq, d)
                x8, s = quantize(xg, per_head)
                x8 = x8.view(B, Hq, Sq, d)
            else:
                x8, s = quantize(x, per_head)
            stored = x8 if layout == "bhsd" else x8.transpose(1, 2).contiguous()
            quantized.append((stored, s))
        (self.q8, self.dq), (self.k8, self.dk), (self.v8, self.dv) = quantized
        self.group = group
        self.q, self.k, self.v = (self.dequantize(t, s, g) for t, s, g in
                                  ((self.q8, self.dq, group), (self.k8, self.dk, 1),
                                   (self.v8, self.dv, 1)))

    def dequantize(self, stored, scale, group):
        x = bhsd(stored, self.layout).double()
        s = scale.double().repeat_interleave(group, dim=1)
        return x * s[:, :, None, None]


def visible(Sq, Sk, causal, align, device):
    """[Sq, Sk] bool: the keys each query sees."""
    if not causal:
        return torch.ones(Sq, Sk, dtype=torch.bool, device=device)
    shift = Sk - Sq if align == "bottom_right" else 0
    i = torch.arange(Sq, device=device)[:, None]
    j = torch.arange(Sk, device=device)[None, :]
    return j <= i + shift


def _scores(x, keep, dtype):
    group = x.group
    k = x.k.to(dtype).repeat_interleave(group, dim=1)
    s = (x.q.to(dtype) @ k.transpose(-1, -2)) / math.sqrt(x.d)
    return s.masked_fill(~keep, -math.inf)


def reference(x, keep, dtype=torch.float64):
    """(O, LSE) in float64: O 0 and LSE -inf on rows that see no key."""
    s = _scores(x, keep, dtype)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    v = x.v.to(dtype).repeat_interleave(x.group, dim=1)
    return p @ v, lse


def plain_fp8(x, keep, out_dtype):
    """The plain low-precision FP8 attention: fp32 S and softmax, P rounded
    to e4m3 (scaled by 2^8 as the kernel does), fp32 P V."""
    s = _scores(x, keep, torch.float32)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    p8 = (p * P_SHIFT).to(torch.float8_e4m3fn).float() / P_SHIFT
    v = x.v.float().repeat_interleave(x.group, dim=1)
    o = (p8 @ v).to(out_dtype)
    return o if x.layout == "bhsd" else o.transpose(1, 2)


def errors(o, ref):
    e = (o - ref).abs()
    return e.max().item(), e.mean().item()


class Sequence:
    """One FP8 fa-kernel-sequence, launched as one call."""

    def __init__(self, path):
        self.path = path
        self.rt = gpu_runtime.RuntimeBundle(path)

    def __call__(self, x, out_dtype, stream=None):
        q8 = x.q8
        if x.layout == "bhsd":
            B, Hq, Sq, _ = q8.shape
            Sk, Dv = x.v8.shape[2], x.v8.shape[3]
            o = torch.empty(B, Hq, Sq, Dv, dtype=out_dtype, device=q8.device)
        else:
            B, Sq, Hq, _ = q8.shape
            Sk, Dv = x.v8.shape[1], x.v8.shape[3]
            o = torch.empty(B, Sq, Hq, Dv, dtype=out_dtype, device=q8.device)
        lse = torch.empty(B, Hq, Sq, dtype=torch.float32, device=q8.device)
        tensors = {"query": q8, "key": x.k8, "value": x.v8, "output": o, "lse": lse,
                   "query_descale": x.dq, "key_descale": x.dk, "value_descale": x.dv}
        self.rt.launch({r: runtime_tensor(t) for r, t in tensors.items()},
                       stream if stream is not None else torch.cuda.current_stream().cuda_stream)
        return o, lse

"""What the FP8 device scripts share: inputs quantized by
fa_mlir.torch.quantize_fp8, our FP8 sequences launched through libfa_runtime
(fa_mlir.gpu_runtime, not fa_mlir.torch.attention's route), the float64
reference on the dequantized inputs, and the plain low-precision baseline
(fa_mlir.torch.emulated_fp8_attention).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "python"))
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import gpu_runtime  # noqa: E402
from fa_mlir.torch import fp8 as fa_fp8  # noqa: E402
from fa_mlir.torch._convert import runtime_tensor  # noqa: E402


def bhsd(t, layout):
    return t if layout == "bhsd" else t.transpose(1, 2)


def spread_rows(x, layout, low, high, run=32):
    """x with each run of `run` rows of a head scaled by 2^u, u a uniform
    integer in [low, high]: per-block descales then differ from block to
    block (up to 2^(high - low)), so a kernel that read the wrong block's
    descale would miss."""
    t = bhsd(x, layout)
    b, h, s, _ = t.shape
    u = torch.randint(low, high + 1, (b, h, -(-s // run)), device=x.device).float()
    scale = torch.exp2(u).repeat_interleave(run, dim=2)[:, :, :s, None]
    return bhsd(t * scale, layout)


class Inputs:
    """Random N(0, 1) q, k, v in `layout`, quantized to e4m3 per tensor,
    per (batch, kv head) or, with `block` (block_q, block_k), per block of
    rows (then, unless `spread` is False, the rows are first spread:
    Q's and K's over 2^[-3, 0], V's over 2^[-3, 3], spread_rows) by
    quantize_fp8."""

    def __init__(self, B, Hq, Hkv, Sq, Sk, d, layout, per_head, device="cuda", block=None,
                 spread=True):
        self.layout, self.block = layout, block
        shapes = [(B, h, s, d) for h, s in ((Hq, Sq), (Hkv, Sk), (Hkv, Sk))]
        if layout == "bshd":
            shapes = [(b, s, h, dd) for b, h, s, dd in shapes]
        raw = [torch.randn(*s, device=device) for s in shapes]
        if block and spread:
            # Q and K only shrink: larger scores would loosen the LSE,
            # whose tolerance is absolute (FP8 wgmma's sums are below f32's
            # precision); V's spread is judged against the plain FP8's.
            raw = [spread_rows(t, layout, -3, 0 if i < 2 else 3) for i, t in enumerate(raw)]
        form = tuple(block) if block else "head" if per_head else None
        x = fat.quantize_fp8(*raw, block=form, layout=layout)
        self.q8, self.k8, self.v8 = x.q, x.k, x.v
        self.descales = (x.q_descale, x.k_descale, x.v_descale)



def visible(Sq, Sk, causal, align, device):
    """[Sq, Sk] bool: the keys each query sees."""
    if not causal:
        return torch.ones(Sq, Sk, dtype=torch.bool, device=device)
    shift = Sk - Sq if align == "bottom_right" else 0
    i = torch.arange(Sq, device=device)[:, None]
    j = torch.arange(Sk, device=device)[None, :]
    return j <= i + shift


def reference(x, causal, align):
    """(O, LSE) in float64, bhsd: O 0 and LSE -inf on rows that see no key."""
    return fat.reference_fp8_attention(
        x.q8, x.k8, x.v8, x.descales, causal=causal, bottom_right=align == "bottom_right",
        layout=x.layout, descale_block=x.block)


def plain_fp8(x, causal, align, out_dtype):
    """The plain low-precision FP8 attention on the same quantized inputs
    (P scaled by 2^8 before e4m3, as the kernel does), in x's layout."""
    return fat.emulated_fp8_attention(
        x.q8, x.k8, x.v8, x.descales, causal=causal,
        bottom_right=align == "bottom_right", layout=x.layout, out_dtype=out_dtype,
        descale_block=x.block)


def errors(o, ref):
    e = (o - ref).abs()
    return e.max().item(), e.mean().item()


class Sequence:
    """One FP8 fa-kernel-sequence, launched as one call."""

    def __init__(self, path):
        self.path = path
        self.rt = gpu_runtime.RuntimeBundle(path)

    def __call__(self, x, out_dtype, stream=None):
        launch, o, lse = self.launcher(x, out_dtype, stream)
        launch()
        return o, lse

    def launcher(self, x, out_dtype, stream=None):
        """(launch, o, lse): a call that launches the sequence on x's
        operands, prepared once."""
        q8 = x.q8
        B, Dv = q8.shape[0], x.v8.shape[3]
        if x.layout == "bhsd":
            Hq, Sq, Hkv = q8.shape[1], q8.shape[2], x.k8.shape[1]
            o = torch.empty(B, Hq, Sq, Dv, dtype=out_dtype, device=q8.device)
        else:
            Sq, Hq, Hkv = q8.shape[1], q8.shape[2], x.k8.shape[2]
            o = torch.empty(B, Sq, Hq, Dv, dtype=out_dtype, device=q8.device)
        lse = torch.empty(B, Hq, Sq, dtype=torch.float32, device=q8.device)
        tensors = {"query": q8, "key": x.k8, "value": x.v8, "output": o, "lse": lse}
        # The kernel's [batch, heads_kv] descale operands, as the Python
        # route makes them; per block as quantize_fp8 made them.
        for role, d in zip(("query_descale", "key_descale", "value_descale"), x.descales):
            tensors[role] = d.contiguous() if x.block else fa_fp8.descale_operand(d, B, Hkv)
        operands = {r: runtime_tensor(t) for r, t in tensors.items()}
        stream = stream if stream is not None else torch.cuda.current_stream().cuda_stream
        return (lambda: self.rt.launch(operands, stream)), o, lse

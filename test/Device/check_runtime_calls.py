"""Checks the output of test/Device/runtime_calls_program.mlir (printed by
printMemrefF32) against float64: the inputs are recomputed from the same
integer formulas, the reference is causal GQA attention in float64, and
FlashAttention's criterion compares our error with that of PyTorch's bf16
attention on the same inputs (or, without torch, a plain bf16 emulation).

    python3 check_runtime_calls.py OUTPUT.txt
"""
import re
import sys

import numpy as np

B, HQ, HKV, S, D = 1, 4, 2, 256, 64


def bf16(x):
    """float32 -> nearest bf16 (ties to even), as float64."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(heads, mul, add):
    flat = np.arange(B * heads * S * D, dtype=np.uint64)
    rem = (flat * np.uint64(mul) + np.uint64(add)) % np.uint64(1009)
    x = rem.astype(np.float32) / np.float32(504.5) - np.float32(1.0)
    return bf16(x).reshape(B, heads, S, D)


def attention(q, k, v):
    """Causal GQA attention in float64."""
    k = np.repeat(k, HQ // HKV, axis=1)
    v = np.repeat(v, HQ // HKV, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D)
    s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def plain_bf16(q, k, v):
    try:
        import torch
        import torch.nn.functional as F
        t = [torch.tensor(x, dtype=torch.bfloat16) for x in (q, k, v)]
        out = F.scaled_dot_product_attention(*t, is_causal=True,
                                             enable_gqa=True)
        return out.double().numpy(), "PyTorch bf16"
    except ImportError:
        return bf16(attention(q, k, v)), "float64 rounded to bf16"


def printed(path):
    text = open(path).read()
    data = text[text.index("data ="):]
    values = re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?|-?nan|-?inf", data)
    return np.array(values[:B * HQ * S * D], np.float64).reshape(B, HQ, S, D)


q = inputs(HQ, 7919, 13)
k = inputs(HKV, 104729, 7)
v = inputs(HKV, 1299709, 3)
exact = attention(q, k, v)
ours = printed(sys.argv[1])
plain, what = plain_bf16(q, k, v)
err, bound = np.abs(ours - exact).max(), np.abs(plain - exact).max()
ok = bool(np.isfinite(ours).all()) and err <= 2 * bound + 1e-5
print(f"max error vs float64: ours {err:.3g}, {what} {bound:.3g}: "
      f"{'ok' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)

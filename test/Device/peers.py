"""The peers our kernel is measured against, and the shared FLOP count.

The method of the team's peer study (../shared/peers/bench_peers.py and
README.md there), rewritten here so that it travels with the repository:
PyTorch SDPA's FlashAttention-2 backend and its cuDNN backend,
FlexAttention compiled to Triton, and "standard attention" (matmul,
softmax in float32, matmul, materialising S and P in HBM). Shapes: 16k
total tokens, hidden 2048 (heads = 2048 / head_dim), bf16, bhsd. FLOPs the
FlashAttention papers' way: forward 4 * B * H * N * N * D, halved for
causal; backward 2.5 x forward.
"""
import math

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

TOTAL_TOKENS = 16384
HIDDEN = 2048


def flops(B, H, N, D, causal, mode="fwd"):
    f = 4 * B * H * N * N * D
    if causal:
        f //= 2
    return f if mode == "fwd" else int(2.5 * f)


def shape(N, D, total_tokens=TOTAL_TOKENS):
    """(batch, heads) of the papers' setup for sequence length N."""
    return max(1, total_tokens // N), HIDDEN // D


def standard(q, k, v, causal):
    s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    if causal:
        n = q.shape[-2]
        mask = torch.ones(n, n, device=q.device, dtype=torch.bool).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    p = torch.softmax(s.float(), dim=-1).to(q.dtype)
    return torch.matmul(p, v)


def sdpa(backend):
    def f(q, k, v, causal):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return f


def _flex():
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    import torch._dynamo
    torch._dynamo.config.recompile_limit = 1000
    torch._dynamo.config.accumulated_recompile_limit = 10000
    compiled = torch.compile(flex_attention, dynamic=False)
    masks = {}

    def f(q, k, v, causal):
        if causal:
            n = q.shape[-2]
            if n not in masks:
                masks[n] = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, n, n,
                                             device=q.device)
            return compiled(q, k, v, block_mask=masks[n])
        return compiled(q, k, v)
    return f


def impls(flex=True):
    out = {"fa2": sdpa(SDPBackend.FLASH_ATTENTION), "cudnn": sdpa(SDPBackend.CUDNN_ATTENTION),
           "standard": standard}
    if flex:
        try:
            out["flex"] = _flex()
        except Exception as ex:  # noqa: BLE001 - reported, the round goes on
            print(f"# flex unavailable: {ex!r}")
    return out

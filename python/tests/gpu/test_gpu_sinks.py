"""Attention sinks (gpt-oss) through fa_mlir.torch.attention(..., sinks=) on
CUDA: the sm_90a forward and backward against float64 autograd (softmax
over [scores, sink] with the sink's column dropped) with FlashAttention's
criterion (our error at most twice a plain implementation's in the inputs'
precision, softmax in float32, plus EPS relative to the value's size) for
O, dQ, dK, dV and dSinks; the LSE (which includes the sink) within 1e-3;
rows that see no key give O = 0 and LSE = sink. GQA, a tail, both layouts,
bottom-right causal with seq_q > seq_k.

Every kernel these tests ask for is in configs.json.
"""
from dataclasses import dataclass
import math
from typing import Optional, Tuple

import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402

EPS = 1e-3


@dataclass(frozen=True)
class Case:
    name: str
    shape: Tuple[int, int, int, int, int]  # batch, heads_q, heads_kv, seq_q, seq_k
    d: int
    layout: str
    dtype: torch.dtype
    causal: bool = False
    mask_alignment: Optional[str] = None


CASES = [
    Case("d64-causal-gqa-bhsd", (2, 8, 2, 300, 300), 64, "bhsd", torch.bfloat16, True),
    Case("d128-causal-br-bshd", (1, 4, 4, 200, 120), 128, "bshd", torch.float16, True,
         "bottom_right"),
]


def reference(case, q, k, v, sinks, dtype):
    """(O, LSE) bhsd in `dtype` (float64, or the plain implementation)."""
    hq, hkv = q.shape[1], k.shape[1]
    k = k.repeat_interleave(hq // hkv, dim=1)
    v = v.repeat_interleave(hq // hkv, dim=1)
    soft = torch.float64 if dtype == torch.float64 else torch.float32
    s = (q.to(dtype) @ k.to(dtype).transpose(-1, -2) / math.sqrt(case.d)).to(soft)
    sq, sk = s.shape[-2:]
    i = torch.arange(sq, device=s.device)[:, None] + (
        sk - sq if case.mask_alignment == "bottom_right" else 0)
    j = torch.arange(sk, device=s.device)[None, :]
    if case.causal:
        s = s.masked_fill(j > i, float("-inf"))
    col = sinks.to(soft)[None, :, None, None].expand(*s.shape[:3], 1)
    full = torch.cat([s, col], dim=-1)
    p = torch.softmax(full, dim=-1)[..., :-1]
    return p.to(dtype) @ v.to(dtype), torch.logsumexp(full, dim=-1)


def to_bhsd(x, layout):
    return x.transpose(1, 2) if layout == "bshd" else x


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_forward_and_backward_against_float64(case):
    b, hq, hkv, sq, sk = case.shape
    g = torch.Generator(device="cuda").manual_seed(7)
    shapes = [(b, hq, sq, case.d), (b, hkv, sk, case.d), (b, hkv, sk, case.d)]
    bhsd = [torch.randn(*s, device="cuda", generator=g).to(case.dtype) for s in shapes]
    sinks = (torch.randn(hq, device="cuda", generator=g) + 1.0).requires_grad_()
    q, k, v = (to_bhsd(x, case.layout).contiguous().requires_grad_() for x in bhsd)
    out, lse = fat.attention(q, k, v, sinks=sinks, causal=case.causal,
                             mask_alignment=case.mask_alignment, layout=case.layout,
                             return_lse=True)
    exact = [x.detach().double().requires_grad_() for x in (*bhsd, sinks)]
    low = [x.detach().clone().requires_grad_() for x in (*bhsd, sinks)]
    ref, ref_lse = reference(case, *exact, torch.float64)
    plain, _ = reference(case, *low, case.dtype)
    ours = to_bhsd(out, case.layout)
    err = (ours.double() - ref).abs().max().item()
    base = (plain.double() - ref).abs().max().item()
    assert err <= 2 * base + EPS * ref.abs().max().item(), ("O", err, base)
    assert ((lse.double() - ref_lse).abs() / (1 + ref_lse.abs())).max().item() <= 1e-3
    if case.mask_alignment == "bottom_right" and sq > sk:
        empty = sq - sk  # rows before the diagonal reaches key 0
        assert (ours[:, :, :empty] == 0).all()
        assert torch.equal(lse[:, :, :empty],
                           sinks.detach()[None, :, None].expand(b, hq, empty))
    do = torch.randn(ref.shape, device="cuda", generator=g).to(case.dtype)
    grads = torch.autograd.grad(out, (q, k, v, sinks), to_bhsd(do, case.layout))
    want = torch.autograd.grad(ref, exact, do.double())
    have = torch.autograd.grad(plain, low, do.to(plain.dtype))
    ours_g = [to_bhsd(x, case.layout) for x in grads[:3]] + [grads[3]]
    for name, x, r, p in zip(("dq", "dk", "dv", "dsinks"), ours_g, want, have):
        err = (x.double() - r).abs().max().item()
        base = (p.double() - r).abs().max().item()
        assert err <= 2 * base + EPS * r.abs().max().item(), (name, err, base)

"""score_mod/mask_mod (FlexAttention's modifiers) through fa_mlir.torch.attention
on CUDA sm_90a, forward and backward: the traced regions compiled into the
sm_90a forward kernel and backward sequence, their captured tensors passed to
both launches. O, dQ, dK and dV against float64 (the modifiers applied to
the materialized scores, torch autograd) with FlashAttention's criterion
(at most twice the error of a plain bf16 implementation, bf16 scores and P
with a float32 softmax, plus a small epsilon); rows a mask_mod leaves
without keys give O = 0 and dQ = 0, never NaN.

Modifiers: ALiBi with causal (GQA, tails, bhsd), a document mask whose
padding tokens see no key (bshd), T5's bucketed relative bias with prefix-LM,
a relative bias table indexed by negative distances (torch's wrap-around:
the table's size is a kernel parameter), and a combination (a nonlinear score_mod with tanh and a max, the document
mask and the softcap attribute). Every kernel these tests ask for is in
configs.json (python/tests/test_gpu_configs.py checks that on the CPU).
"""
from dataclasses import dataclass
import math
from typing import Callable, Optional, Tuple

import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402
from _flex_mods import alibi, prefix_lm, t5  # noqa: E402

EPS = 1e-3



def document_padded(docs):
    """Same document, and padding (id -1) sees nothing."""
    def mask_mod(b, h, q_idx, kv_idx):
        return (docs[b, q_idx] == docs[b, kv_idx]) & (docs[b, q_idx] >= 0)
    return mask_mod



def relative_wrapped(rel):
    """A relative-position bias table of any width indexed by kv_idx - q_idx:
    negative distances count from the end of the row (torch's wrap-around,
    through the table's size as a kernel parameter)."""
    def score_mod(score, b, h, q_idx, kv_idx):
        return score + rel[h, kv_idx - q_idx]
    return score_mod



def smooth_alibi(slopes):
    """Nonlinear in the score: a real derivative."""
    def score_mod(score, b, h, q_idx, kv_idx):
        bent = score + 3 * torch.tanh(score / 3) * slopes[h]
        return torch.maximum(bent, torch.tensor(-2.0)) - 0.01 * (q_idx - kv_idx)
    return score_mod


@dataclass(frozen=True)
class Case:
    name: str
    shape: Tuple[int, int, int, int]  # batch, heads_q, heads_kv, seq
    d: int
    layout: str = "bhsd"
    causal: bool = False
    softcap: Optional[float] = None
    # (captured tensors on `device`) -> (score_mod, mask_mod)
    mods: Callable = None


def captures(case, device, seed=3):
    """The tensors the modifiers read: ALiBi slopes, document ids with
    padding at the end of each row, a T5 table, prefix lengths, a relative
    bias per distance in [-(S-1), S-1] ([Hq, 2S - 1], negative ones last)."""
    b, hq, _, s = case.shape
    g = torch.Generator().manual_seed(seed)
    docs = torch.sort(torch.randint(0, 4, (b, s), generator=g), dim=1).values
    docs[:, s - s // 8:] = -1
    return dict(
        slopes=(2.0 ** (-8.0 * torch.arange(1, hq + 1) / hq)).to(device),
        docs=docs.to(torch.int32).to(device),
        table=torch.randn(hq, 32, generator=g).to(device),
        prefix=torch.tensor([s // 3, s - 5][:b] + [7] * max(0, b - 2),
                            dtype=torch.int32).to(device),
        rel=torch.randn(hq, 2 * s - 1, generator=g).to(device))


CASES = [
    Case("alibi-causal-gqa-300-d64", (2, 8, 2, 300), 64, causal=True,
         mods=lambda c: (alibi(c["slopes"]), None)),
    Case("document-padded-333-d128-bshd", (2, 4, 4, 333), 128, "bshd",
         mods=lambda c: (None, document_padded(c["docs"]))),
    Case("t5-prefix-lm-200-d128", (2, 4, 2, 200), 128,
         mods=lambda c: (t5(c["table"]), prefix_lm(c["prefix"]))),
    Case("relative-wrapped-177-d64", (2, 4, 2, 177), 64,
         mods=lambda c: (relative_wrapped(c["rel"]), None)),
    Case("combined-softcap-257-d64", (2, 4, 2, 257), 64, softcap=20.0,
         mods=lambda c: (smooth_alibi(c["slopes"]),
                         document_padded(c["docs"]))),
]


def inputs(case, device="cuda", seed=0):
    b, hq, hk, s = case.shape
    g = torch.Generator(device=device).manual_seed(seed)
    shape = (lambda h: (b, h, s, case.d) if case.layout == "bhsd"  # noqa: E731
             else (b, s, h, case.d))
    q, k, v = (torch.randn(*shape(h), generator=g, device=device)
               .to(torch.bfloat16) for h in (hq, hk, hk))
    dout = torch.randn(*shape(hq), generator=g, device=device).to(torch.bfloat16)
    return q, k, v, dout


def call(case, q, k, v, caps):
    score_mod, mask_mod = case.mods(caps)
    return fat.attention(q, k, v, causal=case.causal, softcap=case.softcap,
                         layout=case.layout, score_mod=score_mod,
                         mask_mod=mask_mod)


def index_grid(b, h, s, device):
    """Broadcast (batch, head, query, key) index tensors [B|1, H|1, S|1, S|1]."""
    return (torch.arange(b, device=device).view(b, 1, 1, 1),
            torch.arange(h, device=device).view(1, h, 1, 1),
            torch.arange(s, device=device).view(1, 1, s, 1),
            torch.arange(s, device=device).view(1, 1, 1, s))


def keep_of(case, caps, grid):
    """[B, Hq, S, S]: the keys the case's causal and mask_mod leave."""
    b, h, _, s = case.shape
    keep = torch.ones(b, h, s, s, dtype=torch.bool, device=grid[0].device)
    if case.causal:
        keep &= grid[3] <= grid[2]
    mask_mod = case.mods(caps)[1]
    if mask_mod is not None:
        keep &= mask_mod(*grid)
    return keep


def reference(case, q, k, v, caps, upcast):
    """The modifiers on the materialized scores (broadcast index tensors),
    in float64 (upcast) or as a plain bf16 implementation; rows without
    keys 0."""
    score_mod = case.mods(caps)[0]
    if case.layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    if upcast:
        q, k, v = (t.double() for t in (q, k, v))
    k = k.repeat_interleave(q.shape[1] // k.shape[1], 1)
    v = v.repeat_interleave(q.shape[1] // v.shape[1], 1)
    grid = index_grid(*q.shape[:3], q.device)
    scores = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(q.shape[-1]))
    if score_mod is not None:
        scores = score_mod(scores if upcast else scores.float(), *grid)
        scores = scores if upcast else scores.to(torch.bfloat16)
    if case.softcap:
        scores = case.softcap * torch.tanh(scores / case.softcap)
    keep = keep_of(case, caps, grid)
    live = keep.any(-1, keepdim=True)
    scores = torch.where(keep, scores, float("-inf"))
    scores = torch.where(live, scores, torch.zeros_like(scores))
    p = torch.softmax(scores if upcast else scores.float(), -1) * live
    o = p.to(v.dtype) @ v
    return o.transpose(1, 2) if case.layout == "bshd" else o


def with_grads(fn, q, k, v, dout):
    leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    out = fn(*leaves)
    return (out,) + torch.autograd.grad(out, leaves, dout.to(out.dtype))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_modifiers_forward_and_backward(case):
    q, k, v, dout = inputs(case)
    caps = captures(case, "cuda")
    got = with_grads(lambda *x: call(case, *x, caps), q, k, v, dout)
    torch.cuda.synchronize()
    ref, low = (with_grads(lambda *x, u=u: reference(case, *x, caps, u),
                           q, k, v, dout) for u in (True, False))
    for name, g, r, p in zip(("o", "dq", "dk", "dv"), got, ref, low):
        assert torch.isfinite(g).all(), (case.name, name)
        err = (g.double() - r).abs().max().item()
        base = (p.double() - r).abs().max().item()
        eps = EPS * max(1.0, r.abs().max().item())
        assert err <= 2 * base + eps, (case.name, name, err, base)
    # Rows without keys (padding queries): O and dQ exactly 0.
    b, h, _, s = case.shape
    empty = ~keep_of(case, caps, index_grid(b, h, s, q.device)).any(-1)
    if empty.any():
        o, dq = got[0], got[1]
        if case.layout == "bshd":
            o, dq = o.transpose(1, 2), dq.transpose(1, 2)
        assert (o[empty] == 0).all() and (dq[empty] == 0).all(), case.name



@pytest.mark.parametrize("case", [c for c in CASES if c.mods(
    captures(c, "cpu"))[1] is not None], ids=lambda c: c.name)
def test_block_mask_matches_the_map_built_per_call(case):
    """attention(..., block_mask=create_block_mask(mask_mod, ...)): the
    forward reuses the map its first call built (the sequence's pre-kernel
    skipped) and gives, bit for bit, what the call building the map gives;
    and so does a second call with the kept map; the backward likewise."""
    q, k, v, _ = inputs(case)
    caps = captures(case, "cuda")
    score_mod, mask_mod = case.mods(caps)
    b, hq, _, s = case.shape
    bm = fat.create_block_mask(mask_mod, b, hq, s, s, device="cuda")
    kw = dict(causal=case.causal, softcap=case.softcap, layout=case.layout,
              score_mod=score_mod, return_lse=True)
    want = fat.attention(q, k, v, mask_mod=mask_mod, **kw)
    for _ in range(2):
        got = fat.attention(q, k, v, block_mask=bm, **kw)
        for g, w in zip(got, want):
            assert torch.equal(g, w), case.name
    assert len(bm._maps) == 1, bm
    # The backward with it (its own, transposed map, kept too): dK and dV
    # bitwise those of the call that builds the map, dQ (added by key
    # blocks in a run-dependent order) within a bf16 rounding.
    _, _, _, dout = inputs(case)
    kw.pop("return_lse")
    want = with_grads(lambda *x: fat.attention(*x, mask_mod=mask_mod, **kw), q, k, v, dout)
    for _ in range(2):
        got = with_grads(lambda *x: fat.attention(*x, block_mask=bm, **kw), q, k, v, dout)
        assert torch.equal(got[2], want[2]) and torch.equal(got[3], want[3]), case.name
        scale = want[1].abs().max().item()
        assert (got[1] - want[1]).abs().max().item() <= 1e-2 * scale, case.name
    assert len(bm._maps) == 2, bm

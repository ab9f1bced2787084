"""fa_mlir.torch.varlen_attention on an sm_90a GPU (the fa.attention_varlen
kernel, one launch for the whole ragged batch) against float64 attention
per sequence, with FlashAttention's criterion: ours <= 2x the error of the
same attention computed in the inputs' dtype (scores and P in bf16/f16,
softmax in float32, as attention_ref with upcast=False), plus 1e-4.

Mixed lengths with empty sequences (no query; no key: O = 0, LSE = -inf),
lengths that are not multiples of 128, one long sequence among many short
ones, GQA (Hq 8, Hkv 2), causal aligned top-left and bottom-right, a
window, softcap, head dims 64 and 128, bf16 and f16. The backward (the
fa.attention_varlen_grad kernel sequence, one launch sequence for the
batch) is checked on two cases: dQ, dK, dV
against float64 autograd, with the same criterion (eps relative to the
gradient's size, as test_gpu_backward.py).

The float64 oracle is one attention over the packed tokens with a
block-diagonal mask (key j is visible to query i only within i's own
sequence, under i's sequence's mask), which is attention per sequence.

The kernels are in configs.json; python/tests/test_gpu_configs.py checks
that on the CPU."""
from dataclasses import dataclass
import math
from typing import Optional, Tuple

import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402

EPS = 1e-4
GRAD_EPS = 1e-3


@dataclass(frozen=True)
class Case:
    name: str
    lengths_q: Tuple[int, ...]
    lengths_k: Tuple[int, ...]
    dtype: torch.dtype = torch.bfloat16
    d: int = 128
    hq: int = 8
    hkv: int = 2
    causal: bool = False
    mask_alignment: Optional[str] = None  # None: top-left
    window: Optional[Tuple[Optional[int], Optional[int]]] = None
    softcap: Optional[float] = None
    backward: bool = False


# Queries and keys per sequence: empty ones (no query: 0 in lengths_q; no
# key: 0 in lengths_k), lengths around and off the 128-row tile.
MIXED_Q = (300, 0, 1, 129, 517, 77, 64, 5)
MIXED_K = (300, 40, 0, 129, 1000, 80, 64, 3)
# One long sequence and many short ones.
LONG_Q = (1500,) + (1, 2, 3, 5, 8, 13, 21, 1, 1, 1)
LONG_K = (2000,) + (1, 3, 2, 8, 5, 13, 34, 1, 0, 2)

CASES = [
    Case("mixed-causal-br-bf16-d128", MIXED_Q, MIXED_K, causal=True,
         mask_alignment="bottom_right", backward=True),
    Case("mixed-causal-tl-bf16-d128", MIXED_Q, MIXED_K, causal=True),
    Case("long-short-bf16-d64", LONG_Q, LONG_K, d=64),
    Case("window-br-bf16-d128", MIXED_Q, MIXED_K, window=(64, 16),
         mask_alignment="bottom_right"),
    Case("softcap-bf16-d128", MIXED_Q, MIXED_K, softcap=30.0),
    Case("mixed-causal-br-f16-d64", MIXED_Q, MIXED_K, dtype=torch.float16,
         d=64, causal=True, mask_alignment="bottom_right", backward=True),
    Case("long-short-f16-d128-mha", LONG_Q, LONG_K, dtype=torch.float16,
         hq=4, hkv=4),
]


def inputs(case, device="cuda", seed=0):
    """q [total_q, hq, d], k/v [total_k, hkv, d], the int32 bounds and a
    dout like the output."""
    g = torch.Generator(device=device).manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, generator=g, device=device).to(case.dtype)
    tq, tk = sum(case.lengths_q), sum(case.lengths_k)
    return dict(q=randn(tq, case.hq, case.d), k=randn(tk, case.hkv, case.d),
                v=randn(tk, case.hkv, case.d),
                cu_q=_bounds(case.lengths_q, device),
                cu_k=_bounds(case.lengths_k, device),
                dout=randn(tq, case.hq, case.d))


def _bounds(lengths, device):
    cu = [0]
    for n in lengths:
        cu.append(cu[-1] + n)
    return torch.tensor(cu, dtype=torch.int32, device=device)


def call(case, x):
    """The call the tests make (test_gpu_configs.py replays it on the CPU)."""
    return fat.varlen_attention(
        x["q"], x["k"], x["v"], x["cu_q"], x["cu_k"], max(case.lengths_q),
        max(case.lengths_k), causal=case.causal,
        mask_alignment=case.mask_alignment, window=case.window,
        softcap=case.softcap, return_lse=True)


def visible(case, device):
    """[total_q, total_k]: key j is visible to query i (same sequence, and
    within its mask, aligned per sequence)."""
    def ids(lengths):
        return torch.repeat_interleave(
            torch.arange(len(lengths), device=device),
            torch.tensor(lengths, device=device))

    def local(lengths):
        starts = torch.tensor((0,) + tuple(lengths[:-1]),
                              device=device).cumsum(0)
        return torch.arange(sum(lengths), device=device) - \
            torch.repeat_interleave(starts, torch.tensor(lengths,
                                                         device=device))
    seq_q, seq_k = ids(case.lengths_q), ids(case.lengths_k)
    pos = local(case.lengths_q)
    if case.mask_alignment == "bottom_right":
        shift = torch.tensor(case.lengths_k, device=device) - \
            torch.tensor(case.lengths_q, device=device)
        pos = pos + shift[seq_q]
    keys = local(case.lengths_k)[None, :]
    left, right = (math.inf, math.inf)
    if case.window is not None:
        left, right = (math.inf if w is None else w for w in case.window)
    if case.causal:
        right = min(right, 0)
    pos = pos[:, None]
    return (seq_q[:, None] == seq_k[None, :]) & (keys <= pos + right) & \
        (keys >= pos - left)


def reference(case, q, k, v, mask, upcast):
    """(out [total_q, hq, d], lse [hq, total_q]) with autograd: in float64
    (upcast), or in the inputs' dtype with a float32 softmax."""
    if upcast:
        q, k, v = (t.double() for t in (q, k, v))
    q, k, v = (t.transpose(0, 1) for t in (q, k, v))
    k, v = (t.repeat_interleave(case.hq // case.hkv, 0) for t in (k, v))
    s = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(case.d))
    if case.softcap is not None:
        s = case.softcap * torch.tanh(s / case.softcap)
    s = s.masked_fill(~mask, float("-inf"))
    s = s if upcast else s.float()
    lse = torch.logsumexp(s, -1)
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return (p.to(v.dtype) @ v).transpose(0, 1), lse


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_varlen_against_float64(case):
    x = inputs(case)
    out, lse = call(case, x)
    torch.cuda.synchronize()
    tq = x["q"].shape[0]
    assert out.shape == (tq, case.hq, case.d) and out.dtype == case.dtype
    assert lse.shape == (case.hq, tq) and lse.dtype == torch.float32
    mask = visible(case, x["q"].device)
    ref, ref_lse = reference(case, x["q"], x["k"], x["v"], mask, True)
    low, _ = reference(case, x["q"], x["k"], x["v"], mask, False)
    err = (out.double() - ref).abs().max().item()
    base = (low.double() - ref).abs().max().item()
    assert err <= 2 * base + EPS, (case.name, err, base)
    # Rows without a visible key (the sequences without keys among them):
    # O = 0 and LSE = -inf exactly.
    empty = torch.isneginf(ref_lse)
    assert torch.equal(torch.isneginf(lse), empty), case.name
    assert torch.all(out.transpose(0, 1)[empty] == 0), case.name
    finite = ~empty
    assert (lse.double()[finite] - ref_lse[finite]).abs().max() < 1e-3


def test_sequences_without_keys_give_zero_and_neg_inf():
    case = CASES[0]
    x = inputs(case)
    out, lse = call(case, x)
    torch.cuda.synchronize()
    start = sum(case.lengths_q[:2])  # sequence 2: one query, no key
    assert case.lengths_q[2] == 1 and case.lengths_k[2] == 0
    assert torch.all(out[start] == 0)
    assert torch.all(torch.isneginf(lse[:, start]))


def _grads(fn, x):
    q, k, v = (x[n].detach().clone().requires_grad_() for n in "qkv")
    out = fn(q, k, v)
    return torch.autograd.grad(out, (q, k, v), x["dout"].to(out.dtype))


BACKWARD = [c for c in CASES if c.backward]


@pytest.mark.parametrize("case", BACKWARD, ids=[c.name for c in BACKWARD])
def test_varlen_backward_against_float64(case):
    x = inputs(case, seed=1)
    mask = visible(case, x["q"].device)
    got = _grads(lambda q, k, v: call(case, dict(x, q=q, k=k, v=v))[0], x)
    torch.cuda.synchronize()
    ref = _grads(lambda q, k, v: reference(case, q, k, v, mask, True)[0], x)
    low = _grads(lambda q, k, v: reference(case, q, k, v, mask, False)[0], x)
    for name, g, r, p in zip(("dq", "dk", "dv"), got, ref, low):
        assert g.dtype == case.dtype and g.shape == r.shape, name
        err = (g.double() - r).abs().max().item()
        base = (p.double() - r).abs().max().item()
        eps = GRAD_EPS * max(1.0, r.abs().max().item())
        assert err <= 2 * base + eps, (case.name, name, err, base)
    # Queries of the sequence without keys, keys of the one without
    # queries: zero gradients.
    start_q, start_k = sum(case.lengths_q[:2]), sum(case.lengths_k[:1])
    assert torch.all(got[0][start_q] == 0)
    assert torch.all(got[1][start_k:start_k + case.lengths_k[1]] == 0)

"""score_mod/mask_mod through fa_mlir.torch.varlen_attention and
attention_with_kvcache on CUDA sm_90a: the traced regions compiled into
the fa.attention_varlen kernel and the fa.attention_kvcache sequence, their
captured tensors passed to the launch. Each sequence's O and LSE against
float64 in plain PyTorch with FlashAttention's criterion (at most twice the
error of the same attention in bf16, scores and P in bf16 with a float32
softmax, plus 1e-4; LSE within 1e-3), and O = 0, LSE = -inf exactly on rows
without a visible key.

The positions (docs/Modifiers.md, *On the inference ops*): b is the
sequence; a ragged batch's q_idx and kv_idx count from 0 in the sequence;
a KV cache's kv_idx is the key's position and q_idx the query's absolute
one, cache_seqlens + new - Sq + i. The tables are per (sequence,
position), so a wrong b or a query position counted from 0 fails.
Modifiers: ALiBi with a document mask (causal), a T5 bucketed bias with
prefix-LM; ragged batches with sequences without queries or keys; KV
caches contiguous and paged, with and without appended tokens. And the
backward's refusal: fa.attention_varlen_grad takes no regions, so a
backward through the output raises instead of dropping them.

Every kernel these tests ask for is in configs.json
(python/tests/test_gpu_configs.py checks that on the CPU).
"""
from dataclasses import dataclass
import math
from typing import Tuple

import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.errors import UnsupportedError  # noqa: E402
from _flex_mods import alibi, document, prefix_lm, t5  # noqa: E402

EPS = 1e-4
HQ, HKV = 8, 2
POSITIONS = 1024  # the per-sequence tables' width


# name -> (captures -> score_mod, captures -> mask_mod)
MODS = {"alibi_document": (lambda c: alibi(c["slopes"]), lambda c: document(c["docs"])),
        "t5_prefix_lm": (lambda c: t5(c["table"]), lambda c: prefix_lm(c["prefix"]))}


def captures(batch, device, seed=5):
    """ALiBi slopes [Hq], document ids [B, POSITIONS] (sorted, different in
    every sequence), a T5 table [Hq, 32], prefix lengths [B]."""
    g = torch.Generator().manual_seed(seed)
    docs = torch.sort(torch.randint(0, 6, (batch, POSITIONS), generator=g),
                      dim=1).values.to(torch.int32)
    return dict(
        slopes=(2.0 ** (-8.0 * torch.arange(1, HQ + 1) / HQ)).to(device),
        docs=docs.to(device),
        table=torch.randn(HQ, 32, generator=g).to(device),
        prefix=torch.randint(0, 200, (batch,), generator=g,
                             dtype=torch.int32).to(device))


def functions(name, caps):
    score_mod, mask_mod = MODS[name]
    return dict(score_mod=score_mod(caps), mask_mod=mask_mod(caps))


def sequence_reference(q, k, v, b, q_pos, caps, name, causal, upcast):
    """(out [Sq, Hq, D], lse [Hq, Sq]) of one sequence, the modifiers on
    its materialized scores (broadcast int32 index tensors): float64
    (upcast), or bf16 scores and P with a float32 softmax."""
    fns = functions(name, caps)
    dtype = torch.float64 if upcast else q.dtype
    q, k, v = (t.to(dtype).transpose(0, 1) for t in (q, k, v))
    k, v = (t.repeat_interleave(HQ // HKV, 0) for t in (k, v))
    dev = q.device
    h = torch.arange(HQ, device=dev, dtype=torch.int32)[:, None, None]
    i = q_pos.to(torch.int32)[None, :, None]
    j = torch.arange(k.shape[1], device=dev, dtype=torch.int32)[None, None]
    seq = torch.tensor(b, dtype=torch.int32, device=dev)
    s = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(q.shape[-1]))
    s = fns["score_mod"](s if upcast else s.float(), seq, h, i, j)
    s = s if upcast else s.to(dtype)
    keep = fns["mask_mod"](seq, h, i, j)
    if causal:
        keep = keep & (j <= i)
    s = s.masked_fill(~keep, float("-inf"))
    s = s if upcast else s.float()
    lse = torch.logsumexp(s, -1)
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return (p.to(v.dtype) @ v).transpose(0, 1), lse


def check_sequence(what, out, lse, q, k, v, b, q_pos, caps, name, causal):
    ref, ref_lse = sequence_reference(q, k, v, b, q_pos, caps, name, causal,
                                      True)
    low, _ = sequence_reference(q, k, v, b, q_pos, caps, name, causal,
                                False)
    err = (out.double() - ref).abs().max().item()
    base = (low.double() - ref).abs().max().item()
    assert err <= 2 * base + EPS, (what, err, base)
    empty = torch.isneginf(ref_lse)
    assert torch.equal(torch.isneginf(lse), empty), what
    assert torch.all(out.transpose(0, 1)[empty] == 0), what
    if (~empty).any():
        assert (lse.double()[~empty] - ref_lse[~empty]).abs().max() < 1e-3


# -- ragged batches ------------------------------------------------------------

@dataclass(frozen=True)
class VarlenCase:
    name: str
    mods: str
    lengths_q: Tuple[int, ...]
    lengths_k: Tuple[int, ...]
    d: int = 128
    causal: bool = False


# Sequence 1 has no query, sequence 2 no key; lengths off the tiles.
MIXED_Q = (300, 0, 1, 129, 517, 77)
MIXED_K = (300, 40, 0, 129, 700, 80)
VARLEN_CASES = [
    VarlenCase("vl-alibi-document-causal-d128", "alibi_document", MIXED_Q,
               MIXED_K, causal=True),
    VarlenCase("vl-t5-prefix-lm-d64", "t5_prefix_lm", MIXED_Q, MIXED_K,
               d=64),
]


def _bounds(lengths, device):
    return torch.tensor((0,) + tuple(lengths), dtype=torch.int64,
                        device=device).cumsum(0).to(torch.int32)


def varlen_inputs(case, device="cuda", seed=0):
    g = torch.Generator(device=device).manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, generator=g, device=device).bfloat16()
    tq, tk = sum(case.lengths_q), sum(case.lengths_k)
    return dict(q=randn(tq, HQ, case.d), k=randn(tk, HKV, case.d),
                v=randn(tk, HKV, case.d), cu_q=_bounds(case.lengths_q, device),
                cu_k=_bounds(case.lengths_k, device))


def varlen_call(case, x, caps):
    """The call the tests make (test_gpu_configs.py replays it on the CPU)."""
    return fat.varlen_attention(
        x["q"], x["k"], x["v"], x["cu_q"], x["cu_k"], max(case.lengths_q),
        max(case.lengths_k), causal=case.causal, return_lse=True,
        **functions(case.mods, caps))


@pytest.mark.parametrize("case", VARLEN_CASES,
                         ids=[c.name for c in VARLEN_CASES])
def test_varlen_against_float64(case):
    x = varlen_inputs(case)
    caps = captures(len(case.lengths_q), "cuda")
    out, lse = varlen_call(case, x, caps)
    torch.cuda.synchronize()
    q0 = k0 = 0
    for b, (sq, sk) in enumerate(zip(case.lengths_q, case.lengths_k)):
        rows, keys = slice(q0, q0 + sq), slice(k0, k0 + sk)
        q0, k0 = q0 + sq, k0 + sk
        if sq:
            check_sequence(f"{case.name} sequence {b}", out[rows],
                           lse[:, rows], x["q"][rows], x["k"][keys],
                           x["v"][keys], b, torch.arange(sq, device="cuda"),
                           caps, case.mods, case.causal)


def test_varlen_backward_with_modifiers_raises():
    """fa.attention_varlen_grad takes no regions: the forward runs and a
    backward through its output raises, naming the arguments."""
    case = VARLEN_CASES[0]
    x = varlen_inputs(case)
    x["q"].requires_grad_()
    out, _ = varlen_call(case, x, captures(len(case.lengths_q), "cuda"))
    with pytest.raises(UnsupportedError, match="score_mod and mask_mod on "
                       "CUDA"):
        out.sum().backward()


# -- KV caches -------------------------------------------------------------------

@dataclass(frozen=True)
class KVCase:
    name: str
    mods: str
    page_size: int = 0  # 0: contiguous caches
    seq_new: int = 0
    causal: bool = False


CACHED = (100, 0, 250)  # keys cached per sequence before the call
SQ, CAPACITY, D_KV = 2, 320, 128
KV_CASES = [
    KVCase("kv-alibi-document-causal-contiguous", "alibi_document",
           causal=True),
    KVCase("kv-alibi-document-causal-paged64-append", "alibi_document",
           page_size=64, seq_new=3, causal=True),
    KVCase("kv-t5-prefix-lm-paged64", "t5_prefix_lm", page_size=64),
    KVCase("kv-t5-prefix-lm-contiguous-append", "t5_prefix_lm", seq_new=3),
]


def kv_inputs(case, device="cuda", seed=1):
    """The call's tensors and each sequence's keys and values in order
    (the oracle's view, the appended tokens included)."""
    g = torch.Generator(device=device).manual_seed(seed)
    batch = len(CACHED)

    def randn(*shape):
        return torch.randn(*shape, generator=g, device=device).bfloat16()
    keys = randn(batch, CAPACITY, HKV, D_KV)
    values = randn(batch, CAPACITY, HKV, D_KV)
    x = dict(q=randn(batch, SQ, HQ, D_KV),
             lens=torch.tensor(CACHED, dtype=torch.int32, device=device),
             k=None, v=None, table=None)
    if case.seq_new:
        x["k"] = randn(batch, case.seq_new, HKV, D_KV)
        x["v"] = randn(batch, case.seq_new, HKV, D_KV)
    if case.page_size:
        per = CAPACITY // case.page_size
        pages = batch * per + 3
        perm = torch.randperm(pages, generator=torch.Generator().manual_seed(
            seed))[:batch * per]
        x["table"] = perm.reshape(batch, per).to(torch.int32).to(device)
        x["k_cache"] = randn(pages, case.page_size, HKV, D_KV)
        x["v_cache"] = randn(pages, case.page_size, HKV, D_KV)
        for b in range(batch):
            for p in range(per):
                rows = slice(p * case.page_size, (p + 1) * case.page_size)
                x["k_cache"][x["table"][b, p]] = keys[b, rows]
                x["v_cache"][x["table"][b, p]] = values[b, rows]
    else:
        x["k_cache"], x["v_cache"] = keys.clone(), values.clone()
    sequences = []
    for b, n in enumerate(CACHED):
        kb, vb = keys[b, :n], values[b, :n]
        if case.seq_new:
            kb, vb = torch.cat([kb, x["k"][b]]), torch.cat([vb, x["v"][b]])
        sequences.append((kb, vb))
    return x, sequences


def kv_call(case, x, caps):
    """The call the tests make (test_gpu_configs.py replays it on the CPU)."""
    return fat.attention_with_kvcache(
        x["q"], x["k_cache"], x["v_cache"], cache_seqlens=x["lens"],
        block_table=x["table"], k=x["k"], v=x["v"], causal=case.causal,
        return_lse=True, **functions(case.mods, caps))


@pytest.mark.parametrize("case", KV_CASES, ids=[c.name for c in KV_CASES])
def test_kvcache_against_float64(case):
    x, sequences = kv_inputs(case)
    caps = captures(len(CACHED), "cuda")
    out, lse = kv_call(case, x, caps)
    torch.cuda.synchronize()
    for b, (kb, vb) in enumerate(sequences):
        n = kb.shape[0]
        if n == 0:  # no key: O = 0, LSE = -inf
            assert (out[b] == 0).all() and torch.isneginf(lse[b]).all()
            continue
        positions = n - SQ + torch.arange(SQ, device="cuda")
        check_sequence(f"{case.name} sequence {b}", out[b], lse[b], x["q"][b],
                       kb, vb, b, positions, caps, case.mods, case.causal)

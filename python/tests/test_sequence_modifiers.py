"""score_mod/mask_mod on fa_mlir.torch.varlen_attention and
attention_with_kvcache, on the CPU (issue 35, the serving calls).

Each call is checked per sequence against float64 in plain PyTorch with
FlashAttention's criterion relative to a plain bf16 implementation, with
the positions docs/Modifiers.md fixes for the ops: b is the sequence; on a
ragged batch q_idx and kv_idx count from 0 in the sequence, on a KV cache
kv_idx is the key's position and q_idx the query's absolute position
(cache_seqlens + new - Sq + i). The tables are per sequence and position,
so a wrong b or a query position counted from 0 fails. Modifiers: ALiBi
with a document mask (causal), a T5-style bucketed bias (its table a
capture) with prefix-LM; a ragged batch with a sequence without queries
and one without keys, forward and backward; KV caches contiguous and
paged, with and without appended k/v. Then the rebased regions, the
refusals (an untraceable function, captures of another device or dtype,
gradients that are not computed) and the CUDA route's capture operands.
"""
import math
import os

import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import compiler  # noqa: E402
from fa_mlir.errors import (ArgumentError, RuntimeLibraryError,  # noqa: E402
                            UnsupportedError)
from fa_mlir.spec import KernelConfig  # noqa: E402
from fa_mlir.torch import _ops, modifiers  # noqa: E402
from fa_mlir.torch._sequence_mods import SequenceModifiers  # noqa: E402

from _cuda_route import Routed, fa_opt_output, needs_fa_opt  # noqa: E402
from _fake_cuda import fake_cuda, fake_cuda_capture  # noqa: E402
from _util import within_criterion  # noqa: E402
import _flex_mods as flex_mods  # noqa: E402

HQ, HKV, D = 4, 2, 16
gen = torch.Generator().manual_seed(7)
SLOPES = 2.0 ** (-8.0 * torch.arange(1, HQ + 1) / HQ)
NUM_BUCKETS, MAX_DISTANCE = 16, 40
TABLE = torch.randn(HQ, NUM_BUCKETS, generator=gen)
POSITIONS = 80  # positions the per-sequence tables cover
# Document ids per (sequence, position), different in every sequence:
# documents of 6 + 3 b tokens starting at offset b.
DOCS = torch.stack([(torch.arange(POSITIONS) + b) // (6 + 3 * b)
                    for b in range(5)]).to(torch.int32)
PREFIX = torch.tensor([2, 9, 0, 4, 25])  # prefix-LM lengths per sequence


def alibi(score, b, h, q_idx, kv_idx):
    return score + SLOPES[h] * (kv_idx - q_idx)


def document(b, h, q_idx, kv_idx):
    return DOCS[b, q_idx] == DOCS[b, kv_idx]


def t5(score, b, h, q_idx, kv_idx):
    rel = kv_idx - q_idx
    half, exact = NUM_BUCKETS // 2, NUM_BUCKETS // 4
    dist = rel.abs()
    ratio = torch.clamp(dist, min=1).float() / exact
    large = exact + (torch.log(ratio) / math.log(MAX_DISTANCE / exact)
                     * (half - exact)).to(torch.int64)
    bucket = torch.where(rel > 0, half, 0) + torch.where(
        dist < exact, dist, torch.clamp(large, max=half - 1))
    return score + TABLE[h, bucket]


def prefix_lm(b, h, q_idx, kv_idx):
    return (kv_idx <= q_idx) | (kv_idx < PREFIX[b])


CASES = {
    "alibi_document_causal": dict(score_mod=alibi, mask_mod=document,
                                  causal=True),
    "t5_prefix_lm": dict(score_mod=t5, mask_mod=prefix_lm),
}


# -- the float64 oracle and the plain bf16 baseline, per sequence -----------

def sequence_attention(q, k, v, b, q_pos, dtype, score_mod=None,
                       mask_mod=None, causal=False):
    """(out [Sq, Hq, D], lse [Hq, Sq]) of one sequence in `dtype` (float64:
    the oracle; bf16: scores and P in bf16, softmax in float32). q [Sq,
    Hq, D], k/v [Sk, Hkv, D]; q_pos: the queries' positions (the keys'
    are 0 ..). The functions see FlexAttention's int32 index tensors."""
    q, k, v = (x.to(dtype).transpose(0, 1) for x in (q, k, v))
    k = k.repeat_interleave(HQ // HKV, dim=0)
    v = v.repeat_interleave(HQ // HKV, dim=0)
    h = torch.arange(HQ, dtype=torch.int32)[:, None, None]
    i = q_pos.to(torch.int32)[None, :, None]
    j = torch.arange(k.shape[1], dtype=torch.int32)[None, None, :]
    seq = torch.tensor(b, dtype=torch.int32)
    s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(D))
    if score_mod is not None:
        low = dtype != torch.float64
        s = score_mod(s.float() if low else s, seq, h, i, j).to(dtype)
    keep = torch.ones(s.shape, dtype=torch.bool)
    if causal:
        keep &= j <= i
    if mask_mod is not None:
        keep &= mask_mod(seq, h, i, j)
    s = s.masked_fill(~keep, float("-inf"))
    work = s if dtype == torch.float64 else s.float()
    lse = torch.logsumexp(work, dim=-1)
    p = torch.nan_to_num(torch.softmax(work, dim=-1), nan=0.0).to(dtype)
    return (p @ v).transpose(0, 1), lse


def check(ours, ref, base, what):
    ok, (err, baseline) = within_criterion(
        ours.double().detach().numpy(), ref.detach().numpy(),
        base.double().detach().numpy(), "bf16")
    assert ok, f"{what}: error {err:.3g}, bf16 baseline {baseline:.3g}"


def check_lse(ours, ref, what):
    hidden = torch.isneginf(ref)
    assert torch.equal(torch.isneginf(ours), hidden), what
    err = (ours.double() - ref)[~hidden].abs()
    assert (err <= 2e-4 * ref[~hidden].abs().clamp(min=1)).all(), \
        f"{what}: LSE error {err.max():.3g}"


# -- ragged batches ------------------------------------------------------------

# Sequence 1 has no query, sequence 2 no key; the rest straddle the 64-row
# tiles.
CU_Q = [0, 3, 3, 10, 11, 81]
CU_K = [0, 5, 9, 9, 29, 99]


def spans(cu):
    return list(zip(cu, cu[1:]))


def varlen_inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(n, h, D, generator=g).bfloat16().requires_grad_()
            for n, h in ((CU_Q[-1], HQ), (CU_K[-1], HKV), (CU_K[-1], HKV))]


def varlen_reference(q, k, v, dtype, **kw):
    """The packed output and LSE, each sequence computed alone."""
    outs, lses = [], []
    for b, ((q0, q1), (k0, k1)) in enumerate(zip(spans(CU_Q), spans(CU_K))):
        o, lse = sequence_attention(q[q0:q1], k[k0:k1], v[k0:k1], b,
                                    torch.arange(q1 - q0), dtype, **kw)
        outs.append(o)
        lses.append(lse)
    return torch.cat(outs), torch.cat(lses, dim=1)


def cu(values):
    return torch.tensor(values, dtype=torch.int32)


@pytest.mark.parametrize("case", list(CASES))
def test_varlen_forward_and_backward_against_float64(case):
    kw = CASES[case]
    q, k, v = varlen_inputs()
    exact = [x.detach().double().requires_grad_() for x in (q, k, v)]
    out, lse = fat.varlen_attention(q, k, v, cu(CU_Q), cu(CU_K), 70, 70,
                                    return_lse=True, **kw)
    ref, ref_lse = varlen_reference(*exact, torch.float64, **kw)
    base, _ = varlen_reference(q, k, v, torch.bfloat16, **kw)
    do = torch.randn(out.shape, generator=torch.Generator().manual_seed(3))
    grads = torch.autograd.grad(out, (q, k, v), do.bfloat16())
    want = torch.autograd.grad(ref, exact, do.double())
    have = torch.autograd.grad(base, (q, k, v), do.bfloat16())
    for (q0, q1), (k0, k1) in zip(spans(CU_Q), spans(CU_K)):
        if q1 == q0:
            continue
        what = f"{case} sequence {q0}:{q1}"
        if k1 == k0:  # no key: O = 0, LSE = -inf, no gradient
            assert (out[q0:q1] == 0).all() and (grads[0][q0:q1] == 0).all()
            assert torch.isneginf(lse[:, q0:q1]).all()
            continue
        check(out[q0:q1], ref[q0:q1], base[q0:q1], f"{what} forward")
        check_lse(lse[:, q0:q1], ref_lse[:, q0:q1], what)
        for name, g, r, bl, (a, z) in zip(
                ("dq", "dk", "dv"), grads, want, have,
                ((q0, q1), (k0, k1), (k0, k1))):
            check(g[a:z], r[a:z], bl[a:z], f"{what} {name}")


# -- KV caches -------------------------------------------------------------------

CACHED = [5, 0, 37]  # keys cached per sequence before the call
SQ, SNEW, CAPACITY, PAGE = 2, 2, 48, 16


def cache_inputs(paged, append, seed=1):
    """q [B, SQ, Hq, D]; the caches (contiguous [B, CAPACITY, Hkv, D], or
    pages [12, PAGE, Hkv, D] in a scattered block table [B, 3]) and the
    same keys per sequence in order (the oracle's view); new tokens."""
    g = torch.Generator().manual_seed(seed)
    batch = len(CACHED)

    def randn(*shape):
        return torch.randn(*shape, generator=g).bfloat16()
    q = randn(batch, SQ, HQ, D)
    keys, values = randn(batch, CAPACITY, HKV, D), randn(batch, CAPACITY,
                                                         HKV, D)
    new = (randn(batch, SNEW, HKV, D), randn(batch, SNEW, HKV, D)) \
        if append else (None, None)
    if not paged:
        return q, keys.clone(), values.clone(), None, (keys, values), new
    table = torch.randperm(12, generator=g)[:batch * 3].reshape(batch, 3)
    k_cache, v_cache = randn(12, PAGE, HKV, D), randn(12, PAGE, HKV, D)
    for b in range(batch):
        for p in range(3):
            rows = slice(p * PAGE, (p + 1) * PAGE)
            k_cache[table[b, p]] = keys[b, rows]
            v_cache[table[b, p]] = values[b, rows]
    return (q, k_cache, v_cache, table.to(torch.int32), (keys, values), new)


FORMS = {"contiguous": (False, False), "contiguous_append": (False, True),
         "paged": (True, False), "paged_append": (True, True)}
KV_CALLS = [(form, "alibi_document_causal") for form in FORMS] + [
    ("paged_append", "t5_prefix_lm")]


@pytest.mark.parametrize("form, case", KV_CALLS,
                         ids=[f"{f}-{c}" for f, c in KV_CALLS])
def test_kvcache_against_float64(form, case):
    kw = CASES[case]
    paged, append = FORMS[form]
    q, k_cache, v_cache, table, (keys, values), new = cache_inputs(paged,
                                                                   append)
    out, lse = fat.attention_with_kvcache(
        q, k_cache, v_cache, cache_seqlens=cu(CACHED), block_table=table,
        k=new[0], v=new[1], return_lse=True, **kw)
    for b, cached in enumerate(CACHED):
        kb, vb = keys[b, :cached], values[b, :cached]
        if append:
            kb, vb = torch.cat([kb, new[0][b]]), torch.cat([vb, new[1][b]])
        n = kb.shape[0]
        if n == 0:  # no key: O = 0, LSE = -inf
            assert (out[b] == 0).all() and torch.isneginf(lse[b]).all()
            continue
        positions = n - SQ + torch.arange(SQ)  # the last SQ tokens
        ref, ref_lse = sequence_attention(q[b], kb, vb, b, positions,
                                          torch.float64, **kw)
        base, _ = sequence_attention(q[b], kb, vb, b, positions,
                                     torch.bfloat16, **kw)
        check(out[b], ref, base, f"{form} {case} sequence {b}")
        check_lse(lse[b], ref_lse, f"{form} {case} sequence {b}")


# -- the rebased regions ---------------------------------------------------------

def test_regions_are_rebased_only_where_they_read_the_positions():
    """On the CPU each sequence runs the dense kernel: a region reading b
    (or, on a KV cache, q_idx) reads them from one more capture, (sequence,
    query offset), passed per sequence; one that reads neither keeps the
    dense call's kernel (no capture added)."""
    mods = modifiers.trace("t", alibi, None)
    varlen = SequenceModifiers(mods, rebase_q=False)
    assert varlen.of(3, 0, torch.device("cpu")) is mods
    kv = SequenceModifiers(mods, rebase_q=True).of(2, 35, torch.device("cpu"))
    assert kv.capture_types == mods.capture_types + ("tensor<?xi64>",)
    assert kv.captures[:-1] == mods.captures
    assert kv.captures[-1].tolist() == [2, 35]
    assert "%seq_q_idx = arith.addi %q_idx, %seq_off : index" in kv.score_mod
    assert "%seq_b" not in kv.score_mod  # alibi does not read b
    both = SequenceModifiers(modifiers.trace("t", t5, document),
                             rebase_q=False).of(1, 0, torch.device("cpu"))
    for text in (both.score_mod, both.mask_mod):  # every region takes it
        assert f"%cap{len(both.captures) - 1}: tensor<?xi64>):" in text
    assert "tensor.extract %cap1[%seq_b, %q_idx]" in both.mask_mod
    assert "%seq_q_idx" not in both.mask_mod  # a ragged batch's i is local


# -- refusals ------------------------------------------------------------------

def untraceable(score, b, h, q_idx, kv_idx):
    if q_idx > kv_idx:  # Python control flow on a traced value
        return score
    return -score


META_DOCS, HALF_SLOPES = DOCS.to("meta"), SLOPES.half()


def serving_calls(**kw):
    """Both calls on small CPU inputs with `kw` added."""
    q, k, v = (x.detach() for x in varlen_inputs())
    qc, kc, vc, _, _, _ = cache_inputs(paged=False, append=False)
    return [
        lambda: fat.varlen_attention(q, k, v, cu(CU_Q), cu(CU_K), 70, 70,
                                     **kw),
        lambda: fat.attention_with_kvcache(qc, kc, vc, cache_seqlens=cu(
            CACHED), **kw)]


@pytest.mark.parametrize("kw, error, message", [
    (dict(score_mod=untraceable), ArgumentError,
     r"score_mod 'untraceable' \(test_sequence_modifiers.py:\d+\) cannot be "
     r"traced at test_sequence_modifiers.py:\d+: it needs the value"),
    (dict(mask_mod=lambda b, h, q_idx: True), ArgumentError,
     "mask_mod .* must take 4 positional arguments"),
    (dict(mask_mod=lambda b, h, i, j: META_DOCS[b, i] == 0),
     ArgumentError, r"mask_mod's captured tensor #0 \(shape \[5, 80\], "
     r"torch.int32\) is on meta, expected cpu"),
    (dict(score_mod=lambda s, b, h, i, j: s + HALF_SLOPES[h]),
     ArgumentError, "score_mod .* reads a tensor of dtype torch.float16"),
], ids=["untraceable", "arity", "device", "dtype"])
def test_refusals_name_the_argument(kw, error, message):
    for call, where in zip(serving_calls(**kw), ("varlen_attention",
                                                 "attention_with_kvcache")):
        with pytest.raises(error, match=f"fa_mlir.torch.{where}: {message}"):
            call()


def test_a_capture_that_requires_grad_is_refused():
    """The kernels compute no gradient for a captured tensor: one that
    requires grad is refused (with grad enabled), not left without one."""
    slopes = SLOPES.clone().requires_grad_()

    def learned(score, b, h, q_idx, kv_idx):
        return score + slopes[h] * (kv_idx - q_idx)
    for call in serving_calls(score_mod=learned):
        with pytest.raises(UnsupportedError, match="captured tensor #0 .* "
                           "requires grad; gradients of captured tensors "
                           "are not computed"):
            call()


def test_cuda_varlen_backward_with_regions_raises():
    """On CUDA fa.attention_varlen_grad takes no regions: the forward runs
    (the sm_90a fa.attention_varlen), and a backward through its output
    raises naming the argument instead of a gradient without them."""
    launched = []

    def run_varlen(q, k, v, cu_q, cu_k, *options):
        launched.append(options)
        return [torch.zeros(q.shape, dtype=q.dtype),
                torch.zeros((q.shape[1], q.shape[0]))]
    mp = pytest.MonkeyPatch()
    mp.setattr(_ops, "run_varlen", run_varlen)
    mp.setattr(_ops, "run_varlen_backward", lambda *a: pytest.fail(
        "the varlen backward ran without the regions"))
    try:
        q, k, v = (fake_cuda(x.detach()).requires_grad_()
                   for x in varlen_inputs())
        docs = fake_cuda_capture(DOCS)
        out = fat.varlen_attention(
            q, k, v, fake_cuda(cu(CU_Q)), fake_cuda(cu(CU_K)), 70, 70,
            mask_mod=lambda b, h, i, j: docs[b, i] == docs[b, j])
        (options,) = launched  # ..., score_mod, mask_mod, captures
        assert options[-3] == "" and "tensor.extract %cap0" in options[-2]
        assert options[-1] == [docs]
        with pytest.raises(UnsupportedError, match="varlen_attention: no "
                           "gradient through an output computed with "
                           "mask_mod on CUDA"):
            out.sum().backward()
    finally:
        mp.undo()


def test_kernel_config_takes_regions_on_the_serving_ops():
    mods = modifiers.trace("t", alibi, document)
    regions = dict(score_mod=mods.score_mod, mask_mod=mods.mask_mod,
                   captures=mods.capture_types)
    serving = dict(dtype="bf16", head_dim=128, layout="bshd")
    for op, extra in (("varlen", {}), ("kvcache", dict(page_size=64,
                                                       append=True))):
        kcfg = KernelConfig(op=op, **serving, **extra, **regions)
        assert KernelConfig.from_dict(kcfg.to_dict()) == kcfg
        kcfg.check_target("sm_90a")
    backward = KernelConfig(op="varlen_backward", **serving, **regions)
    with pytest.raises(UnsupportedError, match="op varlen_backward with "
                       "score_mod/mask_mod: the sm_90a "
                       "fa.attention_varlen_grad takes no regions"):
        backward.check_target("sm_90a")
    with pytest.raises(ArgumentError, match="score_mod/mask_mod are for op "
                       "forward, backward, kvcache, varlen, varlen_backward, "
                       "got op 'combine'"):
        KernelConfig(op="combine", dtype="bf16", head_dim=128, **regions)


# -- sm_90a: the MLIR fa-compile gets and the CUDA route's operands ----------

TRACED = modifiers.trace("t", alibi, document)
SM90A = {
    "varlen": KernelConfig(op="varlen", dtype="bf16", head_dim=128,
                           layout="bshd", causal=True, heads_q=8, heads_kv=2,
                           score_mod=TRACED.score_mod,
                           mask_mod=TRACED.mask_mod,
                           captures=TRACED.capture_types),
}
SM90A["kvcache"] = SM90A["varlen"].with_(op="kvcache", page_size=64,
                                         append=True)


@needs_fa_opt
@pytest.mark.parametrize("op", list(SM90A))
def test_sm90a_mlir_carries_captures_and_regions(op, tmp_path):
    text = compiler._sm90a_mlir(SM90A[op])
    assert ("%capture0: tensor<?xf32>, %capture1: tensor<?x?xi32>) -> "
            in text)
    assert (" captures(%capture0, %capture1 : tensor<?xf32>, "
            "tensor<?x?xi32>) {causal" in text)
    assert "score_mod {" in text and "mask_mod {" in text
    assert f"fa.attention_{op}" in fa_opt_output(text, tmp_path)


needs_fa_compile = pytest.mark.skipif(not os.path.exists(os.path.join(
    compiler.build_dir(), "bin", "fa-compile")),
    reason="no fa-compile in this build")


@pytest.fixture(scope="module")
def sm90a_bundles(tmp_path_factory):
    """fa-compile's bundles of SM90A (about a second each)."""
    out = {}
    for op, kcfg in SM90A.items():
        path = str(tmp_path_factory.mktemp(op) / "b")
        compiler.build_bundle(kcfg, "sm_90a", path)
        out[op] = fa_mlir.load_bundle(path)
    return out


def cuda_modifiers():
    """alibi and document over tables posing as CUDA tensors."""
    slopes = fake_cuda_capture(SLOPES.clone())
    docs = fake_cuda_capture(DOCS.clone())
    return (dict(score_mod=flex_mods.alibi(slopes), mask_mod=flex_mods.document(docs)),
            (slopes, docs))


def check_captures_launched(routed, bundle, captures):
    """The route asked for the regions' config and passed each capture as
    capture<i>, which libfa_runtime's check requires (Routed's launch is
    that check: it would have refused a launch without them)."""
    (asked,) = routed.asked
    assert asked == bundle.config
    (tensors,) = routed.launched
    for i, c in enumerate(captures):
        assert tensors[f"capture{i}"] is c
    without = {r: t for r, t in tensors.items() if r != "capture1"}
    with pytest.raises(RuntimeLibraryError, match="missing operand "
                       "'capture1'"):
        bundle.check({r: fa_mlir.torch._convert.runtime_tensor(t)
                      for r, t in without.items()})


@needs_fa_compile
def test_cuda_varlen_passes_the_captures(monkeypatch, sm90a_bundles):
    bundle = sm90a_bundles["varlen"]
    routed = Routed(monkeypatch, bundle)
    kw, captures = cuda_modifiers()
    g = torch.Generator().manual_seed(0)
    q, k, v = (fake_cuda(torch.randn(n, h, 128, generator=g).bfloat16())
               for n, h in ((CU_Q[-1], 8), (CU_K[-1], 2), (CU_K[-1], 2)))
    out = fat.varlen_attention(q, k, v, fake_cuda(cu(CU_Q)),
                               fake_cuda(cu(CU_K)), 70, 70, causal=True, **kw)
    assert out.shape == q.shape
    check_captures_launched(routed, bundle, captures)


@needs_fa_compile
def test_cuda_kvcache_passes_the_captures(monkeypatch, sm90a_bundles):
    bundle = sm90a_bundles["kvcache"]
    routed = Routed(monkeypatch, bundle)
    kw, captures = cuda_modifiers()
    g = torch.Generator().manual_seed(0)

    def randn(*shape):
        return fake_cuda(torch.randn(*shape, generator=g).bfloat16())
    q = randn(3, SQ, 8, 128)
    table = fake_cuda(torch.arange(6, dtype=torch.int32).reshape(3, 2))
    out = fat.attention_with_kvcache(
        q, randn(6, 64, 2, 128), randn(6, 64, 2, 128),
        cache_seqlens=fake_cuda(cu(CACHED)), block_table=table,
        k=randn(3, SNEW, 2, 128), v=randn(3, SNEW, 2, 128), causal=True, **kw)
    assert out.shape == q.shape
    check_captures_launched(routed, bundle, captures)


@needs_fa_compile
def test_aot_bundles_serve_the_cuda_route_without_a_compiler(tmp_path,
                                                             monkeypatch):
    """The regions are KernelConfig fields of the serving ops too, so an
    AOT directory (configs.json) carries them: a machine without the
    compiler finds the varlen kernel of the traced functions there (the
    call up to libfa_runtime's check of its launch, captures included),
    and another function finds none."""
    from fa_mlir import aot, registry
    kcfg = SM90A["varlen"].with_(heads_q=None, heads_kv=None)
    aot.build([(kcfg, "sm_90a")], str(tmp_path / "bundles"), runtime=True,
              log=str)
    monkeypatch.setenv("FA_BUILD_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("FA_MLIR_BUNDLE_PATH", str(tmp_path / "bundles"))
    registry.forget()
    lookup = _ops.get_bundle
    routed = Routed(monkeypatch)
    monkeypatch.setattr(_ops, "get_bundle", lookup)  # the registry's
    try:
        kw, captures = cuda_modifiers()
        g = torch.Generator().manual_seed(0)
        q, k, v = (fake_cuda(torch.randn(n, h, 128, generator=g).bfloat16())
                   for n, h in ((CU_Q[-1], 8), (CU_K[-1], 2), (CU_K[-1], 2)))
        bounds = fake_cuda(cu(CU_Q)), fake_cuda(cu(CU_K))
        fat.varlen_attention(q, k, v, *bounds, 70, 70, causal=True, **kw)
        (tensors,) = routed.launched
        assert all(tensors[f"capture{i}"] is c
                   for i, c in enumerate(captures))
        with pytest.raises(fa_mlir.errors.BundleError,
                           match="no compiler here"):
            fat.varlen_attention(q, k, v, *bounds, 70, 70, causal=True,
                                 score_mod=kw["score_mod"])
    finally:
        registry.forget()

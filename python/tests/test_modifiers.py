"""fa_mlir.torch.attention(..., score_mod=fn, mask_mod=fn): FlexAttention's
modifiers traced into fa.attention's regions, on the CPU.

Each modifier runs forward and backward against float64 (the functions
applied to the materialized scores, torch autograd) with FlashAttention's
criterion relative to a plain bf16 implementation (bf16 scores and P,
float32 softmax). 70 tokens straddle the 64-row tiles; GQA throughout.
Then the kernel cache (two functions never share a kernel), the trace memo
(a changed closure is traced again) and every rejected input.
"""
import math
import subprocess
import warnings

import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import compiler, cpu  # noqa: E402
from fa_mlir import config as fa_config  # noqa: E402
from fa_mlir.errors import ArgumentError, UnsupportedError  # noqa: E402
from fa_mlir.spec import KernelConfig  # noqa: E402
from fa_mlir.torch import modifiers  # noqa: E402

from _util import within_criterion  # noqa: E402

B, HQ, HKV, S, D = 2, 4, 2, 70, 16
gen = torch.Generator().manual_seed(11)
SLOPES = 2.0 ** (-8.0 * torch.arange(1, HQ + 1) / HQ)
NUM_BUCKETS, MAX_DISTANCE = 16, 50
TABLE = torch.randn(HQ, NUM_BUCKETS, generator=gen)
DOCS = torch.stack([torch.repeat_interleave(torch.arange(4), torch.tensor(
    [20, 30, 15, 5])), torch.repeat_interleave(torch.arange(3), torch.tensor(
        [50, 1, 19]))]).to(torch.int32)
PREFIX = torch.tensor([13, 66])
FACTOR = [1.0]  # changed by test_the_memo_sees_changed_closures_and_tensors


def alibi(score, b, h, q_idx, kv_idx):
    return score + SLOPES[h] * (kv_idx - q_idx)


def t5_bucket(rel):
    """T5's bidirectional buckets: half per direction, exact below
    NUM_BUCKETS // 4, logarithmic up to MAX_DISTANCE."""
    half, exact = NUM_BUCKETS // 2, NUM_BUCKETS // 4
    base = torch.where(rel > 0, half, 0)
    dist = rel.abs()
    ratio = torch.clamp(dist, min=1).float() / exact
    large = exact + (torch.log(ratio) / math.log(MAX_DISTANCE / exact)
                     * (half - exact)).to(torch.int64)
    large = torch.clamp(large, max=half - 1)
    return base + torch.where(dist < exact, dist, large)


def t5(score, b, h, q_idx, kv_idx):
    return score + TABLE[h, t5_bucket(kv_idx - q_idx)]


def document(b, h, q_idx, kv_idx):
    return DOCS[b, q_idx] == DOCS[b, kv_idx]


def prefix_lm(b, h, q_idx, kv_idx):
    return (kv_idx <= q_idx) | (kv_idx < PREFIX[b])


def softcap(score, b, h, q_idx, kv_idx):
    return 20.0 * torch.tanh(score / 20.0)


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def smooth_alibi(score, b, h, q_idx, kv_idx):
    """Nonlinear in the score (tanh, a floor): a real derivative."""
    bent = score + 3 * torch.tanh(score / 3) * SLOPES[h]
    return torch.maximum(bent, torch.tensor(-2.0)) - 0.01 * (q_idx - kv_idx)


CASES = {
    "alibi": dict(score_mod=alibi, causal=True),
    "t5": dict(score_mod=t5),
    "document": dict(mask_mod=document),
    "prefix_lm": dict(mask_mod=prefix_lm),
    "softcap": dict(score_mod=softcap),
    "causal_mask_mod": dict(mask_mod=causal),
    # A combination with the built-in flags, in bshd.
    "combined": dict(score_mod=smooth_alibi, mask_mod=document, softcap=5.0,
                     window=(40, 40), layout="bshd"),
}


def _vmap_bhqk(fn, with_score):
    """fn over the [B, H, Sq, Sk] index grid, as FlexAttention's reference
    applies it (one 0-d call per element)."""
    for dim in (3, 2, 1, 0):
        idx = [None] * 4
        idx[dim] = 0
        fn = torch.func.vmap(fn, in_dims=tuple(([0] if with_score else []) + idx))
    return fn


def reference(q, k, v, dtype, score_mod=None, mask_mod=None, causal=False,
              softcap=None, window=None, layout="bhsd"):
    """Attention with the modifiers, in `dtype` (float64: the oracle; bf16:
    the plain low-precision implementation, float32 softmax)."""
    if layout == "bshd":
        q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    q, k, v = (x.to(dtype) for x in (q, k, v))
    k = k.repeat_interleave(HQ // HKV, dim=1)
    v = v.repeat_interleave(HQ // HKV, dim=1)
    sq, sk = q.shape[2], k.shape[2]
    grid = [torch.arange(n, dtype=torch.int32) for n in (B, HQ, sq, sk)]
    s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(D))
    if score_mod is not None:
        s = _vmap_bhqk(score_mod, True)(s.float() if dtype != torch.float64
                                        else s, *grid).to(dtype)
    if softcap is not None:
        s = softcap * torch.tanh(s / softcap)
    keep = torch.ones(B, HQ, sq, sk, dtype=torch.bool)
    i, j = grid[2][:, None], grid[3][None, :]
    if causal:
        keep &= j <= i
    if window is not None:
        keep &= (j >= i - window[0]) & (j <= i + window[1])
    if mask_mod is not None:
        keep &= _vmap_bhqk(mask_mod, False)(*grid)
    s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s.float() if dtype != torch.float64 else s, dim=-1)
    o = torch.nan_to_num(p, nan=0.0).to(dtype) @ v
    return o.transpose(1, 2) if layout == "bshd" else o


def inputs(layout="bhsd", sq=S, sk=S, seed=0):
    g = torch.Generator().manual_seed(seed)
    shapes = [(B, HQ, sq, D), (B, HKV, sk, D), (B, HKV, sk, D)]
    if layout == "bshd":
        shapes = [(b, s, h, d) for b, h, s, d in shapes]
    return [torch.randn(*s, generator=g).to(torch.bfloat16).requires_grad_()
            for s in shapes]


def check(ours, ref, base, what):
    ok, (err, baseline) = within_criterion(
        ours.double().detach().numpy(), ref.detach().numpy(),
        base.double().detach().numpy(), "bf16")
    assert ok, f"{what}: error {err:.3g}, bf16 baseline {baseline:.3g}"


@pytest.mark.parametrize("case", list(CASES))
def test_forward_and_backward_against_float64(case):
    kw = CASES[case]
    q, k, v = inputs(kw.get("layout", "bhsd"))
    # float64 leaves, so that the oracle's gradients stay float64.
    exact = [x.detach().double().requires_grad_() for x in (q, k, v)]
    out = fat.attention(q, k, v, **kw)
    ref = reference(*exact, torch.float64, **kw)
    base = reference(q, k, v, torch.bfloat16, **kw)
    check(out, ref, base, f"{case} forward")
    do = torch.randn(out.shape, generator=torch.Generator().manual_seed(5))
    grads = torch.autograd.grad(out, (q, k, v), do.to(out.dtype))
    want = torch.autograd.grad(ref, exact, do.double())
    have = torch.autograd.grad(base, (q, k, v), do.to(base.dtype))
    for name, g, r, b in zip(("dq", "dk", "dv"), grads, want, have):
        check(g, r, b, f"{case} {name}")


def test_causal_mask_mod_equals_the_causal_flag():
    """A causal mask written as mask_mod (top-left, Sq < Sk) computes what
    the attribute does."""
    q, k, v = inputs(sq=37, sk=70)
    with torch.no_grad():
        ours = fat.attention(q, k, v, mask_mod=causal)
        flag = fat.attention(q, k, v, causal=True)
    assert (ours.float() - flag.float()).abs().max() <= 1e-2


def test_a_row_mask_mod_hides_entirely_is_zero():
    def hide_row_3(b, h, q_idx, kv_idx):
        return q_idx != 3
    q, k, v = inputs()
    with torch.no_grad():
        out, lse = fat.attention(q, k, v, mask_mod=hide_row_3,
                                 return_lse=True)
    assert (out[:, :, 3] == 0).all() and torch.isneginf(lse[:, :, 3]).all()
    assert torch.isfinite(lse[:, :, 4]).all()


def test_bool_and_float64_captures_and_negative_indices():
    """Captures of every element type but the ones above (a bool [B, S]
    prefix flag, a float64 table), indexed from the end (torch's negative
    indices, through tensor.dim)."""
    in_prefix = torch.arange(S)[None, :] < PREFIX[:, None]
    table = torch.randn(HQ, 3, generator=gen, dtype=torch.float64)

    def score_mod(score, b, h, q_idx, kv_idx):
        return score + table[-1 - h, kv_idx % 3 - 3]

    def mask_mod(b, h, q_idx, kv_idx):
        return in_prefix[b, kv_idx] | (kv_idx <= q_idx)

    q, k, v = (x.detach().float() for x in inputs())
    out = fat.attention(q, k, v, score_mod=score_mod, mask_mod=mask_mod)
    ref = reference(q, k, v, torch.float64, score_mod=score_mod,
                    mask_mod=mask_mod)
    assert modifiers.trace("t", score_mod, mask_mod).capture_types == (
        "tensor<?x?xf64>", "tensor<?x?xi1>")
    assert (out.double() - ref).abs().max() < 1e-5


def test_many_ops_compute_as_torch_does():
    """Forward only (cos, atan, ... have no derivative rule): the float ops
    on the score, and the integer ops on the indices whose torch semantics
    the region must reproduce (Python's sign rules of // and %, C's fmod,
    int32 arithmetic, bitwise ops, promotion to float). The index ops are
    exact; the float ones are continuous, so float32 against float64 is a
    tolerance, not a coin flip at a rounding boundary."""
    def score_mod(score, b, h, q_idx, kv_idx):
        d = kv_idx - q_idx  # negative below the diagonal
        ints = (d // 7) * 3 + d % 5 - torch.fmod(d, 4) + (d & 6) - (d | 1) \
            + (d ^ h) + torch.clamp(d, -9, 9).abs() + torch.maximum(d, b)
        flt = (torch.cos(score) + torch.atan(score) + torch.expm1(-score.abs())
               + torch.rsqrt(score * score + 1) + torch.pow(score.abs(), 1.5)
               + torch.log1p(score.abs()) + torch.sigmoid(score))
        return torch.where(d % 3 == 0, flt, 0.5 * flt) + ints.float() / 64

    q, k, v = (x.detach().float() for x in inputs())
    out = fat.attention(q, k, v, score_mod=score_mod)
    ref = reference(q, k, v, torch.float64, score_mod=score_mod)
    assert (out.double() - ref).abs().max() < 1e-4


def scaled_by(c):
    return lambda score, b, h, q_idx, kv_idx: score * c


def test_two_functions_never_share_a_kernel():
    """Functions that differ only in a closed-over number trace to
    different regions, so to different KernelConfigs, cache entries and
    results; the same function traced again is the same kernel."""
    half, twice = (modifiers.trace("t", scaled_by(c), None)
                   for c in (0.5, 2.0))
    assert half.score_mod != twice.score_mod
    configs = [KernelConfig(dtype="f32", head_dim=D, heads_q=HQ, heads_kv=HKV,
                            score_mod=m.score_mod) for m in (half, twice)]
    assert configs[0] != configs[1] and configs[0].key() != configs[1].key()
    paths = {fa_mlir.compile(c).path for c in configs}
    assert len(paths) == 2
    again = modifiers.trace("t", scaled_by(0.5), None)
    assert again.score_mod == half.score_mod
    assert fa_mlir.compile(configs[0].with_(
        score_mod=again.score_mod)).path in paths
    q, k, v = (x.detach().float() for x in inputs())
    for c in (0.5, 2.0):
        out = fat.attention(q, k, v, score_mod=scaled_by(c))
        want = reference(q, k, v, torch.float64, score_mod=scaled_by(c))
        assert (out.double() - want).abs().max() < 1e-5


def test_the_memo_sees_changed_closures_and_tensors():
    """A traced function is remembered by what it reads: a closed-over
    number that changes is traced again (a new constant), a captured
    tensor changed in place is read at launch, a 0-d tensor (a constant)
    changed in place is traced again."""
    q, k, v = (x.detach().float() for x in inputs())
    slopes = SLOPES.clone()
    bump = torch.tensor(0.0)

    def mod(score, b, h, q_idx, kv_idx):
        return score * FACTOR[0] + slopes[h] * (kv_idx - q_idx) + bump

    FACTOR[0] = 0.5  # a global the function reads
    try:
        first = fat.attention(q, k, v, score_mod=mod)
        assert modifiers.trace("t", mod, None) is modifiers.trace("t", mod,
                                                                  None)
        FACTOR[0] = 0.25
        slopes.mul_(2)
        bump.fill_(1.0)
        second = fat.attention(q, k, v, score_mod=mod)
        assert "0x3F800000" in modifiers.trace("t", mod, None).score_mod
    finally:
        FACTOR[0] = 1.0
    ref = reference(q, k, v, torch.float64, score_mod=lambda s, b, h, i, j:
                    s * 0.25 + slopes.double()[h] * (j - i) + 1.0)
    assert (second.double() - ref).abs().max() < 1e-5
    assert (first - second).abs().max() > 1e-2


@pytest.mark.parametrize("bad, message", [
    (dict(score_mod=3), "score_mod must be a function"),
    (dict(mask_mod="causal"), "mask_mod must be a function"),
    (dict(score_mod=lambda score, b: score), "score_mod .* must take 5"),
    (dict(mask_mod=alibi), "mask_mod .* must take 4"),
    (dict(score_mod=lambda s, b, h, q, kv: s if q > kv else -s),
     "score_mod .* cannot be traced at test_modifiers.py:.*torch.where"),
    (dict(score_mod=lambda s, b, h, q, kv: math.tanh(s)),
     "score_mod .* cannot be traced"),
    (dict(score_mod=lambda s, b, h, q, kv: torch.special.bessel_j0(s)),
     "score_mod '<lambda>' \\(test_modifiers.py:[0-9]+\\): uses "
     "aten.special_bessel_j0"),
    (dict(score_mod=lambda s, b, h, q, kv: (SLOPES * 2)[h] + s),
     "score_mod .* whole captured tensor"),
    (dict(score_mod=lambda s, b, h, q, kv: TABLE[h]),
     "score_mod .* returns a tensor of shape \\[16\\]"),
    (dict(mask_mod=lambda b, h, q, kv: q - kv), "mask_mod .* must return a "
     "bool"),
    (dict(score_mod=lambda s, b, h, q, kv: q > kv), "score_mod .* must "
     "return the score"),
    (dict(score_mod=lambda s, b, h, q, kv: s + TABLE[h, 2:5][0]),
     "score_mod .* slices a captured tensor"),
    (dict(score_mod=lambda s, b, h, q, kv: s + TABLE[h].sum()),
     "score_mod .* applies aten.sum to a whole captured tensor"),
    (dict(score_mod=lambda s, b, h, q, kv: torch.erf(s)),
     "score_mod .* uses aten.erf"),
])
def test_untraceable_functions_name_the_argument(bad, message):
    q, k, v = inputs()
    with pytest.raises(ArgumentError, match=message):
        fat.attention(q, k, v, **bad)


@pytest.mark.parametrize("capture, message", [
    (torch.ones(HQ, device="meta"), "score_mod's captured tensor #0 .* is on "
     "meta, expected cpu"),
    (torch.ones(HQ, dtype=torch.float16), "score_mod .* reads a tensor of "
     "dtype torch.float16"),
    (torch.ones(HQ, dtype=torch.complex64), "score_mod .* reads a tensor of "
     "dtype torch.complex64"),
])
def test_bad_captures_name_the_argument(capture, message):
    q, k, v = inputs()
    with pytest.raises(ArgumentError, match=message):
        fat.attention(q, k, v, score_mod=lambda s, b, h, i, j:
                      s + capture[h].real)


def test_a_capture_that_requires_grad_is_refused():
    slopes = SLOPES.clone().requires_grad_()
    q, k, v = inputs()
    with pytest.raises(UnsupportedError, match="score_mod's captured tensor "
                       "#0 .* requires grad"):
        fat.attention(q, k, v, score_mod=lambda s, b, h, i, j:
                      s + slopes[h])
    with torch.no_grad():  # no gradient wanted: fine
        fat.attention(q, k, v, score_mod=lambda s, b, h, i, j: s + slopes[h])


def test_fp8_inputs_refuse_modifiers():
    q = torch.zeros(1, 1, 4, 16, dtype=torch.float8_e4m3fn)
    one = torch.ones(())
    with pytest.raises(ArgumentError, match="mask_mod is not supported"):
        fat.attention(q, q, q, q_descale=one, k_descale=one, v_descale=one,
                      mask_mod=causal)


def test_sm90a_takes_regions_forward_and_backward():
    """KernelConfig.check_target lets score_mod/mask_mod through for sm_90a,
    forward and backward (the sm_90a kernels evaluate them; what they
    cannot take, fa-compile names), with the backward's other rules kept."""
    mods = modifiers.trace("t", alibi, document)
    for op in ("forward", "backward"):
        kcfg = KernelConfig(op=op, dtype="bf16", head_dim=64,
                            score_mod=mods.score_mod,
                            mask_mod=mods.mask_mod,
                            captures=mods.capture_types)
        kcfg.check_target("sm_90a")
    broadcast = KernelConfig(op="backward", dtype="bf16", head_dim=64,
                             bias=(False, True), deterministic=True,
                             score_mod=mods.score_mod,
                             captures=mods.capture_types)
    with pytest.raises(UnsupportedError, match="deterministic"):
        broadcast.check_target("sm_90a")


def test_the_sm90a_modules_carry_the_regions(tmp_path):
    """What fa-compile gets for sm_90a: the op with its captures clause and
    its regions (the captures are not plain operands), forward and
    backward; fa-opt parses and verifies both."""
    mods = modifiers.trace("t", alibi, document)
    for op in ("forward", "backward"):
        kcfg = KernelConfig(op=op, dtype="bf16", head_dim=64,
                            score_mod=mods.score_mod, mask_mod=mods.mask_mod,
                            captures=mods.capture_types)
        acfg = kcfg.attention_config()
        text = (compiler._sm90a_mlir(kcfg) if op == "forward" else
                fa_config.backward_mlir(acfg))
        assert " captures(%capture0" in text
        assert "score_mod {" in text and "mask_mod {" in text
        path = tmp_path / f"{op}.mlir"
        path.write_text(text)
        subprocess.run([cpu.find_fa_opt(), str(path)], check=True,
                       capture_output=True)


def test_kernel_config_checks_its_modifier_fields():
    text = modifiers.trace("t", alibi, None)
    ok = KernelConfig(score_mod=text.score_mod, captures=text.capture_types)
    assert KernelConfig.from_dict(ok.to_dict()) == ok
    assert "captures" not in KernelConfig().to_dict()  # old keys unchanged
    for bad, message in [
            (dict(captures=("tensor<?xf32>",)), "captures need a score_mod"),
            (dict(captures=("tensor<4xf32>",), score_mod=text.score_mod),
             "captures must be"),
            (dict(score_mod="fa.yield"), "score_mod must be None or the text"),
            (dict(score_mod=text.score_mod, op="combine"),
             "score_mod/mask_mod are for op forward, backward, kvcache, "
             "varlen, varlen_backward, got op 'combine'")]:
        with pytest.raises(ArgumentError, match=message):
            KernelConfig(**bad)


def test_an_op_the_backward_cannot_differentiate_is_named():
    """The forward takes any allowed op; the backward differentiates
    score_mod and names the op it has no rule for (the compiler's
    diagnostic, docs/Modifiers.md)."""
    q, k, v = (x.detach().float().requires_grad_() for x in inputs())
    out = fat.attention(q, k, v, score_mod=lambda s, b, h, i, j: torch.sin(s))
    with pytest.raises(fa_mlir.errors.CompileError, match="'math.sin' op in "
                       "'score_mod' depends on the score and cannot be "
                       "differentiated"):
        out.sum().backward()


def test_opcheck_with_captures():
    q, k, v = (x.detach().float() for x in inputs())
    mods = modifiers.trace("t", alibi, document)
    args = (q, k, v, None, False, None, -1, -1, None, "", "bhsd",
            mods.score_mod, mods.mask_mod, list(mods.captures))
    torch.library.opcheck(torch.ops.fa_mlir.attention_forward.default, args)


def test_torch_compile_fullgraph():
    """torch.compile captures a call with modifiers without graph breaks
    and computes what the eager call does, forward and backward."""
    def f(q, k, v):  # the kernels of the "alibi" case
        return fat.attention(q, k, v, score_mod=alibi, causal=True)
    q, k, v = inputs()
    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    eager_out, compiled_out = f(q, k, v), compiled(q, k, v)
    assert torch.equal(eager_out, compiled_out)
    do = torch.ones_like(eager_out)
    for a, b in zip(torch.autograd.grad(eager_out, (q, k, v), do),
                    torch.autograd.grad(compiled_out, (q, k, v), do)):
        assert torch.equal(a, b)


def test_agrees_with_torch_flex_attention():
    """The same score_mod and mask_mod through torch's own FlexAttention
    (eager, float64, GQA): the same signatures mean the same thing."""
    flex = pytest.importorskip("torch.nn.attention.flex_attention")
    q, k, v = (x.detach().double() for x in inputs(seed=3))
    block_mask = flex.create_block_mask(document, B, HQ, S, S, device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # eager flex_attention warns
        want = flex.flex_attention(q, k, v, score_mod=t5,
                                   block_mask=block_mask, enable_gqa=True)
    ours = fat.attention(q.float(), k.float(), v.float(), score_mod=t5,
                         mask_mod=document)
    assert (ours.double() - want).abs().max() < 1e-5


def test_aot_bundles_of_modifiers_run_without_a_compiler(tmp_path,
                                                         monkeypatch):
    """The regions are KernelConfig fields, so configs.json can carry them
    (modifiers.trace gives the text): a machine without the compiler runs
    the traced function from the AOT directory, and another function finds
    no kernel there."""
    from fa_mlir import aot, registry
    mods = modifiers.trace("aot", alibi, document)
    entry = dict(dtype="f32", head_dim=D, heads_q=HQ, heads_kv=HKV,
                 score_mod=mods.score_mod, mask_mod=mods.mask_mod,
                 captures=list(mods.capture_types))
    aot.build(aot.expand([entry]), str(tmp_path / "bundles"), log=str)
    monkeypatch.setenv("FA_BUILD_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("FA_MLIR_BUNDLE_PATH", str(tmp_path / "bundles"))
    registry.forget()
    try:
        q, k, v = (x.detach().float() for x in inputs())
        out = fat.attention(q, k, v, score_mod=alibi, mask_mod=document)
        ref = reference(q, k, v, torch.float64, score_mod=alibi,
                        mask_mod=document)
        assert (out.double() - ref).abs().max() < 1e-5
        with pytest.raises(fa_mlir.errors.BundleError,
                           match="no compiler here"):
            fat.attention(q, k, v, score_mod=t5, mask_mod=document)
    finally:
        registry.forget()


def test_what_cannot_be_keyed_is_traced_every_time():
    """A callable object reads attributes the memo cannot key: it is traced
    on every call, so a changed attribute is a new constant."""
    class Shift:
        def __init__(self):
            self.by = 1.0

        def __call__(self, score, b, h, q_idx, kv_idx):
            return score + self.by

    shift = Shift()
    before = modifiers.trace("t", shift, None).score_mod
    shift.by = 2.0
    after = modifiers.trace("t", shift, None).score_mod
    assert "0x3F800000" in before and "0x40000000" in after


SLOPES_GLOBAL = torch.tensor([0.5, 0.25])


def _global_alibi(score, b, h, q_idx, kv_idx):
    return score + SLOPES_GLOBAL[h] * (kv_idx - q_idx)


def test_trace_for_a_device_rebuilds_the_function_and_keeps_the_captures():
    # A call on a GPU traces a copy of the function that reads host copies of
    # its device tensors (closure cells and globals); the region is the one
    # the host trace writes and the captures are the caller's own tensors.
    slopes = torch.tensor([1.0, 0.5, 0.25])
    docs = torch.zeros(2, 8, dtype=torch.int32)

    def score_mod(score, b, h, q_idx, kv_idx):
        return score + slopes[h] * (kv_idx - q_idx)

    def mask_mod(b, h, q_idx, kv_idx):
        return docs[b, q_idx] == docs[b, kv_idx]

    for fns in ((score_mod, mask_mod), (_global_alibi, None)):
        host = modifiers._trace("t", *fns, torch.device("cpu"))
        dev = modifiers._trace("t", *fns, torch.device("cuda"))
        assert (dev.score_mod, dev.mask_mod) == (host.score_mod, host.mask_mod)
        assert len(dev.captures) == len(host.captures)
        assert all(a is b for a, b in zip(dev.captures, host.captures))

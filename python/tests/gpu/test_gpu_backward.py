"""The sm_90a backward (a kernel sequence: pre, main, post) through
fa_mlir.torch.attention on CUDA bf16, against float64 autograd with
FlashAttention's criterion: the error of our dQ, dK, dV is at most twice
the error of a plain bf16 implementation (scores and P in bf16, softmax in
float32, as FlashAttention's attention_ref with upcast=False), plus a small
epsilon relative to the gradient's size. Covers full and causal, GQA/MQA,
lengths that are not multiples of 64 or 128 (seq 1, 77, 300, 1000), seq_q !=
seq_k, head dims 64 and 128, bhsd and bshd; determinism (three backward
passes with deterministic=True are bitwise equal); opcheck and
torch.compile(fullgraph=True). With an additive bias (the four-kernel
sequence ending in the dBias kernel): dQ, dK, dV and dBias by the same
criterion for biases of [B, H, Sq, Sk], [1, H, Sq, Sk], [B, 1, Sq, Sk] and
[1, 1, Sq, Sk] in bf16 and float32, causal or not, GQA/MQA, tails, both
layouts; a bias expanded with stride 0; deterministic with a full bias
(bitwise equal), and its refusal with a broadcast one; opcheck and
torch.compile with a bias.

Every kernel these tests ask for is in configs.json (run_device.sh build
compiles it here; python/tests/test_gpu_configs.py checks that on the CPU).
"""
from dataclasses import dataclass, replace
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
    layout: str = "bhsd"
    causal: bool = False
    # (per_batch, per_head) of a [B|1, Hq|1, Sq, Sk] bias; None: no bias.
    bias: Optional[Tuple[bool, bool]] = None
    bias_dtype: str = "f32"  # "f32" or "bf16" (the inputs' dtype)


CASES = [
    Case("d64-full-bhsd", (2, 4, 4, 256, 256), 64),
    Case("d64-causal-bshd", (2, 4, 4, 256, 256), 64, "bshd", True),
    Case("d128-causal-bhsd", (2, 4, 4, 256, 256), 128, "bhsd", True),
    Case("d128-full-bshd", (2, 4, 4, 256, 256), 128, "bshd"),
    Case("gqa-tail-300-d128-causal", (1, 8, 2, 300, 300), 128, "bhsd", True),
    Case("gqa-tail-77x200-d64-bshd", (2, 6, 3, 77, 200), 64, "bshd"),
    Case("tail-100x333-d128-causal", (2, 4, 2, 100, 333), 128, "bhsd", True),
    Case("seq1-d128", (1, 2, 2, 1, 129), 128),
    Case("mqa-1000-d64-causal", (1, 4, 1, 1000, 1000), 64, "bhsd", True),
    Case("tail-130-d64-causal-bshd", (3, 2, 1, 130, 130), 64, "bshd", True),
]
DETERMINISTIC = [Case("det-d128-causal-bhsd", (2, 8, 2, 333, 333), 128, "bhsd",
                      True),
                 Case("det-d64-full-bshd", (2, 4, 4, 200, 517), 64, "bshd")]
# Each bias form in both dtypes; every case is a kernel of its own
# (configs.json builds each forward and backward).
BIAS_CASES = [
    Case("bias-BxH-bf16-d128-causal-gqa-300", (2, 8, 2, 300, 300), 128, "bhsd",
         True, (True, True), "bf16"),
    Case("bias-BxH-f32-d64-bshd-gqa-77x200", (2, 6, 3, 77, 200), 64, "bshd",
         False, (True, True), "f32"),
    Case("bias-1xH-bf16-d64-causal-130", (3, 4, 4, 130, 130), 64, "bhsd", True,
         (False, True), "bf16"),
    Case("bias-1xH-f32-d128-bshd-causal-gqa-100x333", (2, 4, 2, 100, 333), 128,
         "bshd", True, (False, True), "f32"),
    Case("bias-Bx1-bf16-d128-bshd-256", (2, 4, 4, 256, 256), 128, "bshd",
         False, (True, False), "bf16"),
    Case("bias-Bx1-f32-d64-causal-mqa-1000", (2, 4, 1, 1000, 1000), 64, "bhsd",
         True, (True, False), "f32"),
    Case("bias-1x1-bf16-d64-bshd-causal-gqa-333", (2, 8, 2, 333, 333), 64,
         "bshd", True, (False, False), "bf16"),
    Case("bias-1x1-f32-d128-65x129", (3, 2, 2, 65, 129), 128, "bhsd", False,
         (False, False), "f32"),
]
# A full bias: its dBias has no sum across batch or heads, so the backward
# can be deterministic (the same forward kernel as BIAS_CASES[0]).
# A broadcast bias of the inputs' dtype is summed in a fixed order: over
# batches, over the heads (a GQA group's q heads in one CTA), over both.
BIAS_DETERMINISTIC = [Case("det-bias-BxH-bf16-d128-causal", (2, 8, 2, 333, 333),
                           128, "bhsd", True, (True, True), "bf16"),
                      replace(BIAS_CASES[2], name="det-" + BIAS_CASES[2].name),
                      replace(BIAS_CASES[4], name="det-" + BIAS_CASES[4].name),
                      replace(BIAS_CASES[6], name="det-" + BIAS_CASES[6].name)]


def inputs(case, seed=0, device="cuda"):
    b, hq, hk, sq, sk = case.shape
    g = torch.Generator(device=device).manual_seed(seed)
    shape = (lambda h, s: (b, h, s, case.d) if case.layout == "bhsd"  # noqa: E731
             else (b, s, h, case.d))
    q, k, v = (torch.randn(*shape(h, s), generator=g, device=device)
               .to(torch.bfloat16) for h, s in ((hq, sq), (hk, sk), (hk, sk)))
    dout = torch.randn(*shape(hq, sq), generator=g, device=device).to(torch.bfloat16)
    return q, k, v, dout


def bias_input(case, seed=1, device="cuda"):
    """The case's bias, [B|1, Hq|1, Sq, Sk] of its bias_dtype, or None."""
    if case.bias is None:
        return None
    b, hq, _, sq, sk = case.shape
    g = torch.Generator(device=device).manual_seed(seed)
    shape = (b if case.bias[0] else 1, hq if case.bias[1] else 1, sq, sk)
    dtype = torch.bfloat16 if case.bias_dtype == "bf16" else torch.float32
    return torch.randn(*shape, generator=g, device=device).to(dtype)


def attention_ref(q, k, v, layout, causal, upcast, bias=None):
    """Plain attention with autograd: in float64 (upcast), or in the inputs'
    dtype with a float32 softmax (the low-precision baseline: the scores in
    bf16, plus the bias in its own dtype)."""
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    if upcast:
        q, k, v = (t.double() for t in (q, k, v))
        bias = None if bias is None else bias.double()
    k = k.repeat_interleave(q.shape[1] // k.shape[1], 1)
    v = v.repeat_interleave(q.shape[1] // v.shape[1], 1)
    s = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(q.shape[-1]))
    if bias is not None:
        s = s + bias
    if causal:
        sq, sk = s.shape[-2:]
        hide = torch.ones(sq, sk, dtype=torch.bool, device=s.device).triu(1)
        s = s.masked_fill(hide, float("-inf"))
    p = torch.softmax(s.float() if not upcast else s, -1).nan_to_num(0.0)
    o = p.to(v.dtype) @ v
    return o.transpose(1, 2) if layout == "bshd" else o


def grads(fn, q, k, v, dout, bias=None):
    """The gradients of fn(q, k, v[, bias]) for `dout`: dq, dk, dv[, dbias]."""
    args = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    if bias is not None:
        args.append(bias.detach().clone().requires_grad_())
    out = fn(*args)
    return torch.autograd.grad(out, args, dout.to(out.dtype))


def ours(case, deterministic=False):
    return lambda q, k, v, bias=None: fat.attention(
        q, k, v, causal=case.causal, layout=case.layout, bias=bias,
        deterministic=deterministic)


def check_grads(case, deterministic=False, bias=None, view=None):
    """dq, dk, dv (and dbias with a bias: the case's, or `bias`) within
    FlashAttention's criterion; returns ours. `view` maps the bias leaf to
    what every implementation is called with (an expanded view, say)."""
    q, k, v, dout = inputs(case)
    if bias is None:
        bias = bias_input(case)

    def on(fn):
        return lambda q, k, v, *b: fn(q, k, v, *(view(x) if view else x
                                                 for x in b))

    got = grads(on(ours(case, deterministic)), q, k, v, dout, bias)
    torch.cuda.synchronize()
    ref, low = (grads(on(lambda q, k, v, *b, u=upcast: attention_ref(
        q, k, v, case.layout, case.causal, u, *b)), q, k, v, dout, bias)
        for upcast in (True, False))
    names = ("dq", "dk", "dv", "dbias")
    for name, g, r, p, x in zip(names, got, ref, low, (q, k, v, bias)):
        assert g.dtype == x.dtype and g.shape == r.shape, name
        err = (g.double() - r).abs().max().item()
        base = (p.double() - r).abs().max().item()
        eps = EPS * max(1.0, r.abs().max().item())
        assert err <= 2 * base + eps, (case.name, name, err, base)
    return got


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_backward(case):
    check_grads(case)


@pytest.mark.parametrize("case", DETERMINISTIC, ids=[c.name for c in DETERMINISTIC])
def test_backward_deterministic(case):
    first = check_grads(case, deterministic=True)
    q, k, v, dout = inputs(case)
    for _ in range(2):
        again = grads(ours(case, True), q, k, v, dout)
        assert all(torch.equal(a, b) for a, b in zip(first, again)), case.name


# Without and with a (full) bias: deterministic kernels, so that repeated
# runs compare bitwise.
OP_CASES = [DETERMINISTIC[0], BIAS_DETERMINISTIC[0]]


@pytest.mark.parametrize("case", OP_CASES, ids=[c.name for c in OP_CASES])
def test_backward_opcheck(case):
    q, k, v, dout = inputs(case)
    options = (bias_input(case), True, None, -1, -1, None, "", case.layout)
    regions = ("", "", [])  # score_mod, mask_mod, captures: none
    o, lse = torch.ops.fa_mlir.attention_forward(q, k, v, *options, *regions)
    # deterministic: opcheck compares repeated runs of the op.
    torch.library.opcheck(torch.ops.fa_mlir.attention_backward.default,
                          (dout, q, k, v, o, lse) + options + (True,) +
                          regions)


@pytest.mark.parametrize("case", OP_CASES, ids=[c.name for c in OP_CASES])
def test_backward_torch_compile_fullgraph(case):
    q, k, v, dout = inputs(case)

    def f(q, k, v, bias=None):
        return fat.attention(q * 0.5, k, v, bias=bias, causal=True,
                             layout=case.layout, deterministic=True)

    compiled = torch.compile(f, fullgraph=True)
    a = grads(compiled, q, k, v, dout, bias_input(case))
    b = grads(f, q, k, v, dout, bias_input(case))
    assert all(torch.equal(x, y) for x, y in zip(a, b))


def test_backward_side_stream():
    case = DETERMINISTIC[1]
    q, k, v, dout = inputs(case)
    expected = grads(ours(case, True), q, k, v, dout)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        got = grads(ours(case, True), q, k, v, dout)
    torch.cuda.current_stream().wait_stream(s)
    assert all(torch.equal(a, b) for a, b in zip(expected, got))


# -- with a bias: dBias (pre, main, post, dbias kernels) --------------------

@pytest.mark.parametrize("case", BIAS_CASES, ids=[c.name for c in BIAS_CASES])
def test_backward_bias(case):
    got = check_grads(case)
    assert len(got) == 4


@pytest.mark.parametrize("case", BIAS_DETERMINISTIC,
                         ids=[c.name for c in BIAS_DETERMINISTIC])
def test_backward_bias_deterministic(case):
    first = check_grads(case, deterministic=True)
    q, k, v, dout = inputs(case)
    bias = bias_input(case)
    for _ in range(2):
        again = grads(ours(case, True), q, k, v, dout, bias)
        assert all(torch.equal(a, b) for a, b in zip(first, again)), case.name


def test_backward_expanded_bias():
    """A [1, 1, Sq, Sk] bias expanded to [B, Hq, Sq, Sk] (stride 0): the
    full-bias kernel of BIAS_CASES[0] reads it in place, its dense
    gradient is summed back to the base by autograd."""
    case = BIAS_CASES[0]
    b, hq, _, sq, sk = case.shape
    base = bias_input(replace(case, bias=(False, False)))
    got = check_grads(case, bias=base, view=lambda x: x.expand(b, hq, sq, sk))
    assert got[3].shape == base.shape


def test_backward_deterministic_broadcast_bias_is_refused():
    """The dBias sum of a float32 bias over a broadcast batch uses float32
    atomics: the deterministic backward refuses it (KernelConfig.check_target)
    before looking for a kernel."""
    from fa_mlir.errors import UnsupportedError
    case = BIAS_CASES[3]  # [1, H, Sq, Sk] f32: its forward kernel is built
    q, k, v, dout = inputs(case)
    with pytest.raises(UnsupportedError, match="deterministic with a bias "
                       "broadcast along batch"):
        grads(ours(case, True), q, k, v, dout, bias_input(case))

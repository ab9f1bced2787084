"""fa_mlir.torch.attention(..., sinks=s): gpt-oss's attention sinks on the CPU.

A sink is one logit per query head in every row's softmax normalizer, with
no value row. Forward (O and the LSE, which includes the sink) and backward
(dq, dk, dv and the sinks' own gradient) against float64 (torch autograd on
softmax over [scores, sink]) with FlashAttention's criterion relative to a
plain bf16 implementation; GQA, causal, a sliding window, rows that see no
key (O = 0, LSE = sink), a float16 sink; then every rejected sinks argument
(the error names it) and the kernel cache (sinks never share a kernel with
plain attention).
"""
import math

import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.errors import ArgumentError  # noqa: E402
from fa_mlir.spec import KernelConfig  # noqa: E402

from _util import within_criterion  # noqa: E402

B, HQ, HKV, D = 2, 4, 2, 16


def reference(q, k, v, sinks, dtype, causal=False, window=None,
              mask_alignment=None):
    """Attention with sinks in `dtype` (float64: the oracle; bf16: the plain
    implementation, float32 softmax): the sink is one more column of the
    scores, dropped after the softmax. Returns (O, LSE)."""
    q, k, v = (x.to(dtype) for x in (q, k, v))
    k = k.repeat_interleave(HQ // HKV, dim=1)
    v = v.repeat_interleave(HQ // HKV, dim=1)
    sq, sk = q.shape[2], k.shape[2]
    s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(D))
    soft = torch.float64 if dtype == torch.float64 else torch.float32
    s = s.to(soft)
    i = torch.arange(sq)[:, None] + (sk - sq if mask_alignment ==
                                     "bottom_right" else 0)
    j = torch.arange(sk)[None, :]
    keep = torch.ones(sq, sk, dtype=torch.bool)
    if causal:
        keep &= j <= i
    if window is not None:
        keep &= (j >= i - window[0]) & (j <= i + window[1])
    s = s.masked_fill(~keep, float("-inf"))
    col = sinks.to(soft)[None, :, None, None].expand(s.shape[0], HQ, sq, 1)
    full = torch.cat([s, col], dim=-1)
    lse = torch.logsumexp(full, dim=-1)
    p = torch.softmax(full, dim=-1)[..., :-1]
    return (p.to(dtype) @ v), lse


def inputs(sq, sk, seed=0):
    g = torch.Generator().manual_seed(seed)
    shapes = [(B, HQ, sq, D), (B, HKV, sk, D), (B, HKV, sk, D)]
    qkv = [torch.randn(*s, generator=g).to(torch.bfloat16).requires_grad_()
           for s in shapes]
    # Sinks around the scores' scale, so that they take a real share.
    sinks = (torch.randn(HQ, generator=g) + 1.0).requires_grad_()
    return qkv, sinks


def check(ours, ref, base, what):
    ok, (err, baseline) = within_criterion(
        ours.double().detach().numpy(), ref.detach().numpy(),
        base.double().detach().numpy(), "bf16")
    assert ok, f"{what}: error {err:.3g}, bf16 baseline {baseline:.3g}"


CASES = {
    "plain": dict(sq=70, sk=70),
    "causal": dict(sq=70, sk=70, causal=True),
    "window": dict(sq=70, sk=70, window=(20, 5)),
    # Bottom-right causal with more queries than keys: the first 30 rows
    # see no key (O = 0, LSE = sink, and they still add to dSinks: 0).
    "empty_rows": dict(sq=100, sk=70, causal=True,
                       mask_alignment="bottom_right"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_forward_and_backward_against_float64(case):
    kw = dict(CASES[case])
    sq, sk = kw.pop("sq"), kw.pop("sk")
    (q, k, v), sinks = inputs(sq, sk)
    exact = [x.detach().double().requires_grad_() for x in (q, k, v, sinks)]
    out, lse = fat.attention(q, k, v, sinks=sinks, return_lse=True, **kw)
    ref, ref_lse = reference(*exact, torch.float64, **kw)
    base, base_lse = reference(q, k, v, sinks, torch.bfloat16, **kw)
    check(out, ref, base, f"{case} O")
    assert torch.allclose(lse.double(), ref_lse, atol=2e-2), case
    do = torch.randn(out.shape, generator=torch.Generator().manual_seed(5))
    grads = torch.autograd.grad(out, (q, k, v, sinks), do.to(out.dtype))
    want = torch.autograd.grad(ref, exact, do.double())
    have = torch.autograd.grad(base, (q, k, v, sinks), do.to(base.dtype))
    assert grads[3].dtype == torch.float32 and grads[3].shape == (HQ,)
    for name, g, r, b in zip(("dq", "dk", "dv", "dsinks"), grads, want, have):
        check(g, r, b, f"{case} {name}")


def test_rows_without_keys_give_zero_and_the_sink():
    (q, k, v), sinks = inputs(100, 70)
    with torch.no_grad():
        out, lse = fat.attention(q, k, v, sinks=sinks, causal=True,
                                 mask_alignment="bottom_right",
                                 return_lse=True)
    assert (out[:, :, :30] == 0).all()
    assert torch.allclose(lse[:, :, :30],
                          sinks.detach()[None, :, None].expand(B, HQ, 30))
    assert torch.isfinite(lse).all()


def test_a_sink_of_minus_infinity_is_no_sink():
    (q, k, v), _ = inputs(70, 70)
    none = torch.full((HQ,), float("-inf"))
    with torch.no_grad():
        a, la = fat.attention(q, k, v, sinks=none, causal=True,
                              return_lse=True)
        b, lb = fat.attention(q, k, v, causal=True, return_lse=True)
    assert torch.allclose(a.float(), b.float(), atol=1e-2)
    assert torch.allclose(la, lb, atol=1e-4)


def test_a_half_precision_sink_gets_its_gradient_in_its_dtype():
    (q, k, v), sinks = inputs(70, 70)
    half = sinks.detach().to(torch.float16).requires_grad_()
    out = fat.attention(q, k, v, sinks=half)
    out.float().sum().backward()
    assert half.grad is not None and half.grad.dtype == torch.float16
    assert torch.isfinite(half.grad).all()


@pytest.mark.parametrize("bad, message", [
    (torch.zeros(HQ + 1), r"sinks must have shape \[4\]"),
    (torch.zeros(1, HQ), r"sinks must have shape \[4\]"),
    (torch.zeros(HQ, dtype=torch.int32), "sinks must be float32, float16 or "
     "bfloat16, got torch.int32"),
    ([0.0] * HQ, "sinks must be a torch.Tensor"),
])
def test_bad_sinks_are_rejected_naming_the_argument(bad, message):
    (q, k, v), _ = inputs(8, 8)
    with pytest.raises(ArgumentError, match=message):
        fat.attention(q, k, v, sinks=bad)


def test_sinks_on_another_device_are_rejected():
    (q, k, v), _ = inputs(8, 8)
    with pytest.raises(ArgumentError, match="sinks must be on q's device"):
        fat.attention(q, k, v, sinks=torch.zeros(HQ, device="meta"))


def test_sinks_with_fp8_inputs_are_rejected():
    (q, k, v), sinks = inputs(8, 8)
    f8 = [x.detach().to(torch.float8_e4m3fn) for x in (q, k, v)]
    one = torch.tensor(1.0)
    with pytest.raises(ArgumentError, match="sinks is not supported with "
                       "float8_e4m3fn inputs"):
        fat.attention(*f8, q_descale=one, k_descale=one, v_descale=one,
                      sinks=sinks)


def test_sinks_config_key_and_ops():
    """A kernel with sinks is its own (not plain attention's), and only the
    forward and backward take them."""
    plain = KernelConfig(dtype="bf16", head_dim=D)
    with_sinks = plain.with_(sinks=True)
    assert plain.key() != with_sinks.key()
    assert "sinks" not in plain.to_dict()
    with pytest.raises(ArgumentError, match="sinks are for op forward and "
                       "backward"):
        KernelConfig(dtype="bf16", head_dim=D, op="varlen", layout="bshd",
                     sinks=True)


def test_opcheck_with_sinks():
    (q, k, v), sinks = inputs(8, 8)
    q, k, v = (x.detach() for x in (q, k, v))
    sinks = sinks.detach()
    options = (None, True, None, -1, -1, None, "", "bhsd")
    regions = ("", "", [])
    torch.library.opcheck(torch.ops.fa_mlir.attention_forward.default,
                          (q, k, v) + options + regions + (sinks,))
    o, lse = torch.ops.fa_mlir.attention_forward(q, k, v, *options, *regions,
                                                 sinks)
    torch.library.opcheck(torch.ops.fa_mlir.attention_backward.default,
                          (torch.randn_like(o), q, k, v, o, lse) + options +
                          (False,) + regions + (sinks,))


"""fa_mlir.torch.attention on the CPU: against SDPA and the float64
reference, gradcheck, torch.compile and torch.library.opcheck."""
import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import reference  # noqa: E402
from fa_mlir.config import AttentionConfig  # noqa: E402

from _util import within_criterion  # noqa: E402


def qkv(b=2, hq=4, hk=2, sq=9, sk=11, d=16, dv=None, dtype=torch.float32,
        seed=0, grad=True):
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g).to(dtype).requires_grad_(grad)  # noqa: E731
    return mk(b, hq, sq, d), mk(b, hk, sk, d), mk(b, hk, sk, dv or d)


def sdpa(q, k, v, **kw):
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True, **kw)


def grads(out, inputs, seed=1):
    g = torch.randn(out.shape, generator=torch.Generator().manual_seed(seed))
    return torch.autograd.grad(out, inputs, g.to(out.dtype))


SDPA_CASES = {
    "plain": (dict(), dict()),
    "causal": (dict(causal=True), dict(is_causal=True)),
    "scale": (dict(scale=0.2), dict(scale=0.2)),
}


@pytest.mark.parametrize("case", list(SDPA_CASES))
def test_forward_backward_match_sdpa(case):
    ours_kw, sdpa_kw = SDPA_CASES[case]
    q, k, v = qkv()
    o, r = fat.attention(q, k, v, **ours_kw), sdpa(q, k, v, **sdpa_kw)
    assert (o - r).abs().max() < 1e-5
    for a, b in zip(grads(o, (q, k, v)), grads(r, (q, k, v))):
        assert (a - b).abs().max() < 1e-4


def test_bias_and_bool_mask_match_sdpa():
    q, k, v = qkv(hq=2, hk=2)
    bias = torch.randn(1, 2, 9, 11, requires_grad=True)
    o = fat.attention(q, k, v, bias=bias)
    r = sdpa(q, k, v, attn_mask=bias)
    assert (o - r).abs().max() < 1e-5
    ours, theirs = grads(o, (q, bias)), grads(r, (q, bias))
    assert ours[1].shape == bias.shape
    assert all((a - b).abs().max() < 1e-4 for a, b in zip(ours, theirs))
    mask = torch.rand(9, 11, generator=torch.Generator().manual_seed(3)) > 0.3
    mask[:, 0] = True  # no fully hidden row: SDPA gives NaN there, we give 0
    o = fat.attention(q, k, v, bias=mask)
    assert (o - sdpa(q, k, v, attn_mask=mask)).abs().max() < 1e-5


def test_bshd_layout_and_strided_inputs():
    q, k, v = qkv(grad=False)
    r = sdpa(q, k, v, is_causal=True)
    # bshd views of bhsd tensors: not contiguous, converted by the op.
    o = fat.attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                      causal=True, layout="bshd")
    assert (o.transpose(1, 2) - r).abs().max() < 1e-5
    o = fat.attention(q[:, :, ::1], k.transpose(2, 3).transpose(2, 3), v,
                      causal=True)
    assert (o - r).abs().max() < 1e-5


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("features", [dict(causal=True),
                                      dict(window=(3, 2), softcap=2.0)],
                         ids=["causal", "window-softcap"])
def test_low_precision_against_float64(dtype, features):
    q, k, v = qkv(dtype=dtype, grad=False)
    name = {torch.bfloat16: "bf16", torch.float16: "f16"}[dtype]
    cfg = AttentionConfig(batch=2, heads_q=4, heads_kv=2, seq_q=9, seq_k=11,
                          head_dim=16, dtype=name, **features)
    x = [t.double().numpy() for t in (q, k, v)]
    ref, ref_lse = reference.forward(cfg, *x)
    base, _ = reference.forward_lowp(cfg, *x)
    o, lse = fat.attention(q, k, v, return_lse=True, **features)
    assert o.dtype == dtype and lse.dtype == torch.float32
    ok, errs = within_criterion(o.double().numpy(), ref, base, name)
    assert ok, errs
    assert reference.max_error(lse.numpy(), ref_lse) < 1e-4 * 10


def test_window_softcap_gradients_against_float64():
    q, k, v = qkv(hq=2, hk=1, sq=6, sk=8, d=8)
    kw = dict(window=(2, None), softcap=1.5, causal=True,
              mask_alignment="bottom_right")
    o = fat.attention(q, k, v, **kw)
    cfg = AttentionConfig(batch=2, heads_q=2, heads_kv=1, seq_q=6, seq_k=8,
                          head_dim=8, window=(2, 1 << 30), softcap=1.5,
                          causal=True, mask_alignment="bottom_right")
    g = torch.randn(o.shape, generator=torch.Generator().manual_seed(5))
    x = [t.detach().double().numpy() for t in (q, k, v)]
    ref_o, _ = reference.forward(cfg, *x)
    assert reference.max_error(o.detach().numpy(), ref_o) < 1e-5
    ref = reference.backward(cfg, *x, g.double().numpy())
    for ours, r in zip(torch.autograd.grad(o, (q, k, v), g), ref):
        assert reference.max_error(ours.numpy(), r) < 1e-4


def test_return_lse():
    q, k, v = qkv(hq=2, hk=2, grad=False)
    o, lse = fat.attention(q, k, v, causal=True, return_lse=True)
    s = q @ k.transpose(-1, -2) / math.sqrt(16)
    s = s.masked_fill(torch.ones(9, 11).triu(1).bool(), float("-inf"))
    assert lse.shape == (2, 2, 9)
    assert (lse - torch.logsumexp(s, -1)).abs().max() < 1e-5


def test_gradcheck():
    q, k, v = qkv(b=1, hq=2, hk=1, sq=4, sk=5, d=4)
    bias = torch.randn(2, 4, 5, requires_grad=True)
    f = lambda q, k, v, b: fat.attention(q, k, v, causal=True, bias=b,  # noqa: E731
                                         softcap=3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float32 inputs: expected warning
        assert torch.autograd.gradcheck(f, (q, k, v, bias), eps=1e-3,
                                        atol=2e-3, rtol=1e-2)


def test_torch_compile_fullgraph():
    q, k, v = qkv(b=1, sq=5, sk=5)

    def loss(q, k, v):
        return (fat.attention(q, k, v, causal=True) * 2).sum()

    compiled = torch.compile(loss, backend="aot_eager", fullgraph=True)
    a = compiled(q, k, v)
    ga = torch.autograd.grad(a, (q, k, v))
    b = loss(q, k, v)
    gb = torch.autograd.grad(b, (q, k, v))
    assert torch.allclose(a, b)
    assert all(torch.allclose(x, y) for x, y in zip(ga, gb))


def test_opcheck():
    q, k, v = qkv(b=1, hq=2, hk=1, sq=3, sk=4, d=4, grad=False)
    options = (None, True, None, -1, -1, None, "", "bhsd")
    regions = ("", "", [])  # score_mod, mask_mod, captures: none
    args = (q, k, v) + options + regions
    torch.library.opcheck(torch.ops.fa_mlir.attention_forward.default, args)
    o, lse = torch.ops.fa_mlir.attention_forward(*args)
    torch.library.opcheck(torch.ops.fa_mlir.attention_backward.default,
                          (torch.randn_like(o), q, k, v, o, lse) + options +
                          (False,) + regions)


def test_one_kernel_serves_many_lengths():
    from fa_mlir import registry
    registry.forget()
    for sq, sk in [(3, 3), (7, 20), (1, 1)]:
        q, k, v = qkv(sq=sq, sk=sk, grad=False)
        assert (fat.attention(q, k, v) - sdpa(q, k, v)).abs().max() < 1e-5
    assert len(registry._loaded) == 1


def test_float64_is_rejected_with_a_message():
    q, k, v = qkv(dtype=torch.float64, grad=False)
    with pytest.raises(ValueError, match="dtype torch.float64"):
        fat.attention(q, k, v)


def test_numpy_is_untouched():
    # The kernels write into torch-owned memory through numpy views.
    q, k, v = qkv(grad=False)
    before = q.clone()
    fat.attention(q, k, v)
    assert torch.equal(q, before)
    assert isinstance(np.asarray(q), np.ndarray)

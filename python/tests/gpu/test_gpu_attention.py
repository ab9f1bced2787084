"""fa_mlir.torch.attention on an sm_90a GPU through libfa_runtime, against
float64 attention with FlashAttention's criterion (ours <= 2x the error of
torch's own bf16/f16 SDPA, plus epsilon)."""
import math

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.errors import ArgumentError, UnsupportedError  # noqa: E402

EPS = {torch.bfloat16: 1e-3, torch.float16: 1e-4}


def make(b, hq, hk, sq, sk, d, dtype, layout="bhsd", seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = lambda h, s: (b, h, s, d) if layout == "bhsd" else (b, s, h, d)  # noqa: E731
    return [torch.randn(*shape(h, s), generator=g, device="cuda").to(dtype)
            for h, s in ((hq, sq), (hk, sk), (hk, sk))]


def reference(q, k, v, layout, causal, scale=None, bottom_right=False):
    """float64 output and LSE in bhsd."""
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    q, k, v = (t.double() for t in (q, k, v))
    k = k.repeat_interleave(q.shape[1] // k.shape[1], 1)
    v = v.repeat_interleave(q.shape[1] // v.shape[1], 1)
    s = q @ k.transpose(-1, -2) * (scale or 1 / math.sqrt(q.shape[-1]))
    if causal:
        sq, sk = s.shape[-2:]
        off = sk - sq if bottom_right else 0
        hide = torch.ones(sq, sk, dtype=torch.bool, device=s.device).triu(1 + off)
        s = s.masked_fill(hide, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    return p @ v, lse


def baseline(q, k, v, layout, causal, scale=None):
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                          scale=scale, enable_gqa=True)


def check(q, k, v, layout, causal, scale=None, bottom_right=False):
    o, lse = fat.attention(q, k, v, causal=causal, scale=scale, layout=layout,
                           return_lse=True,
                           mask_alignment="bottom_right" if bottom_right else None)
    torch.cuda.synchronize()
    assert o.device == q.device and o.dtype == q.dtype and lse.dtype == torch.float32
    ref, ref_lse = reference(q, k, v, layout, causal, scale, bottom_right)
    ours = o.transpose(1, 2) if layout == "bshd" else o
    err = (ours.double() - ref).abs().max().item()
    if not bottom_right:
        base = (baseline(q, k, v, layout, causal, scale).double() - ref).abs().max().item()
    else:
        base = 1e-2
    assert err <= 2 * base + EPS[q.dtype], (err, base)
    finite = torch.isfinite(ref_lse)
    assert (lse.double()[finite] - ref_lse[finite]).abs().max().item() < 1e-3
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "f16"])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
def test_forward(dtype, d, causal, layout):
    check(*make(2, 4, 4, 256, 256, d, dtype, layout), layout, causal)


@pytest.mark.parametrize("shape", [(1, 8, 2, 300, 300), (2, 4, 1, 77, 517),
                                   (1, 2, 2, 1, 129), (3, 6, 3, 1000, 1000)],
                         ids=["gqa-300", "mqa-77x517", "seq1", "gqa-1000"])
def test_forward_shapes(shape):
    b, hq, hk, sq, sk = shape
    check(*make(b, hq, hk, sq, sk, 128, torch.bfloat16), "bhsd", True)


def test_forward_bottom_right_and_scale():
    q, k, v = make(2, 4, 2, 100, 333, 128, torch.bfloat16)
    check(q, k, v, "bhsd", True, bottom_right=True)
    q, k, v = make(2, 4, 2, 200, 200, 64, torch.bfloat16)
    check(q, k, v, "bhsd", False, scale=0.05)


def test_strided_query_view():
    # A bshd view of a bigger buffer: only the innermost stride must be 1.
    q, k, v = make(2, 4, 4, 256, 256, 64, torch.bfloat16, "bshd")
    big = torch.zeros(2, 256, 8, 64, dtype=torch.bfloat16, device="cuda")
    big[:, :, :4] = q
    check(big[:, :, :4], k, v, "bshd", True)


def test_backward_reports_missing_kernel():
    q, k, v = (t.requires_grad_() for t in make(1, 2, 2, 64, 64, 64, torch.bfloat16))
    o = fat.attention(q, k, v)
    with pytest.raises(UnsupportedError, match="backward"):
        o.sum().backward()


def test_mixed_devices_are_rejected():
    q, k, v = make(1, 2, 2, 64, 64, 64, torch.bfloat16)
    with pytest.raises(ArgumentError, match="key is on cpu, expected cuda"):
        fat.attention(q, k.cpu(), v)


def test_side_stream():
    q, k, v = make(2, 4, 4, 256, 256, 128, torch.bfloat16)
    expected = fat.attention(q, k, v, causal=True)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        o = fat.attention(q, k, v, causal=True)
    torch.cuda.current_stream().wait_stream(s)
    assert torch.equal(o, expected)


def test_torch_compile_inductor():
    q, k, v = make(1, 4, 4, 128, 128, 64, torch.bfloat16)

    def f(q, k, v):
        return fat.attention(q * 0.5, k, v, causal=True).float().sum(-1)

    compiled = torch.compile(f, fullgraph=True)
    assert torch.allclose(compiled(q, k, v), f(q, k, v))


def test_launch_bundle_on_cuda_tensors():
    from fa_mlir import registry
    from fa_mlir.spec import KernelConfig
    bundle = registry.get_bundle(KernelConfig(dtype="bf16", head_dim=64,
                                              causal=True, heads_q=4,
                                              heads_kv=4), "sm_90a")
    q, k, v = make(2, 4, 4, 200, 200, 64, torch.bfloat16)
    o, lse = torch.empty_like(q), torch.empty(2, 4, 200, device="cuda")
    fat.launch(bundle, query=q, key=k, value=v, output=o, lse=lse)
    assert torch.equal(o, fat.attention(q, k, v, causal=True))
    with pytest.raises(ArgumentError, match="innermost stride 2"):
        fat.launch(bundle, query=q[..., ::2].repeat(1, 1, 1, 2)[..., ::2], key=k,
                   value=v, output=o, lse=lse)
    with pytest.raises(ArgumentError, match="needs CUDA tensors"):
        fat.launch(bundle, query=q.cpu(), key=k, value=v, output=o, lse=lse)
    with pytest.raises(ArgumentError, match=r"dimension 3 is 32, expected 64"):
        fat.launch(bundle, query=q[..., :32].contiguous(), key=k, value=v,
                   output=o, lse=lse)

"""fa_mlir.torch.attention on an sm_90a GPU through libfa_runtime, against
float64 attention with FlashAttention's criterion (ours <= 2x the error of a
plain low-precision implementation, plus epsilon): torch's own bf16/f16 SDPA
for the plain kernels, fa_mlir.reference.forward_lowp for the variants
(windows, softcap, bias and boolean masks, head dims 32 to 256, V head dim !=
QK head dim), whose float64 oracle is fa_mlir.reference.forward.

Every kernel these tests ask for is in configs.json (compiled ahead of time
by run_device.sh build); python/tests/test_gpu_configs.py checks that on the
CPU for VARIANTS."""
from dataclasses import dataclass
import math
from typing import Optional, Tuple

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import reference as oracle  # noqa: E402
from fa_mlir.config import AttentionConfig  # noqa: E402
from fa_mlir.errors import ArgumentError  # noqa: E402
from fa_mlir.torch._ops import UNBOUNDED  # noqa: E402

EPS = {torch.bfloat16: 1e-3, torch.float16: 1e-4}


def make(b, hq, hk, sq, sk, d, dtype, layout="bhsd", seed=0, dv=None,
         qk_scale=1.0, device="cuda"):
    """Random q, k, v; `qk_scale` scales q and k (large logits)."""
    g = torch.Generator(device=device).manual_seed(seed)
    shape = lambda h, s, e: (b, h, s, e) if layout == "bhsd" else (b, s, h, e)  # noqa: E731
    return [(torch.randn(*shape(h, s, e), generator=g, device=device) * c).to(dtype)
            for h, s, e, c in ((hq, sq, d, qk_scale), (hk, sk, d, qk_scale),
                               (hk, sk, dv or d, 1.0))]


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


# -- variants of the kernel: masks, score modifiers, bias, head dims --------

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


@dataclass(frozen=True)
class Variant:
    name: str
    shape: Tuple[int, int, int, int, int]  # batch, heads_q, heads_kv, seq_q, seq_k
    d: int
    dv: Optional[int] = None
    dtype: str = "bf16"
    layout: str = "bhsd"
    causal: bool = False
    window: Optional[Tuple[Optional[int], Optional[int]]] = None  # None side: unbounded
    mask_alignment: Optional[str] = None
    softcap: Optional[float] = None
    # "full" [B, Hq, Sq, Sk] with -inf entries and rows, "heads" [1, Hq, Sq, Sk],
    # "mask" a boolean [Sq, Sk] mask (the op makes it a 0/-inf f32 bias).
    bias: Optional[str] = None
    bias_dtype: Optional[str] = None  # of "full"/"heads"; None: the dtype
    qk_scale: float = 1.0
    masked_rows: bool = False  # some rows see no key: O = 0, LSE = -inf


VARIANTS = [
    # seq_q > seq_k + 48: rows past 148 see no key.
    Variant("window-top-left", (2, 4, 2, 300, 100), 128, window=(48, 16),
            masked_rows=True),
    # off = seq_k - seq_q = -80: rows below 80 see no key; right side
    # unbounded but clipped by causal.
    Variant("window-causal-bottom-right-gqa-bshd", (2, 6, 2, 200, 120), 64,
            layout="bshd", causal=True, window=(40, None),
            mask_alignment="bottom_right", masked_rows=True),
    # Scores of std ~64 before the cap: most rows saturate near +-50.
    Variant("softcap50-large-logits", (2, 4, 4, 256, 256), 128, softcap=50.0,
            qk_scale=8.0),
    Variant("bias-inf-bf16", (2, 4, 4, 130, 200), 128, bias="full",
            masked_rows=True),
    Variant("bias-heads-broadcast-f16-gqa-bshd", (2, 8, 2, 150, 150), 64,
            dtype="f16", layout="bshd", bias="heads"),
    Variant("bool-mask", (2, 4, 4, 200, 300), 128, bias="mask",
            masked_rows=True),
    Variant("d32-causal", (2, 4, 4, 256, 256), 32, causal=True),
    Variant("d96-f16-gqa-bshd", (2, 6, 3, 200, 333), 96, dtype="f16",
            layout="bshd"),
    Variant("d192-causal", (1, 4, 4, 256, 256), 192, causal=True),
    Variant("d256-gqa", (1, 4, 2, 300, 300), 256),
    Variant("d192-dv128-causal", (2, 4, 4, 200, 200), 192, dv=128, causal=True),
    Variant("d128-dv64-gqa-bshd", (2, 8, 2, 256, 256), 128, dv=64,
            layout="bshd"),
]


def make_bias(var, device="cuda", seed=1):
    if var.bias is None:
        return None
    b, hq, _, sq, sk = var.shape
    g = torch.Generator(device=device).manual_seed(seed)
    if var.bias == "mask":
        keep = torch.rand(sq, sk, generator=g, device=device) < 0.7
        keep[3] = False  # rows that see nothing
        keep[50:52] = False
        keep[60, 1:] = False  # one key only
        return keep
    dtype = (torch.float32 if var.bias_dtype == "f32"
             else DTYPES[var.bias_dtype or var.dtype])
    shape = (b, hq, sq, sk) if var.bias == "full" else (1, hq, sq, sk)
    bias = torch.randn(*shape, generator=g, device=device) * 2
    if var.bias == "full":
        hide = torch.rand(*shape, generator=g, device=device) < 0.1
        bias = bias.masked_fill(hide, float("-inf"))
        # Rows that see nothing (in batch 0 and head 0, so that the views of
        # test_bias_strides that broadcast either keep them); one key only.
        bias[0, 0, 5:9] = float("-inf")
        bias[1, 2, 10, :-1] = float("-inf")
    return bias.to(dtype)


def variant_inputs(var, device="cuda"):
    """q, k, v (in the variant's layout) and the bias argument."""
    b, hq, hk, sq, sk = var.shape
    q, k, v = make(b, hq, hk, sq, sk, var.d, DTYPES[var.dtype], var.layout,
                   dv=var.dv, qk_scale=var.qk_scale, device=device)
    return q, k, v, make_bias(var, device)


def call(var, q, k, v, bias):
    return fat.attention(q, k, v, causal=var.causal, window=var.window,
                         softcap=var.softcap, bias=bias,
                         mask_alignment=var.mask_alignment, layout=var.layout,
                         return_lse=True)


def _numpy_bhsd(t, layout):
    if layout == "bshd":
        t = t.transpose(1, 2)
    return t.double().cpu().numpy()


def check_variant(var, q, k, v, bias):
    o, lse = call(var, q, k, v, bias)
    torch.cuda.synchronize()
    dv = var.dv or var.d
    b, hq, hk, sq, sk = var.shape
    assert o.dtype == q.dtype and lse.dtype == torch.float32
    assert o.shape == ((b, hq, sq, dv) if var.layout == "bhsd" else (b, sq, hq, dv))
    window = None if var.window is None else tuple(
        UNBOUNDED if w is None else w for w in var.window)
    cfg = AttentionConfig(batch=b, heads_q=hq, heads_kv=hk, seq_q=sq, seq_k=sk,
                          head_dim=var.d, head_dim_v=var.dv, dtype=var.dtype,
                          causal=var.causal, mask_alignment=var.mask_alignment,
                          window=window, softcap=var.softcap)
    qn, kn, vn = (_numpy_bhsd(t, var.layout) for t in (q, k, v))
    bn = None
    if bias is not None:
        bn = (np.where(bias.cpu().numpy(), 0.0, -np.inf) if bias.dtype == torch.bool
              else bias.double().cpu().numpy())
    ref, ref_lse = oracle.forward(cfg, qn, kn, vn, bn)
    plain = oracle.forward_lowp(cfg, qn, kn, vn, bn)
    ours = _numpy_bhsd(o, var.layout)
    err = oracle.max_error(ours, ref)
    base = oracle.max_error(plain, ref)
    assert err <= 2 * base + EPS[q.dtype], (var.name, err, base)
    lse = lse.double().cpu().numpy()
    hidden = np.isneginf(ref_lse)
    assert np.array_equal(np.isneginf(lse), hidden), var.name
    assert hidden.any() == var.masked_rows, var.name
    assert (ours[hidden] == 0).all(), var.name  # rows that see no key: O = 0
    seen = ~hidden
    tol = 1e-3 * np.maximum(1.0, np.abs(ref_lse[seen]))
    assert (np.abs(lse[seen] - ref_lse[seen]) <= tol).all(), (
        var.name, np.abs(lse[seen] - ref_lse[seen]).max())


@pytest.mark.parametrize("var", VARIANTS, ids=[v.name for v in VARIANTS])
def test_variant(var):
    check_variant(var, *variant_inputs(var))


FULL_BIAS = next(v for v in VARIANTS if v.bias == "full")


def bias_layouts(bias):
    """The same [B, Hq, Sq, Sk] values (or the same broadcast) under other
    strides, all of which the kernel reads through stride(bias, ...)."""
    b, h, sq, sk = bias.shape
    padded = torch.full((b, h, sq, sk + 24), float("nan"), dtype=bias.dtype,
                        device=bias.device)
    padded[..., :sk] = bias
    heads_outer = bias.transpose(0, 1).contiguous().transpose(0, 1)
    return {
        "padded-rows": padded[..., :sk],            # seq_q stride sk + 24
        "heads-outermost": heads_outer,             # batch stride < head stride
        "expanded-batch": bias[:1].expand(b, -1, -1, -1),   # batch stride 0
        "expanded-heads": bias[:, :1].expand(-1, h, -1, -1),  # head stride 0
    }


@pytest.mark.parametrize("layout", ["padded-rows", "heads-outermost",
                                    "expanded-batch", "expanded-heads"])
def test_bias_strides(layout):
    # One kernel (a full [B, Hq, Sq, Sk] bias) for every stride pattern.
    q, k, v, bias = variant_inputs(FULL_BIAS)
    bias = bias_layouts(bias)[layout]
    assert bias.stride(-1) == 1 and not bias.is_contiguous()
    check_variant(FULL_BIAS, q, k, v, bias)

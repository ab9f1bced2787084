"""FP8 (float8_e4m3fn) fa_mlir.torch.attention on an sm_90a GPU: the sm_90a
FP8 forward sequence through libfa_runtime against float64 attention on the
dequantized inputs, with FlashAttention's criterion adapted to FP8: our max
and mean absolute errors are at most 2x those of a plain FP8 attention
(fa_mlir.torch.emulated_fp8_attention: fp32 scores and softmax, P rounded
to float8_e4m3fn, fp32 P V, then the output dtype) plus a small slack.
Descales per tensor, per (batch, kv head) and per block (descale_block:
tails of both sequences, the 128- and 192-key tiles, q in another form
than k and v).

Every kernel these tests ask for is in configs.json (compiled ahead of time
by run_device.sh build); python/tests/test_fp8_cuda_route.py checks that on
the CPU for CASES."""
from dataclasses import dataclass, replace
from typing import Optional, Tuple

import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.errors import ArgumentError, UnsupportedError  # noqa: E402

# The output dtype's rounding of values of about 1 (the baseline has it too).
SLACK = {torch.bfloat16: 1e-3, torch.float16: 1e-4}
MEAN_SLACK = {torch.bfloat16: 1e-4, torch.float16: 1e-5}
LSE_TOLERANCE = 2e-3  # natural log, as test/Device/check_fp8_sequences.py


@dataclass(frozen=True)
class Case:
    name: str
    sq: int
    sk: int
    d: int
    causal: bool = False
    bottom_right: bool = False
    layout: str = "bhsd"
    out: torch.dtype = torch.bfloat16
    per_head: bool = False  # descales per (batch, kv head), else per tensor
    b: int = 2
    hq: int = 8
    hk: int = 2
    # Per-block descales (block_q, block_k): the kernel of descale_block;
    # q_form "head" or "tensor" gives q's descale in that form instead (it
    # is then expanded to blocks for the kernel).
    descale_block: Optional[Tuple[int, int]] = None
    q_form: Optional[str] = None

    @property
    def block(self):
        if self.descale_block is not None:
            return self.descale_block
        return "head" if self.per_head else None


CASES = [
    Case("d64-full-1000", 1000, 1000, 64),
    Case("d64-causal-1000-per-head", 1000, 1000, 64, causal=True,
         per_head=True),
    # bottom-right with seq_q > seq_k: rows 0..199 see no key.
    Case("d64-causal-br-300x100-f16", 300, 100, 64, causal=True,
         bottom_right=True, out=torch.float16),
    Case("d128-full-1000", 1000, 1000, 128),
    Case("d128-causal-77-f16-per-head", 77, 77, 128, causal=True,
         out=torch.float16, per_head=True),
    Case("d128-causal-br-100x333", 100, 333, 128, causal=True,
         bottom_right=True),
    Case("d128-bshd-full-300x517-per-head", 300, 517, 128, layout="bshd",
         per_head=True),
    Case("d128-bshd-causal-1000-f16", 1000, 1000, 128, causal=True,
         layout="bshd", out=torch.float16),
    Case("d256-full-77x1000", 77, 1000, 256),
    Case("d256-causal-1000-per-head", 1000, 1000, 256, causal=True,
         per_head=True),
    Case("d256-bshd-causal-br-333x100-f16", 333, 100, 256, causal=True,
         bottom_right=True, layout="bshd", out=torch.float16),
    Case("d128-mha-full-1000", 1000, 1000, 128, hq=4, hk=4),
    # Per-block descales: tails of both sequences (300 = 2 * 128 + 44, 517
    # = 4 * 128 + 5; 1000 = 5 * 192 + 40), the 192-key tile of d128.
    Case("d128-causal-300x517-blocks-128x128", 300, 517, 128, causal=True,
         descale_block=(128, 128)),
    Case("d128-full-1000-blocks-64x192", 1000, 1000, 128,
         descale_block=(64, 192)),
    Case("d128-bshd-causal-br-333x1000-blocks-64x192-f16", 333, 1000, 128,
         causal=True, bottom_right=True, layout="bshd", out=torch.float16,
         descale_block=(64, 192)),
    Case("d128-mha-causal-1000-blocks-128x128", 1000, 1000, 128, causal=True,
         hq=4, hk=4, descale_block=(128, 128)),
    Case("d64-causal-1000-blocks-128x256", 1000, 1000, 64, causal=True,
         descale_block=(128, 256)),
    Case("d256-full-77x1000-blocks-32x128", 77, 1000, 256,
         descale_block=(32, 128)),
    # Mixed forms: q per (batch, kv head) or per tensor, k and v per block.
    Case("d128-causal-1000-q-per-head-kv-blocks-128x128", 1000, 1000, 128,
         causal=True, descale_block=(128, 128), q_form="head"),
    Case("d128-full-300x517-q-per-tensor-kv-blocks-64x192", 300, 517, 128,
         descale_block=(64, 192), q_form="tensor"),
]


def inputs(case, device="cuda", seed=0):
    """quantize_fp8 of random float32 q, k, v (on `device`)."""
    g = torch.Generator(device=device).manual_seed(seed)
    shapes = [(case.b, case.hq, case.sq, case.d), (case.b, case.hk, case.sk,
              case.d), (case.b, case.hk, case.sk, case.d)]
    if case.layout == "bshd":
        shapes = [(s[0], s[2], s[1], s[3]) for s in shapes]
    q, k, v = (torch.randn(*s, generator=g, device=device) for s in shapes)
    x = fat.quantize_fp8(q, k, v, block=case.block, layout=case.layout)
    if case.q_form is not None:
        own = fat.quantize_fp8(q, k, v, layout=case.layout,
                               block="head" if case.q_form == "head" else None)
        x = x._replace(q=own.q, q_descale=own.q_descale)
    return x


def call(case, x, **kw):
    return fat.attention(
        x.q, x.k, x.v, q_descale=x.q_descale, k_descale=x.k_descale,
        v_descale=x.v_descale, causal=case.causal, layout=case.layout,
        mask_alignment="bottom_right" if case.bottom_right else None,
        out_dtype=case.out, return_lse=True, descale_block=x.descale_block,
        **kw)


def reference(case, x):
    """float64 output and LSE (bhsd) of the dequantized inputs."""
    return fat.reference_fp8_attention(
        *x[:3], x[3:6], causal=case.causal, bottom_right=case.bottom_right,
        layout=case.layout, descale_block=x.descale_block)


def errors(o, ref):
    diff = (o.double() - ref).abs()
    return diff.max().item(), diff.mean().item()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fp8_forward_against_float64(case):
    x = inputs(case)
    o, lse = call(case, x)
    torch.cuda.synchronize()
    assert o.device == x.q.device and o.dtype == case.out
    assert lse.dtype == torch.float32 and lse.shape == (case.b, case.hq,
                                                        case.sq)
    ref, ref_lse = reference(case, x)
    base = fat.emulated_fp8_attention(
        x.q, x.k, x.v, x[3:6], causal=case.causal,
        bottom_right=case.bottom_right, layout=case.layout,
        out_dtype=case.out, descale_block=x.descale_block)
    if case.layout == "bshd":
        o, base = o.transpose(1, 2), base.transpose(1, 2)
    (err, mean), (base_err, base_mean) = errors(o, ref), errors(base, ref)
    assert err <= 2 * base_err + SLACK[case.out], (err, base_err)
    assert mean <= 2 * base_mean + MEAN_SLACK[case.out], (mean, base_mean)
    hidden = torch.isneginf(ref_lse)
    assert torch.equal(torch.isneginf(lse), hidden)
    # FP8 wgmma accumulates Q K^T in less than f32's precision (about 14
    # significand bits on Hopper): at d256 the LSE moves by ~1e-3.
    assert (lse.double()[~hidden] - ref_lse[~hidden]).abs().max() < LSE_TOLERANCE
    assert torch.count_nonzero(o[hidden]) == 0  # fully hidden rows give 0
    if case.bottom_right and case.sq > case.sk:
        assert hidden.any()  # the case has the rows it means to test


def test_per_tensor_and_per_head_descales_agree():
    # The same values as per-tensor descales and as [B, Hkv] ones that all
    # hold the same number: one kernel, the same result bit for bit.
    case = CASES[3]
    x = inputs(case)
    o, lse = call(case, x)
    full = [d.reshape(1, 1).expand(case.b, case.hk).clone() for d in x[3:6]]
    o2, lse2 = call(case, x._replace(q_descale=full[0], k_descale=full[1],
                                     v_descale=full[2]))
    assert torch.equal(o, o2) and torch.equal(lse, lse2)


def test_quantize_on_cuda_stays_on_cuda():
    q, k, v = (torch.randn(2, 4, 64, 64, device="cuda") for _ in range(3))
    x = fat.quantize_fp8(q, k, v, incoherent=True)
    assert all(t.device == q.device for t in x[:6])
    assert x.q.dtype == torch.float8_e4m3fn and x.q_descale.shape == ()


def test_rejected_on_cuda():
    case = CASES[3]
    x = inputs(case)
    with pytest.raises(ArgumentError, match="k_descale is on cpu, expected "
                       "cuda"):
        call(case, x._replace(k_descale=x.k_descale.cpu()))
    # Blocks of 64 keys: a key tile (128 or 192 at d128) would span two.
    blocks = fat.quantize_fp8(*(t.float() for t in x[:3]), block=64)
    with pytest.raises(UnsupportedError, match=r"descale_block \(64, 64\): "
                       "block_k must be a multiple of 128 or 192"):
        call(case, blocks)
    with pytest.raises(UnsupportedError, match="out_dtype torch.float32"):
        call(replace(case, out=torch.float32), x)


def test_backward_is_unsupported_on_cuda():
    case = CASES[3]
    x = inputs(case)
    x.q.requires_grad_(True)
    o, _ = call(case, x)
    with pytest.raises(UnsupportedError, match="forward only"):
        o.float().sum().backward()

"""FP8 on the CPU: fa_mlir.torch.quantize_fp8 (per tensor, per block,
incoherent) and fa_mlir.torch.attention on float8_e4m3fn inputs with their
descales, against float64 on the dequantized values; rejected inputs."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import reference  # noqa: E402
from fa_mlir.config import AttentionConfig  # noqa: E402
from fa_mlir.errors import ArgumentError  # noqa: E402


def qkv(b=1, hq=4, hk=2, sq=70, sk=90, d=32, layout="bhsd", seed=0):
    g = torch.Generator().manual_seed(seed)
    shapes = [(b, hq, sq, d), (b, hk, sk, d), (b, hk, sk, d)]
    if layout == "bshd":
        shapes = [(s[0], s[2], s[1], s[3]) for s in shapes]
    return [torch.randn(*s, generator=g) for s in shapes]


def test_incoherent_matrix_is_orthogonal_for_any_head_dim():
    for n in (64, 48, 96, 7):
        m = fat.incoherent_matrix(n, seed=5).double()
        assert torch.allclose(m @ m.T, torch.eye(n, dtype=torch.float64),
                              atol=1e-6)
    assert not torch.equal(fat.incoherent_matrix(64, 1),
                           fat.incoherent_matrix(64, 2))


def test_quantize_shapes_and_scales():
    q, k, v = qkv()
    x = fat.quantize_fp8(q, k, v, block=32)
    assert x.q.dtype == torch.float8_e4m3fn and x.q.shape == q.shape
    assert x.q_descale.shape == (1, 4, 3) and x.k_descale.shape == (1, 2, 3)
    assert x.descale_block == (32, 32)
    # amax / 448 per (head, block of 32 rows): each block's largest code is
    # ±448, also in the tail block (rows 64..69).
    codes = torch.nn.functional.pad(x.q.float().abs(), (0, 0, 0, 26))
    assert (codes.view(1, 4, 3, 32 * 32).amax(dim=3) == 448).all()
    blocks = torch.nn.functional.pad(q.abs(), (0, 0, 0, 26))
    assert torch.allclose(x.q_descale,
                          blocks.view(1, 4, 3, -1).amax(dim=3) / 448)
    t = fat.quantize_fp8(q, k, v)
    assert t.q_descale.shape == () and t.descale_block is None
    assert torch.allclose(t.q_descale, q.abs().max() / 448)


def test_quantize_bshd_blocks_run_along_seq():
    q, k, v = qkv(layout="bshd")
    x = fat.quantize_fp8(q, k, v, block=16, layout="bshd")
    assert x.q_descale.shape == (1, 4, 5)
    back = fat.dequantize_fp8(x.q, x.q_descale, 16, "bshd")
    assert (back - q).abs().max() <= q.abs().max() / 16


@pytest.mark.parametrize("block,incoherent,layout,causal,out_dtype", [
    (None, False, "bhsd", True, torch.bfloat16),
    (32, False, "bshd", False, torch.float32),
    (32, True, "bhsd", True, torch.float16),
])
def test_attention_fp8_against_float64(block, incoherent, layout, causal,
                                       out_dtype):
    q, k, v = qkv(layout=layout)
    x = fat.quantize_fp8(q, k, v, block=block, incoherent=incoherent,
                         seed=3, layout=layout)
    o, lse = fat.attention(x.q, x.k, x.v, q_descale=x.q_descale,
                           k_descale=x.k_descale, v_descale=x.v_descale,
                           descale_block=x.descale_block, causal=causal,
                           layout=layout, out_dtype=out_dtype,
                           return_lse=True)
    assert o.dtype == out_dtype and o.shape == q.shape
    deq = [fat.dequantize_fp8(t, d, block, layout).double()
           for t, d in zip(x[:3], x[3:6])]
    if layout == "bshd":
        deq = [t.transpose(1, 2) for t in deq]
        o = o.transpose(1, 2)
    cfg = AttentionConfig(batch=1, heads_q=4, heads_kv=2, seq_q=70, seq_k=90,
                          head_dim=32, causal=causal)
    ref_o, ref_lse = reference.forward(cfg, *(t.numpy() for t in deq))
    elem = {torch.bfloat16: "bf16", torch.float16: "f16",
            torch.float32: "f32"}[out_dtype]
    base = reference.max_error(
        reference.forward_lowp(cfg, *(t.numpy() for t in deq), dtype=elem),
        ref_o)
    assert reference.max_error(o.double().numpy(), ref_o) <= 2 * base + 1e-5
    assert np.abs(lse.numpy() - ref_lse).max() < 1e-4


def fp8_call(**overrides):
    q, k, v = qkv(sq=40, sk=40)
    x = fat.quantize_fp8(q, k, v, block=16)
    args = dict(q_descale=x.q_descale, k_descale=x.k_descale,
                v_descale=x.v_descale, descale_block=x.descale_block)
    args.update(overrides)
    return fat.attention(x.q, x.k, x.v, **args)


@pytest.mark.parametrize("overrides,message", [
    (dict(k_descale=None), "k_descale must be a torch.Tensor"),
    (dict(v_descale=torch.ones(1, 2, 3, dtype=torch.float64)),
     "v_descale must be a float32 tensor, got torch.float64"),
    (dict(q_descale=torch.ones(1, 2, 3)), r"q_descale has shape \(1, 2, 3\); "
     r"expected one of \(\), \(1, 2\), \(1, 4, 3\)"),
    (dict(k_descale=torch.ones(1, 2, 4)), r"k_descale has shape \(1, 2, 4\)"),
    (dict(descale_block=None), r"q_descale has shape \(1, 4, 3\); expected "
     r"one of \(\), \(1, 2\) \(per tensor, per \(batch, kv head\)\)"),
    (dict(descale_block=(16, 0)), "descale_block must be"),
    (dict(q_descale=torch.ones(()), k_descale=torch.ones(()),
          v_descale=torch.ones(())), "descale_block is given but no descale"),
    (dict(out_dtype=torch.float8_e4m3fn), "out_dtype must be"),
])
def test_attention_fp8_rejects(overrides, message):
    with pytest.raises(ArgumentError, match=message):
        fp8_call(**overrides)


def test_attention_fp8_rejects_bias_and_descales_on_other_dtypes():
    q, k, v = qkv(sq=8, sk=8)
    with pytest.raises(ArgumentError, match="q_descale is only for "
                       "float8_e4m3fn inputs"):
        fat.attention(q, k, v, q_descale=torch.ones(()))
    x = fat.quantize_fp8(q, k, v)
    with pytest.raises(ArgumentError, match="bias is not supported"):
        fat.attention(x.q, x.k, x.v, q_descale=x.q_descale,
                      k_descale=x.k_descale, v_descale=x.v_descale,
                      bias=torch.zeros(8, 8))


def test_quantize_rejects():
    q, k, v = qkv(sq=8, sk=8)
    with pytest.raises(ArgumentError, match="block must be None"):
        fat.quantize_fp8(q, k, v, block=0)
    with pytest.raises(ArgumentError, match="'head' .per .batch, kv head.."):
        fat.quantize_fp8(q, k, v, block="tensor")
    for block in ((64, 0), (64,), (64, 128, 1), (64.0, 128), (True, 128)):
        with pytest.raises(ArgumentError, match="a tuple .block_q, block_k. "
                           "of them, got"):
            fat.quantize_fp8(q, k, v, block=block)
    with pytest.raises(ArgumentError, match="incoherent must be True or False"):
        fat.quantize_fp8(q, k, v, incoherent=1)
    with pytest.raises(ArgumentError, match="seed must be an int"):
        fat.quantize_fp8(q, k, v, seed=-1)
    with pytest.raises(ArgumentError, match="key has dtype"):
        fat.quantize_fp8(q, k.double(), v)


def test_quantize_with_blocks_of_their_own_for_q_and_kv():
    # block=(block_q, block_k): q's descales as with block=block_q, k's and
    # v's as with block=block_k.
    q, k, v = qkv(b=2, layout="bshd")
    x = fat.quantize_fp8(q, k, v, block=(16, 64), layout="bshd")
    assert x.descale_block == (16, 64)
    assert x.q_descale.shape == (2, 4, 5) and x.k_descale.shape == (2, 2, 2)
    by_q = fat.quantize_fp8(q, k, v, block=16, layout="bshd")
    by_k = fat.quantize_fp8(q, k, v, block=64, layout="bshd")
    assert torch.equal(x.q_descale, by_q.q_descale)
    assert torch.equal(x.q.view(torch.uint8), by_q.q.view(torch.uint8))
    for got, want in ((x.k_descale, by_k.k_descale),
                      (x.v_descale, by_k.v_descale)):
        assert torch.equal(got, want)
    assert fat.quantize_fp8(q, k, v, block=[16, 64],
                            layout="bshd").descale_block == (16, 64)
    back = fat.dequantize_fp8(x.k, x.k_descale, 64, layout="bshd")
    assert (back - k).abs().max() <= k.abs().max() / 16


def test_quantize_per_kv_head_and_attention_on_it():
    # block="head": [B, Hkv] descales, the query heads of a kv head sharing
    # one (the form the sm_90a kernel takes besides per tensor).
    q, k, v = qkv(b=2, layout="bshd")
    x = fat.quantize_fp8(q, k, v, block="head", layout="bshd")
    assert x.descale_block is None
    assert all(d.shape == (2, 2) for d in x[3:6])
    groups = q.transpose(1, 2).reshape(2, 2, -1)  # heads 0-1 and 2-3
    assert torch.allclose(x.q_descale, groups.abs().amax(dim=2) / 448)
    assert torch.allclose(x.k_descale, k.abs().amax(dim=(1, 3)) / 448)
    back = fat.dequantize_fp8(x.q, x.q_descale, layout="bshd")
    assert (back - q).abs().max() <= q.abs().max() / 16
    o = fat.attention(x.q, x.k, x.v, q_descale=x.q_descale,
                      k_descale=x.k_descale, v_descale=x.v_descale,
                      layout="bshd", out_dtype=torch.float32)
    deq = [fat.dequantize_fp8(t, d, layout="bshd").transpose(1, 2).double()
           for t, d in zip(x[:3], x[3:6])]
    cfg = AttentionConfig(batch=2, heads_q=4, heads_kv=2, seq_q=70,
                          seq_k=90, head_dim=32)
    ref_o, _ = reference.forward(cfg, *(t.numpy() for t in deq))
    assert reference.max_error(o.transpose(1, 2).double().numpy(),
                               ref_o) < 1e-5


@pytest.mark.parametrize("causal,bottom_right", [(False, False),
                                                 (True, False), (True, True)])
def test_emulated_fp8_attention_is_the_criterion_baseline(causal,
                                                          bottom_right):
    # The GPU test's baseline: a plain FP8 attention whose error against
    # float64 is P's FP8 rounding; the CPU kernel (f32 P) meets 2x of it.
    q, k, v = qkv(sq=90, sk=70)
    x = fat.quantize_fp8(q, k, v)
    align = "bottom_right" if bottom_right else None
    base = fat.emulated_fp8_attention(x.q, x.k, x.v, x[3:6], causal=causal,
                                      bottom_right=bottom_right,
                                      out_dtype=torch.float32)
    ours = fat.attention(x.q, x.k, x.v, q_descale=x.q_descale,
                         k_descale=x.k_descale, v_descale=x.v_descale,
                         causal=causal, mask_alignment=align,
                         out_dtype=torch.float32)
    deq = [fat.dequantize_fp8(t, d).double() for t, d in zip(x[:3], x[3:6])]
    cfg = AttentionConfig(batch=1, heads_q=4, heads_kv=2, seq_q=90, seq_k=70,
                          head_dim=32, causal=causal, mask_alignment=align)
    ref_o, _ = reference.forward(cfg, *(t.numpy() for t in deq))
    base_err = reference.max_error(base.double().numpy(), ref_o)
    # P's rounding: visible, and at most half an FP8 ulp (2^-4) of each P
    # times |v|, so 2^-4 max |v| in all.
    assert 1e-4 < base_err <= 2 ** -4 * deq[2].abs().max().item()
    assert reference.max_error(ours.double().numpy(), ref_o) <= 2 * base_err
    if bottom_right:  # rows 0..19 see no key: their output is 0
        assert torch.equal(base[:, :, :20], torch.zeros_like(base[:, :, :20]))

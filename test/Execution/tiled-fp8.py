# FP8 (f8E4M3FN) inputs with descales through fa-tile-attention on the CPU:
# the tiles are decoded to f32 and multiplied by their descale on
# conversion, per tensor, per (batch, kv head) or per block (per row of the
# tile). Compared with the float64
# reference on the dequantized values (FlashAttention's criterion against a
# plain f32 implementation of the same values, for outputs f32 and bf16),
# also with split-KV, and once through the reference decomposition.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir.config import AttentionConfig, fp8_forward_mlir
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage
from fa_mlir.memref import CompiledFunction
from fa_mlir import reference

PIPELINE = "fa-cpu-pipeline{tiled=true}"


def e4m3fn_values():
    """The value of each of the 256 f8E4M3FN codes (NaN for 0x7F, 0xFF)."""
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp = (codes >> 3) & 0xF
    man = codes & 0x7
    value = np.where(exp == 0, man / 8.0 * 2.0 ** -6,
                     (1 + man / 8.0) * 2.0 ** (exp - 7.0))
    value = sign * value
    value[(codes & 0x7F) == 0x7F] = np.nan
    return value


VALUES = e4m3fn_values()


def random_codes(rng, shape):
    """Codes of values in about [-4, 4], no NaN."""
    codes = rng.integers(0, 256, size=shape)
    mag = np.abs(VALUES[codes])
    bad = ~np.isfinite(mag) | (mag > 4)
    codes[bad] = rng.integers(0, 0x48, size=int(bad.sum()))
    return codes.astype(np.uint8)


def descale_shape(cfg, role, form, blocks):
    """The descale's shape: per tensor, per (batch, kv head), or per block
    (Q: [B, Hq, ceil(Sq / block_q)], K/V: [B, Hkv, ceil(Sk / block_k)])."""
    if form == "tensor":
        return ()
    if form == "head":
        return (cfg.batch, cfg.heads_kv)
    if role == "query":
        return (cfg.batch, cfg.heads_q, -(-cfg.seq_q // blocks[0]))
    return (cfg.batch, cfg.heads_kv, -(-cfg.seq_k // blocks[1]))


def per_row(scale, role, form, blocks, seq):
    """A descale broadcastable over [B, H, S, D] (bhsd)."""
    s = np.asarray(scale, np.float64)
    if form == "tensor":
        return s
    if form == "head":
        return s[:, :, None, None]
    block = blocks[0] if role == "query" else blocks[1]
    return s[:, :, np.arange(seq) // block, None]


failed = 0
PT, PH = ("tensor",) * 3, ("tensor", "head", "tensor")
CASES = [
    ("per-tensor causal gqa f32-out", dict(heads_q=4, heads_kv=2, causal=True),
     PT, None, "f32"),
    ("per-head window bf16-out", dict(heads_q=2, heads_kv=2, window=(40, 8)),
     PH, None, "bf16"),
    ("per-head bshd f16-out", dict(heads_q=2, heads_kv=1, layout="bshd",
                                   seq_q=70, seq_k=130), PH, None, "f16"),
    # Split-KV: the V descale is applied to each split's partial output.
    ("per-head split-kv decode bf16-out",
     dict(heads_q=4, heads_kv=2, seq_q=3, seq_k=300, causal=True,
          mask_alignment="bottom_right", num_splits=3), PH, None, "bf16"),
    # Per-block descales whose blocks (48 query rows, 40 keys) do not nest
    # with the 64x64 tiles, so a tile spans two descale blocks; GQA, tails.
    ("per-block causal gqa f32-out",
     dict(heads_q=4, heads_kv=2, causal=True), ("block",) * 3, (48, 40),
     "f32"),
    ("per-block q, per-head k, per-block v bshd bf16-out",
     dict(heads_q=2, heads_kv=1, layout="bshd", seq_q=70, seq_k=130),
     ("block", "head", "block"), (16, 100), "bf16"),
    # Split-KV with per-block V: applied to V's rows, not to the partials.
    ("per-block split-kv f32-out",
     dict(heads_q=2, heads_kv=2, seq_q=5, seq_k=300, num_splits=3),
     ("tensor", "block", "block"), (64, 33), "f32"),
    # The reference decomposition (untiled pipeline) reads FP8 too.
    ("per-block decomposed gqa f32-out", dict(heads_q=4, heads_kv=2, seq_q=70),
     ("block", "head", "block"), (16, 100), "f32", "fa-cpu-pipeline"),
]
for name, overrides, forms, blocks, out_elem, *pipeline in CASES:
    cfg = AttentionConfig(**{**dict(batch=2, seq_q=150, seq_k=150,
                                    head_dim=32, dtype="f32"), **overrides})
    rng = np.random.default_rng(len(name))
    roles = ("query", "key", "value")
    codes = {r: random_codes(rng, cfg.shape(r)) for r in roles}
    shapes = {r: descale_shape(cfg, r, f, blocks) for r, f in zip(roles, forms)}
    scales = {r: rng.uniform(0.5, 2.0, shapes[r]).astype(np.float32)
              for r in roles}
    seqs = {"query": cfg.seq_q, "key": cfg.seq_k, "value": cfg.seq_k}

    def logical(role, form):
        x = VALUES[codes[role]]
        if cfg.layout == "bshd":
            x = x.transpose(0, 2, 1, 3)
        return x * per_row(scales[role], role, form, blocks, seqs[role])

    q, k, v = (logical(r, f) for r, f in zip(roles, forms))
    ref_o, ref_lse = reference.forward(cfg, q, k, v)
    base_o = reference.forward_lowp(cfg, q, k, v, dtype=out_elem)

    fn = CompiledFunction(compile_to_shared_library(
        fp8_forward_mlir(cfg, list(shapes.values()), blocks, out_elem),
        pipeline[0] if pipeline else PIPELINE), "attention")
    storage = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[out_elem]
    o = np.zeros(cfg.shape("output"), storage)
    lse = np.zeros(cfg.shape("lse"), np.float32)
    fn(codes["query"], codes["key"], codes["value"], *scales.values(), o, lse)
    o = from_storage(o, out_elem).astype(np.float64)
    if cfg.layout == "bshd":
        o = o.transpose(0, 2, 1, 3)
    err = reference.max_error(o, ref_o)
    base = reference.max_error(base_o, ref_o)
    lse_err = reference.max_error(lse, ref_lse)
    ok = err <= 2 * base + 1e-5 and lse_err < 1e-4 * max(1, np.abs(ref_lse).max())
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} fp8 {name}: err {err:.3g} baseline "
          f"{base:.3g} lse_err {lse_err:.3g}")

print(f"{failed} failed")

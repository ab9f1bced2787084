# fa-fp8-quantize end to end on the CPU: an f32/f16/bf16 fa.attention
# rewritten into quantization (per tensor or per block, optionally after the
# incoherent transform) + FP8 attention, compiled with the tiled CPU
# pipeline. Without the transform the pass must quantize exactly as
# fa_mlir.torch.quantize_fp8 does (same amax, same division, same rounding),
# so the output is held to FlashAttention's criterion against float64 on
# those dequantized values. With it, summation order may flip a few FP8
# codes, so its error against the exact attention of the original inputs
# must match that of quantize_fp8's inputs in float64 (within 25%).
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np
import torch

from fa_mlir import reference
from fa_mlir.config import AttentionConfig, forward_mlir
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, to_storage
from fa_mlir.memref import CompiledFunction
from fa_mlir.torch import dequantize_fp8, quantize_fp8

TORCH = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def fa3_inputs(rng, shape):
    """FA3's test distribution: N(0, 1), plus N(0, 100) on 0.1% of entries."""
    x = rng.standard_normal(shape)
    outliers = rng.random(shape) < 1e-3
    return x + outliers * rng.normal(0.0, 10.0, shape)


def run_pass(cfg, inputs, block, incoherent, seed):
    pipeline = (f"fa-fp8-quantize{{block={block} incoherent={incoherent} "
                f"seed={seed}}},fa-cpu-pipeline{{tiled=true}}")
    fn = CompiledFunction(compile_to_shared_library(forward_mlir(cfg),
                                                    pipeline), "attention")
    args = [to_storage(x, cfg.dtype) for x in inputs]
    o = np.zeros(cfg.shape("output"), to_storage(np.zeros(1), cfg.dtype).dtype)
    lse = np.zeros(cfg.shape("lse"), np.float32)
    fn(*args, o, lse)
    return bhsd(cfg, from_storage(o, cfg.dtype)), lse


def bhsd(cfg, x):
    return x.transpose(0, 2, 1, 3) if cfg.layout == "bshd" else x


def dequantized(cfg, inputs, block, incoherent, seed):
    """quantize_fp8's inputs as float64 bhsd arrays."""
    t = [torch.from_numpy(np.ascontiguousarray(x, np.float32))
         .to(TORCH[cfg.dtype]) for x in inputs]
    fp8 = quantize_fp8(*t, block=block or None, incoherent=incoherent,
                       seed=seed, layout=cfg.layout)
    return [bhsd(cfg, dequantize_fp8(x8, d, block or None, cfg.layout)
                 .double().numpy())
            for x8, d in zip(fp8[:3], fp8[3:6])]


CASES = [
    ("per-tensor bf16 causal gqa", dict(heads_q=4, heads_kv=2, causal=True,
                                        dtype="bf16"), 0, False),
    ("per-block 64 f32 bshd tails", dict(layout="bshd", seq_q=150, seq_k=130),
     64, False),
    ("per-block 32 f16 window", dict(dtype="f16", window=(40, 8)), 32, False),
    ("per-block 64 incoherent f32 d64", dict(head_dim=64), 64, True),
    # 48 = 32 + 16: a block-diagonal Hadamard.
    ("per-tensor incoherent f32 d48 gqa", dict(head_dim=48, heads_q=2,
                                               heads_kv=1), 0, True),
]
failed = 0
for name, overrides, block, incoherent in CASES:
    cfg = AttentionConfig(**{**dict(batch=2, heads_q=2, heads_kv=2, seq_q=150,
                                    seq_k=150, head_dim=32, dtype="f32"),
                             **overrides})
    rng = np.random.default_rng(len(name))
    inputs = [fa3_inputs(rng, cfg.shape(r)).astype(np.float32)
              for r in ("query", "key", "value")]
    # The values the kernel sees: the inputs rounded to their dtype.
    inputs = [from_storage(to_storage(x, cfg.dtype), cfg.dtype)
              .astype(np.float32) for x in inputs]
    o, lse = run_pass(cfg, inputs, block, str(incoherent).lower(), seed=3)
    q, k, v = dequantized(cfg, inputs, block, incoherent, seed=3)
    if not incoherent:
        ref_o, ref_lse = reference.forward(cfg, q, k, v)
        base = reference.max_error(
            reference.forward_lowp(cfg, q, k, v, dtype=cfg.dtype), ref_o)
        err = reference.max_error(o, ref_o)
        ok = err <= 2 * base + 1e-5
    else:
        exact, _ = reference.forward(cfg, *(bhsd(cfg, x) for x in inputs))
        ref_o, _ = reference.forward(cfg, q, k, v)
        base = reference.max_error(ref_o, exact)
        err = reference.max_error(o, exact)
        ok = err <= 1.25 * base + 1e-5
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {name}: err {err:.3g} baseline {base:.3g}")

print(f"{failed} failed")

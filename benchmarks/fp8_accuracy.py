"""FP8 attention accuracy on the CPU: RMSE of O against float64 on
FlashAttention-3's test distribution (N(0, 1) entries plus N(0, 100) on 0.1%
of them), for

  plain        Q, K, V quantized per tensor (amax / 448), then standard
               attention in torch (float32 softmax(Q Kᵀ) V of the
               dequantized values, rounded to bf16)
  per-tensor   ours: fa-fp8-quantize{block=0} + the tiled CPU kernel
  block        ours: fa-fp8-quantize{block=B}
  block+incoh  ours: fa-fp8-quantize{block=B incoherent=true}
  incoh        ours: fa-fp8-quantize{block=0 incoherent=true}
  floor        the float64 result rounded to bf16 (the output type alone)

from bf16 inputs, bf16 output; the reference is float64 attention of the
bf16 inputs. Not a test: `python benchmarks/fp8_accuracy.py` prints a
markdown table (docs/FP8Accuracy.md has the measured numbers).
"""
import argparse
import math

import numpy as np
import torch

from fa_mlir.config import AttentionConfig, forward_mlir
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, to_storage
from fa_mlir.memref import CompiledFunction
from fa_mlir.torch import dequantize_fp8, quantize_fp8


def fa3_inputs(gen, shape):
    x = torch.randn(*shape, generator=gen, dtype=torch.float64)
    outliers = torch.rand(*shape, generator=gen, dtype=torch.float64) < 1e-3
    x = x + outliers * 10.0 * torch.randn(*shape, generator=gen,
                                          dtype=torch.float64)
    return x.to(torch.bfloat16)


def reference(q, k, v, causal, dtype=torch.float64):
    """Attention in `dtype` (bhsd), K and V heads repeated for GQA."""
    q, k, v = (t.to(dtype) for t in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n, m = s.shape[-2:]
        s = s.masked_fill(torch.ones(n, m, dtype=torch.bool).triu(1),
                          float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def plain_fp8(q, k, v, causal):
    x = quantize_fp8(q, k, v)
    deq = [dequantize_fp8(t, d).float() for t, d in zip(x[:3], x[3:6])]
    return reference(*deq, causal, torch.float32).to(torch.bfloat16)


def ours(q, k, v, causal, block, incoherent, seed):
    b, hq, s, d = q.shape
    cfg = AttentionConfig(batch=b, heads_q=hq, heads_kv=k.shape[1], seq_q=s,
                          seq_k=k.shape[2], head_dim=d, dtype="bf16",
                          causal=causal, return_lse=False)
    pipeline = (f"fa-fp8-quantize{{block={block} "
                f"incoherent={str(incoherent).lower()} seed={seed}}},"
                "fa-cpu-pipeline{tiled=true}")
    fn = CompiledFunction(compile_to_shared_library(forward_mlir(cfg),
                                                    pipeline), "attention")
    out = np.zeros(cfg.shape("output"), np.uint16)
    fn(*(to_storage(t.float().numpy(), "bf16") for t in (q, k, v)), out)
    return torch.from_numpy(from_storage(out, "bf16"))


def rmse(o, ref):
    return (o.double() - ref).pow(2).mean().sqrt().item()


def measure(shape, causal, block, seed):
    b, h, s, d = shape
    gen = torch.Generator().manual_seed(seed)
    q, k, v = (fa3_inputs(gen, (b, h, s, d)) for _ in range(3))
    ref = reference(q, k, v, causal)
    return {
        "plain": rmse(plain_fp8(q, k, v, causal), ref),
        "per-tensor": rmse(ours(q, k, v, causal, 0, False, seed), ref),
        "block": rmse(ours(q, k, v, causal, block, False, seed), ref),
        "block+incoh": rmse(ours(q, k, v, causal, block, True, seed), ref),
        "incoh": rmse(ours(q, k, v, causal, 0, True, seed), ref),
        "floor (O in bf16)": rmse(
            reference(q, k, v, causal).float().to(torch.bfloat16), ref),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", default="1x4x1024x128,1x4x1024x64",
                   help="BxHxSxD, comma-separated")
    p.add_argument("--block", type=int, default=128)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    columns = ["plain", "per-tensor", "block", "block+incoh", "incoh",
               "floor (O in bf16)"]
    print(f"| shape | {' | '.join(columns)} | plain / block+incoh |")
    print("|---" * (len(columns) + 2) + "|")
    for spec in args.shapes.split(","):
        shape = tuple(int(x) for x in spec.split("x"))
        r = measure(shape, args.causal, args.block, args.seed)
        name = (f"B{shape[0]} H{shape[1]} S{shape[2]} d{shape[3]}"
                f"{' causal' if args.causal else ''}")
        cells = " | ".join(f"{r[c]:.3e}" for c in columns)
        print(f"| {name} | {cells} | {r['plain'] / r['block+incoh']:.2f}x |",
              flush=True)


if __name__ == "__main__":
    main()

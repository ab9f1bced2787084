"""The main job: compile one attention program with fa-opt and run it on the CPU.

Builds fa.attention for a small GPT-style layer (bf16, causal, grouped-query
heads), lowers it with fa-cpu-pipeline into a shared library, runs it on
random inputs and prints part of the result and its error against a float64
reference, next to the error of a plain bf16 implementation.
"""
import argparse

import numpy as np

from fa_mlir import config as fa_config
from fa_mlir import reference, testing
from fa_mlir.config import AttentionConfig


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seq", type=int, default=256)
    parser.add_argument("--dtype", default="bf16", choices=["f32", "f16", "bf16"])
    parser.add_argument("--pipeline", default="fa-cpu-pipeline")
    args = parser.parse_args()

    cfg = AttentionConfig(batch=1, heads_q=8, heads_kv=2, seq_q=args.seq,
                          seq_k=args.seq, head_dim=64, dtype=args.dtype,
                          causal=True)
    print("program:")
    print(fa_config.forward_mlir(cfg))
    inputs = testing.random_inputs(cfg, seed=0)
    out, lse = testing.run_forward(cfg, inputs, args.pipeline)
    ref_out, ref_lse = reference.forward(cfg, inputs["query"], inputs["key"],
                                         inputs["value"])
    plain = reference.forward_lowp(cfg, inputs["query"], inputs["key"],
                                   inputs["value"])
    np.set_printoptions(precision=4, suppress=True)
    print(f"output[0, 0, :4, :6] ({args.pipeline}, {args.dtype}):")
    print(out[0, 0, :4, :6])
    err = reference.max_error(out, ref_out)
    base = reference.max_error(plain, ref_out)
    print(f"max |output - float64 reference| = {err:.3g}")
    print(f"max |plain {args.dtype} attention - float64 reference| = {base:.3g}")
    print(f"max |lse - float64 reference| = {reference.max_error(lse, ref_lse):.3g}")
    ok = err <= 2 * base + testing.EPSILON[args.dtype]
    print("PASS: within FlashAttention's criterion (<= 2x plain error)" if ok
          else "FAIL: outside FlashAttention's criterion")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

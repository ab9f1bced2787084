"""The ragged-batch backward configurations of the device round (issue 37
item 4): fa.attention_varlen_grad over packed [total, heads, dim] tokens
with cu_seqlens, and, for the benchmark's equal-length comparison, the dense
bshd fa.attention_grad with the same options. Token counts, sequence counts
and heads are dynamic; head dims static.

Usage:
  gen_varlen_backward_inputs.py          one module of the configurations
                                         fa-compile builds without options
  gen_varlen_backward_inputs.py det      the ones built with --deterministic
  gen_varlen_backward_inputs.py list     the configuration names
"""
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_varlen_inputs as gv  # noqa: E402


@dataclass(frozen=True)
class Config(gv.Config):
    deterministic: bool = False


CONFIGS = {c.name: c for c in [
    Config("vlb_bf16_d128"),
    Config("vlb_bf16_d128_causal", causal=True),
    Config("vlb_bf16_d64", head_dim=64),
    Config("vlb_bf16_d64_causal", head_dim=64, causal=True),
    Config("vlb_f16_d128_causal_br", dtype="f16", causal=True, alignment="bottom_right"),
    Config("vlb_bf16_d64_window", head_dim=64, window=(100, 0)),
    Config("vlb_f16_d64_softcap", dtype="f16", head_dim=64, softcap=30.0),
    Config("vlb_bf16_d128v64", head_dim=128, head_dim_v=64),
    Config("vlb_bf16_d128_causal_det", causal=True, deterministic=True),
    Config("vlb_bf16_d64_det", head_dim=64, deterministic=True),
    Config("dense_bwd_bf16_d128", op="dense"),
    Config("dense_bwd_bf16_d128_causal", op="dense", causal=True),
    Config("dense_bwd_bf16_d64", op="dense", head_dim=64),
    Config("dense_bwd_bf16_d64_causal", op="dense", head_dim=64, causal=True),
]}


def function(c):
    attrs = gv._attrs(c)
    if c.op == "dense":
        qk = f"tensor<?x?x?x{c.head_dim}x{c.dtype}>"
        vo = f"tensor<?x?x?x{c.dv}x{c.dtype}>"
        lse = "tensor<?x?x?xf32>"
        ins = [("do", vo), ("q", qk), ("k", qk), ("v", vo), ("o", vo), ("lse", lse)]
        op = "fa.attention_grad"
    else:
        qk = f"tensor<?x?x{c.head_dim}x{c.dtype}>"
        vo = f"tensor<?x?x{c.dv}x{c.dtype}>"
        cu = "tensor<?xi32>"
        ins = [("do", vo), ("q", qk), ("k", qk), ("v", vo), ("o", vo),
               ("lse", "tensor<?x?xf32>"), ("cq", cu), ("ck", cu)]
        op = "fa.attention_varlen_grad"
    params = ", ".join(f"%{n}: {t}" for n, t in ins)
    results = f"{qk}, {qk}, {vo}"
    return (f"func.func @{c.name}({params}) -> ({results}) {{\n"
            f"  %dq, %dk, %dv = {op} {', '.join('%' + n for n, _ in ins)} : "
            f"{', '.join(t for _, t in ins)}{attrs} -> {results}\n"
            f"  return %dq, %dk, %dv : {results}\n}}\n")


def main(argv):
    if argv[1:] == ["list"]:
        print("\n".join(CONFIGS))
        return
    det = argv[1:] == ["det"]
    print("\n".join(function(c) for c in CONFIGS.values() if c.deterministic == det))


if __name__ == "__main__":
    main(sys.argv)

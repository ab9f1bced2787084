"""The kernel configurations of the variant benchmark (test/Device/bench_variants.py)
as fa.attention functions, for fa-compile to turn into bundles.

One func.func per configuration, bf16, bhsd, with LSE, dynamic batch, heads
and sequence lengths (head dims static), like gen_attention_inputs.py:

  swa4096_d128_causal       Mistral-style sliding window: causal, window [4095, 0]
                            (each query sees itself and the 4095 keys before it)
  dense_d256, *_causal      plain head dim 256
  softcap50_d256_causal     Gemma-2: softcap 50 at head dim 256, causal
  mla_d192_v128[_causal]    DeepSeek MLA-like: QK head dim 192, V head dim 128
  alibi_d128_bf16[_causal]  additive bias bf16 (ALiBi; the benchmark passes
                            [1, heads, seq_q, seq_k], the type is dynamic in all four)
  dense_d128[_causal]       the dense references of the windowed/bias rows
                            (the same configurations as gen_attention_inputs.py
                            bench, compiled again here so that this set stands
                            alone)

Usage:
  gen_bench_inputs.py [all]     one module with every configuration, on stdout
  gen_bench_inputs.py split DIR one module per configuration, DIR/<name>.mlir
                                (build_kernels.sh compiles each into DIR/<name>/,
                                so that a configuration fa-compile rejects does
                                not stop the others, and bundles whose kernel
                                names do not tell the variants apart stay apart)
  gen_bench_inputs.py list      the configuration names
"""
import os
import sys
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Config:
    name: str
    head_dim: int
    head_dim_v: int
    causal: bool = False
    window: Optional[Tuple[int, int]] = None   # (left, right), fa.attention's window
    softcap: Optional[float] = None
    bias_dtype: Optional[str] = None           # bias operand [batch|1, heads_q|1, seq_q, seq_k]
    dtype: str = "bf16"
    layout: str = "bhsd"
    return_lse: bool = True

    @property
    def bias(self):
        return self.bias_dtype is not None

    @property
    def extras(self):
        """True when the configuration is more than dense/causal attention."""
        return self.window is not None or self.softcap is not None or self.bias


CONFIGS = {c.name: c for c in [
    Config("dense_d128", 128, 128),
    Config("dense_d128_causal", 128, 128, causal=True),
    Config("swa4096_d128_causal", 128, 128, causal=True, window=(4095, 0)),
    Config("dense_d256", 256, 256),
    Config("dense_d256_causal", 256, 256, causal=True),
    Config("softcap50_d256_causal", 256, 256, causal=True, softcap=50.0),
    Config("mla_d192_v128", 192, 128),
    Config("mla_d192_v128_causal", 192, 128, causal=True),
    Config("alibi_d128_bf16", 128, 128, bias_dtype="bf16"),
    Config("alibi_d128_causal_bf16", 128, 128, causal=True, bias_dtype="bf16"),
]}


def func(c):
    dt = c.dtype
    tq = f"tensor<?x?x?x{c.head_dim}x{dt}>"
    tv = f"tensor<?x?x?x{c.head_dim_v}x{dt}>"
    attrs = [f"layout = #fa<layout {c.layout}>"]
    if c.causal:
        attrs += ["causal", "mask_alignment = #fa<mask_alignment top_left>"]
    if c.window is not None:
        attrs.append(f"window = array<i64: {c.window[0]}, {c.window[1]}>")
    if c.softcap is not None:
        attrs.append(f"softcap = {float(c.softcap)!r} : f32")
    args = [f"%q: {tq}", f"%k: {tq}", f"%v: {tv}"]
    bias = ""
    if c.bias:
        tb = f"tensor<?x?x?x?x{c.bias_dtype}>"  # dynamic in all four: any broadcast
        args.append(f"%b: {tb}")
        bias = f" bias(%b : {tb})"
    res = f"{tv}, tensor<?x?x?xf32>" if c.return_lse else tv
    outs = "%o, %lse" if c.return_lse else "%o"
    return (f"func.func @{c.name}({', '.join(args)}) -> ({res}) {{\n"
            f"  {outs} = fa.attention %q, %k, %v : {tq}, {tq}, {tv}{bias} "
            f"{{{', '.join(attrs)}}} -> {res}\n"
            f"  return {outs} : {res}\n}}\n")


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which == "all":
        print("".join(func(c) for c in CONFIGS.values()))
    elif which == "split" and len(sys.argv) == 3:
        os.makedirs(sys.argv[2], exist_ok=True)
        for c in CONFIGS.values():
            with open(os.path.join(sys.argv[2], c.name + ".mlir"), "w") as f:
                f.write(func(c))
    elif which == "list":
        print("\n".join(CONFIGS))
    else:
        sys.exit("usage: gen_bench_inputs.py [all | split DIR | list]")


if __name__ == "__main__":
    main()

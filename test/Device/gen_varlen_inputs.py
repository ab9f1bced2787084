"""The ragged-batch configurations of the device round (issue 14):
fa.attention_varlen over packed [total, heads, dim] tokens with cu_seqlens,
and, for the benchmark's equal-length comparison, the dense bshd
fa.attention with the same options (and the LSE, which the varlen kernel
always writes). Token counts, sequence counts and heads are dynamic; head
dims static.

Usage:
  gen_varlen_inputs.py            one module with every configuration, on stdout
  gen_varlen_inputs.py list       the configuration names
"""
import os
import sys
from dataclasses import dataclass
from typing import Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_decode_inputs  # noqa: E402


@dataclass(frozen=True)
class Config:
    name: str
    op: str = "varlen"                        # or "dense" (the benchmark's reference)
    dtype: str = "bf16"
    head_dim: int = 128
    head_dim_v: Optional[int] = None
    causal: bool = False
    alignment: Optional[str] = None           # top_left (default) or bottom_right
    window: Optional[Tuple[int, int]] = None
    softcap: Optional[float] = None

    @property
    def dv(self):
        return self.head_dim_v or self.head_dim


CONFIGS = {c.name: c for c in [
    Config("vl_bf16_d128"),
    Config("vl_bf16_d128_causal", causal=True),
    Config("vl_bf16_d64", head_dim=64),
    Config("vl_bf16_d64_causal", head_dim=64, causal=True),
    Config("vl_f16_d128_causal_br", dtype="f16", causal=True, alignment="bottom_right"),
    Config("vl_bf16_d64_window", head_dim=64, window=(100, 0)),
    Config("vl_f16_d128_softcap", dtype="f16", softcap=30.0),
    Config("vl_bf16_d256_causal", head_dim=256, causal=True),
    Config("vl_bf16_d192v128", head_dim=192, head_dim_v=128),
    Config("dense_bf16_d128", op="dense"),
    Config("dense_bf16_d128_causal", op="dense", causal=True),
    Config("dense_bf16_d64", op="dense", head_dim=64),
    Config("dense_bf16_d64_causal", op="dense", head_dim=64, causal=True),
]}


def _attrs(c):
    attrs = []
    if c.op == "dense":
        attrs.append("layout = #fa<layout bshd>")
    if c.causal:
        attrs.append("causal")
    if c.alignment:
        attrs.append(f"mask_alignment = #fa<mask_alignment {c.alignment}>")
    if c.window:
        attrs.append(f"window = array<i64: {c.window[0]}, {c.window[1]}>")
    if c.softcap:
        attrs.append(f"softcap = {c.softcap} : f32")
    return " {" + ", ".join(attrs) + "}" if attrs else ""


def function(c):
    if c.op == "dense":
        qk = f"tensor<?x?x?x{c.head_dim}x{c.dtype}>"
        vo = f"tensor<?x?x?x{c.dv}x{c.dtype}>"
        lse = "tensor<?x?x?xf32>"
        return (f"func.func @{c.name}(%q: {qk}, %k: {qk}, %v: {vo}) -> ({vo}, {lse}) {{\n"
                f"  %o, %lse = fa.attention %q, %k, %v : {qk}, {qk}, {vo}{_attrs(c)}"
                f" -> {vo}, {lse}\n"
                f"  return %o, %lse : {vo}, {lse}\n}}\n")
    qk = f"tensor<?x?x{c.head_dim}x{c.dtype}>"
    vo = f"tensor<?x?x{c.dv}x{c.dtype}>"
    cu, lse = "tensor<?xi32>", "tensor<?x?xf32>"
    return (f"func.func @{c.name}(%q: {qk}, %k: {qk}, %v: {vo}, %cq: {cu}, %ck: {cu})"
            f" -> ({vo}, {lse}) {{\n"
            f"  %o, %lse = fa.attention_varlen %q, %k, %v, %cq, %ck : {qk}, {qk}, {vo}, {cu},"
            f" {cu}{_attrs(c)} -> {vo}, {lse}\n"
            f"  return %o, %lse : {vo}, {lse}\n}}\n")


def main(argv):
    gen_decode_inputs.cli(argv, CONFIGS, function)


if __name__ == "__main__":
    main(sys.argv)

"""The split-KV decode configurations of the device round (issue 14) as
functions for fa-compile: fa.attention_kvcache (contiguous or paged caches,
per-batch lengths, with or without an append of new keys) and fa.attention
with num_splits (the dense op split), each compiled into a kernel sequence
(append +) partial + combine kernels.

Batch, heads, pages and sequence lengths are dynamic; head dims and the
page size static.

Usage:
  gen_decode_inputs.py            one module with every configuration, on stdout
  gen_decode_inputs.py list       the configuration names
"""
import sys
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Config:
    name: str
    op: str = "kvcache"                       # or "dense"
    dtype: str = "bf16"
    head_dim: int = 128
    causal: bool = False
    window: Optional[Tuple[int, int]] = None
    softcap: Optional[float] = None
    num_splits: int = 0                       # 0: the bundle's heuristic
    layout: str = "bshd"                      # dense only; the cache op is bshd
    alignment: Optional[str] = None           # dense only
    page_size: int = 0                        # kvcache: paged caches (0: contiguous)
    append: bool = False                      # kvcache: k, v appended first


CONFIGS = {c.name: c for c in [
    Config("kv_bf16_d128"),
    Config("kv_bf16_d128_causal", causal=True),
    Config("kv_bf16_d64_window", head_dim=64, window=(100, 0)),
    Config("kv_f16_d128_softcap_causal", dtype="f16", causal=True, softcap=30.0),
    Config("kv_bf16_d128_split3", num_splits=3),
    Config("kv_bf16_d256_causal", head_dim=256, causal=True),
    Config("kv_bf16_d128_page16", page_size=16),
    Config("kv_bf16_d128_page128", page_size=128),
    Config("kv_bf16_d128_page256_causal", page_size=256, causal=True),
    Config("kv_f16_d64_page64_window", dtype="f16", head_dim=64, page_size=64, window=(100, 0)),
    Config("kv_bf16_d256_page128_causal", head_dim=256, page_size=128, causal=True),
    Config("kv_bf16_d128_append_causal", append=True, causal=True),
    Config("kv_bf16_d128_page32_append_causal", page_size=32, append=True, causal=True),
    Config("kv_f16_d64_page128_append", dtype="f16", head_dim=64, page_size=128, append=True),
    Config("dense_bf16_d128_bshd", op="dense"),
    Config("dense_f16_d64_bhsd_causal", op="dense", dtype="f16", head_dim=64, causal=True,
           layout="bhsd", alignment="top_left"),
]}


def _attrs(c):
    attrs = []
    if c.op == "dense":
        attrs.append(f"layout = #fa<layout {c.layout}>")
        if c.alignment:
            attrs.append(f"mask_alignment = #fa<mask_alignment {c.alignment}>")
    if c.causal:
        attrs.append("causal")
    if c.window:
        attrs.append(f"window = array<i64: {c.window[0]}, {c.window[1]}>")
    if c.softcap:
        attrs.append(f"softcap = {c.softcap} : f32")
    attrs.append(f"num_splits = {c.num_splits} : i64")
    return "{" + ", ".join(attrs) + "}"


def function(c):
    t = f"tensor<?x?x?x{c.head_dim}x{c.dtype}>"
    lse = "tensor<?x?x?xf32>"
    if c.op == "kvcache":
        return _kvcache_function(c, t, lse)
    return (f"func.func @{c.name}(%q: {t}, %k: {t}, %v: {t}) -> ({t}, {lse}) {{\n"
            f"  %o, %lse = fa.attention %q, %k, %v : {t}, {t}, {t} {_attrs(c)}"
            f" -> {t}, {lse}\n"
            f"  return %o, %lse : {t}, {lse}\n}}\n")


def _kvcache_function(c, t, lse, modifiers=("", "", "")):
    """`modifiers`: the capture arguments, captures clause and regions
    (gen_modifier_inputs._operands_and_regions; check_sequence_modifiers.py)."""
    cap_args, captures, regions = modifiers
    cache = f"tensor<?x{c.page_size}x?x{c.head_dim}x{c.dtype}>" if c.page_size else t
    args = [f"%q: {t}", f"%kc: {cache}", f"%vc: {cache}", "%lens: tensor<?xi32>"]
    extra, results, types = "", "%o, %lse", [t, lse]
    if c.page_size:
        args.append("%bt: tensor<?x?xi32>")
        extra += " block_table(%bt : tensor<?x?xi32>)"
    if c.append:
        args += [f"%k: {t}", f"%v: {t}"]
        extra += f" append(%k, %v : {t}, {t})"
        results += ", %kc2, %vc2"
        types += [cache, cache]
    return (f"func.func @{c.name}({', '.join(args)}{cap_args}) -> ({', '.join(types)}) {{\n"
            f"  {results} = fa.attention_kvcache %q, %kc, %vc, %lens : {t}, {cache}, {cache},"
            f" tensor<?xi32>{extra}{captures} {_attrs(c)} -> {', '.join(types)}{regions}\n"
            f"  return {results} : {', '.join(types)}\n}}\n")


def cli(argv, configs, function):
    """`list`: the configuration names; else one module of every function."""
    if argv[1:] == ["list"]:
        print("\n".join(configs))
        return
    print("\n".join(function(c) for c in configs.values()))


def main(argv):
    cli(argv, CONFIGS, function)


if __name__ == "__main__":
    main(sys.argv)

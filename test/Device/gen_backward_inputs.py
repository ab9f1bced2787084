"""Writes the backward kernel configurations of the device round, one MLIR
file with one fa.attention_grad each, into DIR (`gen_backward_inputs.py
DIR`); build_backward.sh compiles each into DIR/../<name>/. `list` prints
them. Shapes stay dynamic (batch, heads, sequence lengths): one kernel
sequence serves every case of test/Device/check_backward.py with its
configuration.
"""
import json
import os
import sys
from collections import namedtuple

# window (left, right) or None; det: compiled with --deterministic; softcap
# or None; bias: None or (per_batch, per_head, dtype) of a
# [B|1, Hq|1, Sq, Sk] bias (dBias is checked too); tile: the main kernel's
# query tile forced with --bwd-query-tile (None: the compiler's choice).
Bwd = namedtuple("Bwd", "dtype d dv layout causal align window det softcap bias tile",
                 defaults=(False, None, None, None))


def configs():
    out = []
    for d in (128, 64):
        for layout in ("bhsd", "bshd"):
            for causal, align in ((False, "top_left"), (True, "top_left"), (True, "bottom_right")):
                out.append(Bwd("bf16", d, d, layout, causal, align, None))
    out += [
        Bwd("f16", 128, 128, "bhsd", True, "top_left", None),
        Bwd("f16", 64, 64, "bshd", False, "top_left", None),
        Bwd("bf16", 128, 128, "bhsd", False, "top_left", (96, 32)),
        Bwd("bf16", 64, 64, "bshd", False, "bottom_right", (64, 0)),
        Bwd("bf16", 96, 96, "bhsd", True, "top_left", None),
        Bwd("bf16", 32, 32, "bshd", False, "top_left", None),
        Bwd("bf16", 128, 64, "bhsd", False, "top_left", None),
        Bwd("bf16", 128, 128, "bhsd", True, "top_left", None, True),
        Bwd("bf16", 64, 64, "bhsd", False, "top_left", None, True),
        Bwd("bf16", 64, 64, "bshd", True, "bottom_right", None, True),
        Bwd("bf16", 128, 128, "bhsd", True, "top_left", None, softcap=30.0),
        Bwd("bf16", 64, 64, "bshd", False, "bottom_right", (64, 16), softcap=5.0),
        Bwd("f16", 64, 64, "bhsd", False, "top_left", None, softcap=2.0),
        # Biases: stored once per element (per batch and head), or where they
        # broadcast summed in turn (the inputs' type) or added with atomics
        # (f32, another 16-bit type).
        Bwd("bf16", 128, 128, "bhsd", True, "top_left", None, bias=(True, True, "f32")),
        Bwd("bf16", 64, 64, "bshd", False, "top_left", None, bias=(False, True, "bf16")),
        Bwd("bf16", 64, 64, "bhsd", True, "bottom_right", None, softcap=30.0,
            bias=(True, False, "f32")),
        Bwd("f16", 128, 128, "bhsd", False, "top_left", (96, 32), bias=(False, False, "f16")),
        Bwd("bf16", 64, 64, "bhsd", True, "top_left", None, True, bias=(True, True, "bf16")),
        # A window skips tiles on both sides: zeros stored there.
        Bwd("bf16", 64, 64, "bshd", False, "bottom_right", (48, 24), bias=(True, True, "bf16")),
        # A broadcast bias of the inputs' type is summed in a fixed order
        # (no atomics): deterministic, three runs bitwise equal; over
        # batches, over heads (the group's q heads take turns in one CTA).
        Bwd("bf16", 64, 64, "bhsd", True, "top_left", None, True, bias=(False, True, "bf16")),
        Bwd("f16", 64, 64, "bshd", True, "bottom_right", None, True, bias=(True, False, "f16")),
        Bwd("bf16", 128, 128, "bhsd", True, "top_left", None, True, bias=(True, False, "bf16")),
    ]
    # bench_backward_bias.py's: bf16 bias per (batch, head), per head, or
    # one for all (the longest turns of the ordered dBias sum: B x H
    # contributors per block).
    out += [Bwd("bf16", d, d, "bhsd", False, "top_left", None, bias=(per_batch, per_head, "bf16"))
            for d in (64, 128) for per_batch, per_head in ((False, True), (True, True),
                                                          (False, False))]
    # The 128-query tile (chosen at head dims <= 64 without bias, softcap or
    # score_mod) forced where the compiler keeps 64 for registers: the
    # kernels spill, but their results must be right.
    out += [
        Bwd("bf16", 64, 64, "bshd", False, "bottom_right", (64, 16), softcap=5.0, tile=128),
        Bwd("bf16", 64, 64, "bhsd", True, "top_left", None, True, bias=(True, True, "bf16"),
            tile=128),
        Bwd("bf16", 64, 64, "bshd", False, "bottom_right", (48, 24), bias=(False, True, "f32"),
            tile=128),
    ]
    return out


def flags(c):
    """fa-compile's options for configuration `c` (a Bwd or its cfg.json dict)."""
    c = c._asdict() if hasattr(c, "_asdict") else c
    out = ["--deterministic"] if c.get("det") else []
    if c.get("tile"):
        out.append(f"--bwd-query-tile={c['tile']}")
    return out


def name(c):
    n = f"{c.dtype}_d{c.d}" + (f"v{c.dv}" if c.dv != c.d else "") + f"_{c.layout}"
    if c.causal:
        n += "_causal" + ("_br" if c.align == "bottom_right" else "")
    if c.window:
        n += f"_w{c.window[0]}_{c.window[1]}" + ("_br" if c.align == "bottom_right" and not c.causal else "")
    if c.softcap:
        n += f"_cap{c.softcap:g}"
    if c.bias:
        n += "_bias" + ("B" if c.bias[0] else "1") + ("H" if c.bias[1] else "1") + c.bias[2]
    n += f"_m{c.tile}" if c.tile else ""
    return n + ("_det" if c.det else "")


def mlir(c):
    el = c.dtype
    def t(dim):
        return f"tensor<?x?x?x{dim}x{el}>"
    q, v = t(c.d), t(c.dv)
    attrs = [f"layout = #fa<layout {c.layout}>"]
    if c.causal:
        attrs.append("causal")
    if c.causal or c.window:
        attrs.append(f"mask_alignment = #fa<mask_alignment {c.align}>")
    if c.window:
        attrs.append(f"window = array<i64: {c.window[0]}, {c.window[1]}>")
    if c.softcap:
        attrs.append(f"softcap = {c.softcap:.1f} : f32")
    a = " {" + ", ".join(attrs) + "}"
    lse = "tensor<?x?x?xf32>"
    if not c.bias:
        return (f"// {name(c)}\n"
                f"func.func @g(%do: {v}, %q: {q}, %k: {q}, %v: {v}, %o: {v}, %l: {lse}) -> ({q}, {q}, {v}) {{\n"
                f"  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : {v}, {q}, {q}, {v}, {v}, {lse}{a}"
                f" -> {q}, {q}, {v}\n"
                f"  return %dq, %dk, %dv : {q}, {q}, {v}\n}}\n")
    per_batch, per_head, bt = c.bias
    b = f"tensor<{'?' if per_batch else 1}x{'?' if per_head else 1}x?x?x{bt}>"
    return (f"// {name(c)}\n"
            f"func.func @g(%do: {v}, %q: {q}, %k: {q}, %v: {v}, %o: {v}, %l: {lse}, %b: {b}) -> ({q}, {q}, {v}, {b}) {{\n"
            f"  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : {v}, {q}, {q}, {v}, {v}, {lse}"
            f" bias(%b : {b}){a} -> {q}, {q}, {v}, {b}\n"
            f"  return %dq, %dk, %dv, %db : {q}, {q}, {v}, {b}\n}}\n")


def main(argv):
    if argv[1] == "flags":  # flags CFG_JSON: fa-compile's options, one line
        with open(argv[2]) as f:
            print(" ".join(flags(json.load(f))))
        return
    if argv[1:] == ["list"]:
        for c in configs():
            print(name(c), json.dumps(c._asdict()))
        return
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for c in configs():
        with open(os.path.join(out, name(c) + ".mlir"), "w") as f:
            f.write(mlir(c))
        with open(os.path.join(out, name(c) + ".cfg.json"), "w") as f:
            json.dump(c._asdict(), f)


if __name__ == "__main__":
    main(sys.argv)

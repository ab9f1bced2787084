"""Writes an MLIR module with one fa.attention per kernel configuration the
device checks and benchmark use. fa-compile turns each into a bundle."""
import sys

CONFIGS = [
    # dtype, head_dim, layout, causal, mask_alignment
    ("bf16", 128, "bshd", False, None),
    ("bf16", 128, "bshd", True, None),
    ("bf16", 128, "bshd", True, "bottom_right"),
    ("bf16", 64, "bshd", False, None),
    ("bf16", 64, "bshd", True, None),
    ("f16", 128, "bshd", False, None),
    ("f16", 128, "bshd", True, None),
    ("f16", 64, "bshd", False, None),
    ("f16", 64, "bshd", True, None),
    ("bf16", 128, "bhsd", False, None),
    ("bf16", 128, "bhsd", True, None),
    ("bf16", 64, "bhsd", False, None),
    ("bf16", 64, "bhsd", True, None),
]


def func(i, dtype, d, layout, causal, align, lse=True):
    t = f"tensor<?x?x?x{d}x{dtype}>"
    attrs = [f"layout = #fa<layout {layout}>"]
    if causal:
        attrs.append("causal")
    if align:
        attrs.append(f"mask_alignment = #fa<mask_alignment {align}>")
    res = f"{t}, tensor<?x?x?xf32>" if lse else t
    outs = "%o, %lse" if lse else "%o"
    return (f"func.func @attn{i}(%q: {t}, %k: {t}, %v: {t}) -> ({res}) {{\n"
            f"  {outs} = fa.attention %q, %k, %v : {t}, {t}, {t} {{{', '.join(attrs)}}} -> {res}\n"
            f"  return {outs} : {res}\n}}\n")


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    cfgs = CONFIGS if which == "all" else [c for c in CONFIGS if c[0] == "bf16" and c[2] == "bhsd"]
    print("".join(func(i, *c) for i, c in enumerate(cfgs)))


if __name__ == "__main__":
    main()

"""Writes an MLIR module with one fa.attention per kernel configuration the
device round uses; fa-compile turns each function into a kernel bundle.

  all    the supported matrix: {bf16, f16} x head dim {64, 128} x {bshd, bhsd}
         x {full, causal top-left, causal bottom-right}, with LSE (24), plus
         the same without LSE for bhsd full/causal (8)
  bench  bf16 bhsd full/causal, d64/d128, with LSE (the benchmark's shapes;
         compiled again with other schedule options)
"""
import itertools
import sys

MASKS = [(False, None), (True, "top_left"), (True, "bottom_right")]


def matrix():
    cfgs = []
    for dtype, d, layout, (causal, align) in itertools.product(
            ("bf16", "f16"), (128, 64), ("bshd", "bhsd"), MASKS):
        cfgs.append((dtype, d, layout, causal, align, True))
    for dtype, d, (causal, align) in itertools.product(("bf16", "f16"), (128, 64), MASKS[:2]):
        cfgs.append((dtype, d, "bhsd", causal, align, False))
    return cfgs


def bench():
    return [("bf16", d, "bhsd", causal, align, True) for d in (128, 64) for causal, align in MASKS[:2]]


def func(i, dtype, d, layout, causal, align, lse):
    t = f"tensor<?x?x?x{d}x{dtype}>"
    attrs = [f"layout = #fa<layout {layout}>"]
    if causal:
        attrs.append("causal")
        attrs.append(f"mask_alignment = #fa<mask_alignment {align}>")
    res = f"{t}, tensor<?x?x?xf32>" if lse else t
    outs = "%o, %lse" if lse else "%o"
    return (f"func.func @attn{i}(%q: {t}, %k: {t}, %v: {t}) -> ({res}) {{\n"
            f"  {outs} = fa.attention %q, %k, %v : {t}, {t}, {t} {{{', '.join(attrs)}}} -> {res}\n"
            f"  return {outs} : {res}\n}}\n")


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    cfgs = matrix() if which == "all" else bench()
    print("".join(func(i, *c) for i, c in enumerate(cfgs)))


if __name__ == "__main__":
    main()

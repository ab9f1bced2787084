"""Writes an MLIR module with one fa.attention per kernel configuration the
device round uses; fa-compile turns each function into a kernel bundle.

  all    the numerics matrix (`matrix()`, families below; each entry is one
         kernel)
  bench  bf16 bhsd full/causal, d64/d128, with LSE (the benchmark's shapes;
         compiled again with other schedule options)
  list   the `all` matrix as a table, one configuration a line

  --split DIR   one file per function (DIR/attn_NNN.mlir) instead of one
                module on stdout: build_kernels.sh compiles them one by one,
                so a configuration fa-compile rejects does not take the
                others down with it

Families of `all` (`FAMILIES`, in order):
  base      {bf16, f16} x head dim {64, 128} x {bshd, bhsd} x {full, causal
            top-left, causal bottom-right}, with LSE (24), plus bhsd
            full/causal without LSE (8)
  hdim      head dims 32, 96, 192, 256 (bf16 bshd full, f16 bhsd causal,
            bf16 bhsd causal bottom-right), and 40, 80 (multiples of 8 that
            are not of 16 / 32)
  dv        V head dim != QK head dim: 192/128 and 128/64
  mask      one kernel per entry of test/lib/mask_cases.py (the table the
            CPU test test/Execution/mask-cases.py checks too)
  softcap   softcap 50 and 30, alone, with a window, with a bias
  bias      additive bias in f32, bf16, f16 (one kernel serves every
            broadcast shape: the bias type is dynamic in all four dims)
  combo     window + softcap + bias together, GQA/bshd; and with Dv != D
"""
import os
import sys
from collections import namedtuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import mask_cases  # noqa: E402

# One kernel configuration. The first six fields are the original tuple
# (bench() still writes those); `dv` None means = d, `window` (left, right)
# or None, `softcap` a number or None, `bias` the bias dtype or None.
Cfg = namedtuple("Cfg", "dtype d layout causal align lse dv window softcap bias",
                 defaults=(None, None, None, None))

MASKS = [(False, None), (True, "top_left"), (True, "bottom_right")]
# dtype / head dim / layout the mask table's kernels rotate through.
MASK_HOSTS = [("bf16", 128, "bshd"), ("f16", 64, "bhsd"), ("bf16", 64, "bshd"), ("f16", 128, "bhsd")]


def as_cfg(c):
    return c if isinstance(c, Cfg) else Cfg(*c)


def dv_of(c):
    return c.d if c.dv is None else c.dv


def base():
    cfgs = []
    for dtype, d, layout, (causal, align) in [(a, b, c, m) for a in ("bf16", "f16") for b in (128, 64)
                                              for c in ("bshd", "bhsd") for m in MASKS]:
        cfgs.append(Cfg(dtype, d, layout, causal, align, True))
    for dtype, d, (causal, align) in [(a, b, m) for a in ("bf16", "f16") for b in (128, 64) for m in MASKS[:2]]:
        cfgs.append(Cfg(dtype, d, "bhsd", causal, align, False))
    return cfgs


def hdim():
    out = []
    for d in (32, 96, 192, 256):
        out += [Cfg("bf16", d, "bshd", False, None, True),
                Cfg("f16", d, "bhsd", True, "top_left", True),
                Cfg("bf16", d, "bhsd", True, "bottom_right", True)]
    out += [Cfg("bf16", 40, "bshd", True, "bottom_right", True),
            Cfg("f16", 80, "bhsd", False, None, True)]
    return out


def dv():
    return [Cfg("bf16", 192, "bshd", False, None, True, dv=128),
            Cfg("f16", 192, "bhsd", True, "top_left", True, dv=128),
            Cfg("bf16", 128, "bhsd", True, "bottom_right", True, dv=64),
            Cfg("f16", 128, "bshd", False, None, True, dv=64)]


def mask_cfg(mask, n):
    """The kernel of mask table entry number n."""
    dtype, d, layout = MASK_HOSTS[n % len(MASK_HOSTS)]
    return Cfg(dtype, d, layout, mask.causal, mask.align, True, window=mask.window)


def mask():
    return [mask_cfg(m, n) for n, m in enumerate(mask_cases.MASKS)]


def softcap():
    return [Cfg("bf16", 128, "bshd", False, None, True, softcap=50.0),
            Cfg("f16", 64, "bhsd", True, "top_left", True, softcap=30.0),
            Cfg("bf16", 128, "bhsd", True, "bottom_right", True, window=(200, 0), softcap=30.0),
            Cfg("f16", 128, "bshd", False, None, True, softcap=30.0, bias="f32")]


def bias():
    return [Cfg("bf16", 128, "bshd", False, None, True, bias="f32"),
            Cfg("bf16", 64, "bhsd", True, "top_left", True, bias="bf16"),
            Cfg("f16", 128, "bshd", True, "bottom_right", True, bias="f16"),
            Cfg("f16", 64, "bhsd", False, None, True, bias="f32"),                 # ALiBi
            Cfg("bf16", 128, "bshd", True, "top_left", True, window=(128, 0), bias="f32"),
            Cfg("bf16", 128, "bhsd", False, None, False, bias="f32"),              # no LSE
            Cfg("bf16", 256, "bshd", True, "top_left", True, bias="bf16")]


def combo():
    return [Cfg("bf16", 128, "bshd", True, "bottom_right", True, window=(200, 0), softcap=30.0, bias="f32"),
            Cfg("f16", 192, "bhsd", False, "bottom_right", True, dv=128, window=(96, 48), softcap=50.0,
                bias="f16")]


FAMILIES = [("base", base), ("hdim", hdim), ("dv", dv), ("mask", mask), ("softcap", softcap),
            ("bias", bias), ("combo", combo)]


def matrix():
    """Every configuration of `all`, each once (first family wins)."""
    seen, out = set(), []
    for _, fam in FAMILIES:
        for c in fam():
            if c not in seen:
                seen.add(c)
                out.append(c)
    return out


def family_of(c):
    for name, fam in FAMILIES:
        if c in fam():
            return name
    return "?"


def bench():
    return [("bf16", d, "bhsd", causal, align, True) for d in (128, 64) for causal, align in MASKS[:2]]


def describe(c):
    c = as_cfg(c)
    mask = ("causal" + ("_br" if c.align == "bottom_right" else "")) if c.causal else "full"
    parts = [c.dtype, f"d{c.d}" + (f"/{c.dv}" if c.dv not in (None, c.d) else ""), c.layout, mask]
    if c.window is not None:
        w = ["inf" if x >= mask_cases.UNBOUNDED else str(x) for x in c.window]
        parts.append(f"win({w[0]},{w[1]}){'_br' if c.align == 'bottom_right' and not c.causal else ''}")
    if c.softcap is not None:
        parts.append(f"softcap{c.softcap:g}")
    if c.bias is not None:
        parts.append(f"bias_{c.bias}")
    if not c.lse:
        parts.append("nolse")
    return " ".join(parts)


def func(i, *c):
    c = as_cfg(c[0] if len(c) == 1 else c)
    d, dv = c.d, dv_of(c)
    tq = f"tensor<?x?x?x{d}x{c.dtype}>"
    tv = f"tensor<?x?x?x{dv}x{c.dtype}>"
    attrs = [f"layout = #fa<layout {c.layout}>"]
    if c.causal:
        attrs.append("causal")
    if c.causal or c.window is not None:
        attrs.append(f"mask_alignment = #fa<mask_alignment {c.align or 'top_left'}>")
    if c.window is not None:
        attrs.append(f"window = array<i64: {c.window[0]}, {c.window[1]}>")
    if c.softcap is not None:
        attrs.append(f"softcap = {float(c.softcap)!r} : f32")
    res = f"{tv}, tensor<?x?x?xf32>" if c.lse else tv
    outs = "%o, %lse" if c.lse else "%o"
    args = f"%q: {tq}, %k: {tq}, %v: {tv}"
    bias = ""
    if c.bias is not None:
        tb = f"tensor<?x?x?x?x{c.bias}>"
        args += f", %b: {tb}"
        bias = f" bias(%b : {tb})"
    return (f"// {describe(c)}\n"
            f"func.func @attn{i}({args}) -> ({res}) {{\n"
            f"  {outs} = fa.attention %q, %k, %v : {tq}, {tq}, {tv}{bias} {{{', '.join(attrs)}}} -> {res}\n"
            f"  return {outs} : {res}\n}}\n")


def main():
    args = sys.argv[1:]
    split = None
    if "--split" in args:
        k = args.index("--split")
        split = args[k + 1]
        del args[k:k + 2]
    which = args[0] if args else "all"
    if which == "list":
        for i, c in enumerate(matrix()):
            print(f"{i:3d} {family_of(c):8s} {describe(c)}")
        return
    cfgs = matrix() if which == "all" else bench()
    if split is None:
        print("".join(func(i, c) for i, c in enumerate(cfgs)))
        return
    os.makedirs(split, exist_ok=True)
    for i, c in enumerate(cfgs):
        with open(os.path.join(split, f"{which}_{i:03d}.mlir"), "w") as f:
            f.write(func(i, c))


if __name__ == "__main__":
    main()

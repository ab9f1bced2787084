"""The attention-sinks configurations of the device round (issue 35 item 5,
gpt-oss's sinks): per configuration one module with the forward
(fa.attention ... sinks(%s) -> O, LSE) and the backward (fa.attention_grad
... sinks(%s) -> dQ, dK, dV, dSinks), batch, heads and sequence lengths
dynamic, head dims static, bhsd. The `nosinks_*` configurations are the
same attention without sinks, for the benchmark's "our kernel without
sinks" rows. Configurations ending in `_det` are compiled with
fa-compile --deterministic (scripts/device-round.sh prepare_sinks).

Usage:
  gen_sinks_inputs.py NAME     the module of one configuration, on stdout
  gen_sinks_inputs.py list     the configuration names
"""
import sys
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Config:
    name: str
    dtype: str = "bf16"
    head_dim: int = 128
    causal: bool = False
    window: Optional[Tuple[int, int]] = None
    bottom_right: bool = False
    softcap: Optional[float] = None
    sinks: bool = True
    deterministic: bool = False


CONFIGS = {c.name: c for c in [
    Config("sinks_bf16_d128"),
    Config("sinks_causal_bf16_d128", causal=True),
    # A softcap: the kernel keeps log2-domain scores (exponent factor 1),
    # the epilogue's other branch of the max.
    Config("sinks_softcap_f16_d128", dtype="f16", softcap=30.0),
    # Bottom-right causal: with seq_q > seq_k the first rows see no key.
    Config("sinks_causal_br_f16_d64", dtype="f16", head_dim=64, causal=True,
           bottom_right=True),
    # gpt-oss's sliding-window layers: 128 keys back, causal.
    Config("sinks_window_bf16_d64", head_dim=64, window=(128, 0)),
    Config("sinks_causal_bf16_d64", head_dim=64, causal=True),
    Config("sinks_causal_bf16_d64_det", head_dim=64, causal=True,
           deterministic=True),
    Config("nosinks_causal_bf16_d64", head_dim=64, causal=True, sinks=False),
    Config("nosinks_window_bf16_d64", head_dim=64, window=(128, 0),
           sinks=False),
    Config("nosinks_causal_bf16_d128", causal=True, sinks=False),
]}


def _attrs(c):
    attrs = []
    if c.causal:
        attrs.append("causal")
    if c.window:
        attrs.append(f"window = array<i64: {c.window[0]}, {c.window[1]}>")
    if c.bottom_right:
        attrs.append("mask_alignment = #fa<mask_alignment bottom_right>")
    if c.softcap:
        attrs.append(f"softcap = {c.softcap} : f32")
    return " {" + ", ".join(attrs) + "}" if attrs else ""


def module(c):
    t = f"tensor<?x?x?x{c.head_dim}x{c.dtype}>"
    lse = "tensor<?x?x?xf32>"
    st = "tensor<?xf32>"
    sink_arg = f", %s: {st}" if c.sinks else ""
    sinks = f" sinks(%s : {st})" if c.sinks else ""
    attrs = _attrs(c)
    fwd = (f"func.func @{c.name}_fwd(%q: {t}, %k: {t}, %v: {t}{sink_arg}) -> ({t}, {lse}) {{\n"
           f"  %o, %l = fa.attention %q, %k, %v : {t}, {t}, {t}{sinks}{attrs} -> {t}, {lse}\n"
           f"  return %o, %l : {t}, {lse}\n}}\n")
    grads = [t, t, t] + ([st] if c.sinks else [])
    results = ", ".join(f"%g{i}" for i in range(len(grads)))
    bwd = (f"func.func @{c.name}_bwd(%do: {t}, %q: {t}, %k: {t}, %v: {t}, %o: {t}, "
           f"%l: {lse}{sink_arg}) -> ({', '.join(grads)}) {{\n"
           f"  {results} = fa.attention_grad %do, %q, %k, %v, %o, %l : {t}, {t}, {t}, {t}, "
           f"{t}, {lse}{sinks}{attrs} -> {', '.join(grads)}\n"
           f"  return {results} : {', '.join(grads)}\n}}\n")
    return fwd + "\n" + bwd


def main(argv):
    if argv[1:] == ["list"]:
        print("\n".join(CONFIGS))
        return 0
    if len(argv) != 2 or argv[1] not in CONFIGS:
        print(__doc__, file=sys.stderr)
        return 2
    print(module(CONFIGS[argv[1]]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

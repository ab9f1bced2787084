# The bf16 decoders of the corpus: every fa.attention the raise makes in
# bf16 compiles for sm_90a with fa-compile (no GPU needed to compile). Each
# distinct op (types, bias, attributes) is compiled once, alone in a
# function. Ops with score_mod / mask_mod regions (T5's and BLOOM's
# position biases, packed-sequence masks) are counted and listed apart:
# fa-compile has no sm_90a lowering of the regions yet (docs/Modifiers.md).
# A raised op of another type in a bf16 file (an f32 op, which the sm_90a
# kernels do not compile) fails: sdpa's promoted f32 attention is narrowed
# to bf16 by the raise (narrow-promoted).
# RUN: %python %s | FileCheck %s
# CHECK: ok: {{[1-9][0-9]*}} distinct bf16 fa.attention
# CHECK: 0 failed
import json
import os
import re
import subprocess
import tempfile

import corpus_inputs
import raise_equiv
from fa_mlir import cpu

OP = re.compile(r"= fa\.attention %\S+, %\S+, %\S+ : (tensor<[^>]+>), "
                r"(tensor<[^>]+>), (tensor<[^>]+>)(?: bias\(%\S+ : "
                r"(tensor<[^>]+>)\))? (\{[^}]*\}) -> (tensor<[^>]+xbf16>)$")


def layer_function(m):
    q, k, v, bias, attrs, out = m.groups()
    args = f"%q: {q}, %k: {k}, %v: {v}" + (f", %b: {bias}" if bias else "")
    use = f" bias(%b : {bias})" if bias else ""
    return (f"func.func @layer({args}) -> {out} {{\n"
            f"  %o = fa.attention %q, %k, %v : {q}, {k}, {v}{use} {attrs} "
            f"-> {out}\n  return %o : {out}\n}}\n")


# A raised op with modifier regions: its first line ends in the region's
# name.
WITH_REGION = re.compile(r"= fa\.attention .* -> tensor<[^>]+xbf16> "
                         r"(score_mod|mask_mod) \{$")

# Any raised op's first line, and its result type.
ANY_OP = re.compile(r"= fa\.attention .* -> tensor<[^>]+x(\w+)>")

manifest = corpus_inputs.manifest()
distinct = {}
with_regions = {}
not_bf16 = {}
for model, entry in sorted(manifest.items()):
    for variant, info in sorted(entry["variants"].items()):
        if not info["exported"] or info["dtype"] != "bf16":
            continue
        with open(os.path.join(corpus_inputs.CORPUS_DIR,
                               variant + ".mlir")) as f:
            raised, _ = raise_equiv.raise_attention(f.read())
        for line in raised.splitlines():
            a = ANY_OP.search(line)
            if a and a.group(1) != "bf16":
                not_bf16[variant] = not_bf16.get(variant, 0) + 1
            m = OP.search(line)
            if m:
                distinct.setdefault(layer_function(m), variant)
            elif WITH_REGION.search(line):
                with_regions[variant] = with_regions.get(variant, 0) + 1

fa_compile = os.path.join(os.path.dirname(cpu.find_fa_opt()), "fa-compile")
failed = len(not_bf16)
for variant, count in sorted(not_bf16.items()):
    print(f"FAIL {variant}: {count} raised fa.attention not in bf16")
for fn, variant in distinct.items():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "layer.mlir")
        with open(src, "w") as f:
            f.write(fn)
        proc = subprocess.run([fa_compile, src, "-o", d, "--format=isa"],
                              capture_output=True, text=True)
        if proc.returncode != 0 or not any(
                name.endswith(".ptx") for name in os.listdir(d)):
            failed += 1
            print(f"FAIL {variant}:\n{fn}{proc.stderr}")
print(f"{'ok' if not failed else 'FAIL'}: {len(distinct)} distinct bf16 "
      f"fa.attention from the corpus's bf16 decoders")
print(f"not compiled (modifier regions, no sm_90a lowering yet): "
      f"{sum(with_regions.values())} ops in "
      f"{', '.join(sorted(with_regions)) or 'no file'}")
print(f"{failed} failed")

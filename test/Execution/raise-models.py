# fa-raise-attention on whole models: 4-layer transformers in torch-mlir
# style (shared scale / fill constants, a causal buffer sliced to the
# sequence length), in TOSA (add-zero identities, GQA by an add of a larger
# zero tensor, the causal mask computed from constants through compare and
# an i1 -> i32 -> i8 -> i1 cast chain) and in bf16 (HF Llama rounding). Every
# layer must be raised, the numbers must agree with the original program,
# and the bf16 layers must be bf16 ops that compile for sm_90a.
# RUN: %python %s | FileCheck %s
# CHECK: ok torch_mlir_f32
# CHECK: ok tosa_gqa_f32
# CHECK: ok torch_mlir_bf16
# CHECK: ok bf16 layers: 4 bf16 fa.attention, 4 compiled for sm_90a
# CHECK: 0 failed
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import model_ir  # noqa: E402
import raise_equiv  # noqa: E402
from fa_mlir import cpu  # noqa: E402

failed = 0


def weight_scales(layers, width):
    """Arguments 1.. are weights: N(0, 1/width) keeps activations O(1)."""
    return {i: width ** -0.5 for i in range(1, 4 * layers + 1)}



def report(label, r):
    global failed
    failed += not r["ok"]
    print(f"{'ok' if r['ok'] else 'FAIL'} {label}: max error {r['err']:.3g}, "
          f"bound {r['atol']:.3g}, raised "
          f"{r['remarks'].count('raised to fa.attention')}"
          + ("" if r["ok"] else "\n" + r["remarks"]))


torch_f32 = model_ir.torch_mlir("torch_mlir_f32")
report("torch_mlir_f32", raise_equiv.check(
    torch_f32, "torch_mlir_f32", raised_count=4,
    arg_scales=weight_scales(4, 64)))

tosa_f32 = model_ir.tosa("tosa_gqa_f32")
report("tosa_gqa_f32", raise_equiv.check(
    tosa_f32, "tosa_gqa_f32", tosa=True, raised_count=4,
    arg_scales=weight_scales(4, 64)))

# bf16 needs head dims the sm_90a kernels have.
torch_bf16 = model_ir.torch_mlir("torch_mlir_bf16", heads=2, dim=64,
                                 elt="bf16")
report("torch_mlir_bf16", raise_equiv.check(
    torch_bf16, "torch_mlir_bf16", raised_count=4,
    arg_scales=weight_scales(4, 128)))

# The raised bf16 layers: each fa.attention alone in a function, through
# fa-compile for sm_90a (no GPU needed to compile).
raised, _ = raise_equiv.raise_attention(torch_bf16)
ops = re.findall(r"= (fa\.attention [^\n]*)", raised)
bf16_ops = [op for op in ops if re.search(r"-> tensor<[\dx]+xbf16>$", op)]
compiled = 0
for i, op in enumerate(bf16_ops):
    operands = re.match(r"fa\.attention (%[\w]+), (%[\w]+), (%[\w]+) :", op)
    types = re.search(r": \(?(tensor<[^>]+>), (tensor<[^>]+>), "
                      r"(tensor<[^>]+>)\)? (\{[^}]*\} )?-> (tensor<[^>]+>)$", op)
    if not operands or not types:
        print("cannot parse:", op)
        continue
    attrs = types.group(4) or ""
    fn = (f"func.func @layer{i}(%q: {types.group(1)}, %k: {types.group(2)}, "
          f"%v: {types.group(3)}) -> {types.group(5)} {{\n"
          f"  %o = fa.attention %q, %k, %v : {types.group(1)}, "
          f"{types.group(2)}, {types.group(3)} {attrs}-> {types.group(5)}\n"
          f"  return %o : {types.group(5)}\n}}\n")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "layer.mlir")
        open(src, "w").write(fn)
        fa_compile = os.path.join(os.path.dirname(cpu.find_fa_opt()),
                                  "fa-compile")
        proc = subprocess.run([fa_compile, src, "-o", d, "--format=isa"],
                              capture_output=True, text=True)
        if proc.returncode == 0 and any(f.endswith(".ptx")
                                        for f in os.listdir(d)):
            compiled += 1
        else:
            print(proc.stderr)
ok = len(ops) == 4 and len(bf16_ops) == 4 and compiled == 4
failed += not ok
print(f"{'ok' if ok else 'FAIL'} bf16 layers: {len(bf16_ops)} bf16 "
      f"fa.attention, {compiled} compiled for sm_90a")
print(f"{failed} failed")

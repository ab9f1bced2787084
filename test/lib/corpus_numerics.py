"""CPU numerics of the frontend corpus against PyTorch's saved results.

A corpus file (a whole tiny model as torch-mlir exported it) is raised with
fa-raise-attention, lowered with fa-cpu-pipeline (fa.attention through the
pipeline's own kernels; TOSA first through upstream's tosa-to-linalg), run
on the CPU with the inputs the generator gave PyTorch (corpus_inputs.py),
and compared with PyTorch's result:
  f32:  max |ours - torch| <= 1e-4 * (1 + max |torch|)
  bf16: against PyTorch's float64 run of the same inputs (and the same
        attn_implementation where saved), our error at most
        twice PyTorch's bf16 error plus 1e-2 (FlashAttention's criterion).
"""
import os

import numpy as np

import corpus_inputs
import raise_equiv
from fa_mlir import cpu, dtypes

TOSA_TO_LINALG = raise_equiv.TOSA_TO_LINALG


def load(variant):
    """(IR text, manifest entry, saved arrays) of a corpus variant
    `<model>.<impl>.<dtype>.<dialect>`."""
    model, _, dtype, _ = variant.split(".")
    with open(os.path.join(corpus_inputs.CORPUS_DIR, variant + ".mlir")) as f:
        text = f.read()
    entry = corpus_inputs.manifest()[model]
    saved = np.load(os.path.join(corpus_inputs.CORPUS_DIR,
                                 f"{model}.{dtype}.npz"))
    return text, entry, saved


def func_name(text):
    return raise_equiv.re.search(r"func\.func @([\w.]+)", text).group(1)


def run(variant, pipeline="fa-cpu-pipeline"):
    """Raises, compiles and runs `variant`; returns a dict: ok, err, bound,
    raised (count), declined (remarks)."""
    text, entry, saved = load(variant)
    model, impl, dtype, dialect = variant.split(".")
    name = func_name(text)
    args, results = raise_equiv.signature(text, name)
    # The entry point goes inside the exported `module { ... }`.
    resources = text.find("\n{-#")
    end = text.rfind("\n}", 0, resources if resources >= 0 else len(text))
    module = (text[:end] + raise_equiv.wrapper(name, args, results) +
              text[end:])
    raised_text, remarks = raise_equiv.raise_attention(module)
    pre = TOSA_TO_LINALG if dialect == "tosa" else ""
    # -O0: the models are tiny, and clang -O2 takes ~30 s on each.
    so = cpu.compile_to_shared_library(
        raised_text, pipeline=pre + pipeline, opt_flags=("-O0",))
    specs = entry["args"][dtype]
    arrays = {k[len("input_"):]: saved[k] for k in saved.files
              if k.startswith("input_")}
    inputs = [corpus_inputs.argument_storage(s, arrays) for s in specs]
    out = raise_equiv._empty(*results[0])
    cpu.CompiledFunction(so, "entry")(*inputs, out)
    ours = out.astype(np.float64) if results[0][1] != "bf16" else \
        dtypes.from_storage(out, "bf16")
    torch_impl = "eager" if impl == "eager" else "sdpa"
    theirs = saved["result_" + torch_impl].astype(np.float64)
    if dtype == "f32":
        err = float(np.max(np.abs(ours - theirs)))
        bound = 1e-4 * (1 + float(np.max(np.abs(theirs))))
    else:
        # The float64 run of the same implementation where the generator
        # saved one (older files: the eager one).
        ref_name = "result_f64_" + torch_impl
        ref = saved[ref_name if ref_name in saved.files else "result_f64"]
        err = float(np.max(np.abs(ours - ref)))
        bound = 2 * float(np.max(np.abs(theirs - ref))) + 1e-2
    raised = remarks.count("raised to fa.attention")
    declined = [l for l in remarks.splitlines() if "not raised" in l]
    # Every attention layer of the model raised, none declined.
    complete = raised == len(entry["layers"]) and not declined
    return dict(ok=bool(np.all(np.isfinite(ours)) and err <= bound and
                        complete),
                err=err, bound=bound, raised=raised, layers=len(entry["layers"]),
                declined=declined)


def report(variants):
    """Runs each variant, prints one line each; returns the failure count."""
    failed = 0
    for v in variants:
        r = run(v)
        failed += not r["ok"]
        print(f"{'ok' if r['ok'] else 'FAIL'} {v}: raised {r['raised']} of "
              f"{r['layers']}, "
              f"max error {r['err']:.3g} (bound {r['bound']:.3g})")
        for d in r["declined"]:
            print("  " + d)
    print(f"{failed} failed")
    return failed

"""Equivalence of fa-raise-attention: original IR vs raised IR, on the CPU.

The original function goes through a plain lowering (what
fa-cpu-pipeline{tiled=false} does: linalg/tensor/arith/func to LLVM; TOSA is
first lowered by the upstream tosa-to-linalg passes), the raised one through
fa-raise-attention and then the same lowering, where fa.attention becomes the
reference decomposition. Both
run on the same random inputs and must agree.
"""
import ctypes
import os
import re
import subprocess

import numpy as np

from fa_mlir import cpu, dtypes

# Copies between memrefs of different layouts (what bufferizing TOSA's
# reshapes or a scan's slices leaves) call memrefCopy from MLIR's C runner
# utils: loaded globally so that the compiled functions find it.
ctypes.CDLL(os.path.join(cpu.LLVM_BIN, "..", "lib",
                         "libmlir_c_runner_utils.so"), mode=ctypes.RTLD_GLOBAL)

TOSA_TO_LINALG = ("func.func(tosa-to-linalg-named,tosa-to-linalg,"
                  "tosa-to-arith,tosa-to-tensor),")
# What fa-cpu-pipeline{tiled=false} is: fa ops through the reference
# decomposition (the oracle), then upstream's plain lowering of linalg /
# tensor / arith / func. Spelled out so that these tests judge the raise
# against the oracle whatever the CPU pipeline's own optimizations are doing;
# FA_RAISE_PIPELINE=fa-cpu-pipeline runs them through the real pipeline.
PIPELINE = os.environ.get("FA_RAISE_PIPELINE", (
    "fa-decompose-attention,canonicalize,cse,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-deallocation-pipeline,convert-linalg-to-loops,"
    "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "arith-expand{include-bf16=true},convert-math-to-llvm,"
    "convert-math-to-libm,convert-arith-to-llvm,convert-func-to-llvm,"
    "finalize-memref-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts"))
# bf16 arithmetic (the original's bf16 matmuls) as f32 operations rounded to
# bf16 after each op, which is what bf16 arithmetic means; the host has no
# bf16 instructions (and no __truncsfbf2 in its libgcc).
BF16_ARITH = ("func.func(arith-emulate-unsupported-floats{source-types=bf16 "
              "target-type=f32}),")
# linalg.softmax has no lowering in fa-cpu-pipeline: decompose it upstream's
# way (DecomposeAggregatedOps) through the transform interpreter.
DECOMPOSE_SOFTMAX = (
    "transform-preload-library{transform-library-paths=" +
    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 "decompose-softmax.mlir") + "},transform-interpreter,")


def split_functions(path):
    """{name: text} of the `func.func`s of a lit test file (split on -----)."""
    text = open(path).read()
    out = {}
    for chunk in text.split("// -----"):
        body = "\n".join(l for l in chunk.splitlines()
                         if not l.lstrip().startswith("//"))
        m = re.search(r"func\.func @([\w.]+)", body)
        if m:
            out[m.group(1)] = body
    return out


_TYPE = re.compile(r"tensor<((?:(?:\d+|\?)x)*)(\w+)>")


def _parse_type(t):
    m = _TYPE.fullmatch(t.strip())
    shape = [-1 if s == "?" else int(s) for s in m.group(1).split("x") if s]
    return shape, m.group(2)


def signature(text, name):
    """([(shape, elt)] of the arguments, [(shape, elt)] of the results)."""
    m = re.search(r"func\.func @" + re.escape(name) +
                  r"\((.*?)\)\s*->\s*(\([^)]*\)|tensor<[^>]*>)", text, re.S)
    args = [a.split(":", 1)[1] for a in re.split(r",\s*(?=%)", m.group(1))]
    results = re.findall(r"tensor<[^>]*>", m.group(2))
    return [_parse_type(a) for a in args], [_parse_type(r) for r in results]


def _mlir_type(shape, elt, kind):
    return f"{kind}<{'x'.join('?' if s < 0 else str(s) for s in shape)}x{elt}>"


def wrapper(name, args, results):
    """A C-interface entry point over memrefs that calls the tensor function:
    inputs, then one output memref per result."""
    params, loads, names = [], [], []
    for i, (shape, elt) in enumerate(args):
        mt, tt = _mlir_type(shape, elt, "memref"), _mlir_type(shape, elt, "tensor")
        params.append(f"%a{i}: {mt}")
        loads.append(f"  %t{i} = bufferization.to_tensor %a{i} restrict : "
                     f"{mt} to {tt}\n")
        names.append(f"%t{i}")
    rms = [_mlir_type(*r, "memref") for r in results]
    rts = [_mlir_type(*r, "tensor") for r in results]
    outs = ", ".join(f"%out{i}: {rm}" for i, rm in enumerate(rms))
    arg_types = ", ".join(_mlir_type(s, e, "tensor") for s, e in args)
    rnames = ", ".join(f"%r{i}" for i in range(len(results)))
    stores = "".join(
        f"  bufferization.materialize_in_destination %r{i} in restrict "
        f"writable %out{i} : ({rt}, {rm}) -> ()\n"
        for i, (rt, rm) in enumerate(zip(rts, rms)))
    return (f"func.func @entry({', '.join(params)}, {outs}) "
            f"attributes {{llvm.emit_c_interface}} {{\n" + "".join(loads) +
            f"  {rnames} = func.call @{name}({', '.join(names)}) : "
            f"({arg_types}) -> ({', '.join(rts)})\n" + stores +
            "  return\n}\n")


def raise_attention(text):
    """(raised text, remarks) from fa-opt --fa-raise-attention."""
    proc = subprocess.run([cpu.find_fa_opt(), "--fa-raise-attention",
                           "--mlir-print-op-on-diagnostic=false", "-"],
                          input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise cpu.CompileError(proc.stderr)
    return proc.stdout, proc.stderr


_INTS = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}


def _random(shape, elt, rng, mask_density, binary=False, scale=1.0):
    if elt in _INTS:  # integer masks (transformers' attention_mask): 0 / 1
        m = rng.random(shape) < mask_density
        return m.astype(_INTS[elt]), m.astype(np.float64)
    if binary:
        m = (rng.random(shape) < mask_density).astype(np.float64)
        return dtypes.to_storage(m, elt), m
    if elt == "i1":
        m = rng.random(shape) < mask_density
        return m.astype(np.bool_), m.astype(np.float64)
    x = rng.standard_normal(shape) * scale
    return dtypes.to_storage(x, elt), dtypes.from_storage(
        dtypes.to_storage(x, elt), elt)


def _empty(shape, elt):
    if elt == "bf16":
        return np.full(shape, 0x7FC0, dtype=np.uint16)
    if elt == "f64":
        return np.full(shape, np.nan, dtype=np.float64)
    return np.full(shape, np.nan, dtype=dtypes.STORAGE[elt])


def promote_f64(text):
    """The same program with every float type widened to f64: the float64
    reference the low-precision programs are judged against."""
    text = text.replace("0xFF800000", "0xFFF0000000000000")
    text = text.replace("0x7F800000", "0x7FF0000000000000")
    text = re.sub(r"(?<=[x\s:(<,])(?:bf16|f16|f32)(?=[\s>,)]|$)", "f64", text,
                  flags=re.M)
    # Casts that became f64 -> f64 are identities.
    text = re.sub(r"arith\.(?:extf|truncf) (%[\w.#]+) : f64 to f64",
                  r"arith.maximumf \1, \1 : f64", text)
    return text


def _run(text, name, args, results, inputs, pre):
    """All results, concatenated flat, as float64."""
    so = cpu.compile_to_shared_library(text, pipeline=pre + PIPELINE)
    outs = [_empty(*r) for r in results]
    cpu.CompiledFunction(so, "entry")(*inputs, *outs)
    return np.concatenate([
        (dtypes.from_storage(o, r[1]) if r[1] != "f64" else o).reshape(-1)
        for o, r in zip(outs, results)])


# arith / math ops on whole tensors (what some front ends emit) become
# linalg.generic before bufferization, in both programs.
ELEMENTWISE = "func.func(convert-elementwise-to-linalg),"


def check(text, name, tosa=False, seed=0, atol=None, mask_density=0.8,
          binary=(), shapes=None, rtol=0.0, raised_count=None,
          arg_scales=None, allow_decline=False):
    """Runs original and raised `name`; returns a dict with the errors.
    `rtol` widens the f32 bound by rtol * max |original| (deep models);
    `raised_count`, if given, is how many attentions must be raised (and
    then none may be declined); `arg_scales[i]` scales random argument i
    (weights of a deep model, so that activations stay of order 1);
    `allow_decline`: a program the pass leaves alone (with a remark) is ok
    and not run."""
    args, results = signature(text, name)
    result = results[0]
    # Concrete sizes for dynamic dimensions: {"args": [...], "results": [...]}.
    concrete_args = [(shapes["args"][i] if shapes else s, e)
                     for i, (s, e) in enumerate(args)]
    concrete_results = [(shapes["results"][i] if shapes else s, e)
                        for i, (s, e) in enumerate(results)]
    module = text + "\n" + wrapper(name, args, results)
    raised, remarks = raise_attention(module)
    if allow_decline and "fa.attention" not in raised:
        return dict(ok="attention not raised" in remarks, err=0.0, atol=0.0,
                    ref_err=None, nan_rows=0, raised=False, remarks=remarks)
    # torch-mlir's cumsum (tm_tensor.scan) lowered to loops first.
    # The float64 reference (low-precision programs) is lowered the same way,
    # without the bf16 emulation.
    ref_pre = (TOSA_TO_LINALG if tosa else "") + (
        "fa-lower-tm-tensor," if "tm_tensor.scan" in text else "") + (
        ELEMENTWISE) + (
        DECOMPOSE_SOFTMAX if "linalg.softmax" in text else "")
    pre = ref_pre + (BF16_ARITH if "bf16" in text else "")
    rng = np.random.default_rng(seed)
    inputs = [_random(s, e, rng, mask_density, i in binary,
                      (arg_scales or {}).get(i, 1.0))[0]
              for i, (s, e) in enumerate(concrete_args)]
    orig = _run(module, name, args, concrete_results, inputs, pre)
    new = _run(raised, name, args, concrete_results, inputs, pre)
    # Rows the original leaves NaN (every key masked by -inf) are 0 in
    # fa.attention: the documented refinement.
    nan_rows = np.isnan(orig)  # flat: NaN elements
    refined_ok = bool(np.all(new[nan_rows] == 0))
    diff = np.where(nan_rows, 0, np.abs(orig - new))
    err = float(np.max(diff)) if diff.size else 0.0
    if result[1] == "f32":
        # Same precision: the two must agree closely.
        if atol is None:
            atol = 2e-5
        atol += rtol * float(np.max(np.abs(np.where(nan_rows, 0, orig))))
        close = err <= atol
        ref_err = None
    else:
        # FlashAttention's criterion against the float64 program: the raised
        # error at most twice the original's, plus a small epsilon.
        ref_text = promote_f64(text)
        ref_args, ref_results = signature(ref_text, name)
        ref_module = ref_text + "\n" + wrapper(name, ref_args, ref_results)
        ref_inputs = [x if e == "i1" else dtypes.from_storage(x, e)
                      for x, (_, e) in zip(inputs, args)]
        ref = _run(ref_module, name, ref_args, ref_results,
                   [np.ascontiguousarray(x) for x in ref_inputs], ref_pre)
        ok_rows = ~np.isnan(ref)
        err_orig = float(np.max(np.abs(orig - ref)[ok_rows]))
        err_new = float(np.max(np.abs(new - ref)[ok_rows]))
        eps = {"f16": 1e-3, "bf16": 1e-2}[result[1]]
        atol = 2 * err_orig + eps
        close = err_new <= atol
        err = err_new
        ref_err = err_orig
    ok = ("raised to fa.attention" in remarks and "fa.attention" in raised
          and refined_ok and np.all(np.isfinite(new)) and close)
    if raised_count is not None:
        ok = ok and (remarks.count("raised to fa.attention") == raised_count
                     and "not raised" not in remarks)
    return dict(ok=bool(ok), err=err, atol=atol, ref_err=ref_err,
                nan_rows=int(nan_rows.sum()),
                raised="raised to fa.attention" in remarks, remarks=remarks)


def run_file(path, names, **kwargs):
    """Checks every function of `names` in the lit file; prints one line each
    and returns the number of failures."""
    funcs = split_functions(path)
    failed = 0
    for name in names:
        opts = dict(kwargs)
        label = name
        if isinstance(name, tuple):
            name, extra = name
            opts.update(extra)
            label = f"{name} {extra}"
        r = check(funcs[name], name, **opts)
        failed += not r["ok"]
        vs = ("vs original" if r["ref_err"] is None else
              f"vs float64 (original's error {r['ref_err']:.3g})")
        print(f"{'ok' if r['ok'] else 'FAIL'} {label}: max error {r['err']:.3g} "
              f"{vs}, bound {r['atol']:.3g}, NaN elements in original {r['nan_rows']}"
              + ("" if r["raised"] else " NOT RAISED: " + r["remarks"].strip()))
    print(f"{failed} failed")
    return failed

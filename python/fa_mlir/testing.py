"""Run fa ops on the CPU through fa-opt and check them against float64.

The checks use FlashAttention's criterion: our error against the float64
reference is at most twice the error of the plain low-precision
implementation, plus a small absolute epsilon.
"""
import numpy as np

from . import config as fa_config
from . import reference
from .cpu import CompiledFunction, compile_to_shared_library
from .dtypes import from_storage, round_to, to_storage

EPSILON = {"f32": 1e-5, "f16": 1e-4, "bf16": 1e-3}


def random_inputs(cfg, seed=0, scale=1.0):
    """Logical [b, h, s, d] float64 inputs, exactly representable in dtype."""
    rng = np.random.default_rng(seed)
    inputs = {}
    for role in ("query", "key", "value"):
        x = rng.standard_normal(cfg.shape_bhsd(role)) * scale
        inputs[role] = round_to(x, cfg.dtype).astype(np.float64)
    if cfg.bias is not None:
        b = rng.standard_normal(cfg.shape("bias"))
        inputs["bias"] = round_to(b, cfg.bias_dtype).astype(np.float64)
    return inputs


def _to_layout(cfg, x):
    return x if cfg.layout == "bhsd" else np.ascontiguousarray(
        x.transpose(0, 2, 1, 3))


def _from_layout(cfg, x):
    return _to_layout(cfg, x)  # the bshd <-> bhsd swap is an involution


def _encode(cfg, role, x):
    dtype = cfg.bias_dtype if role in ("bias", "grad_bias") else (
        "f32" if role == "lse" else cfg.dtype)
    if role in ("query", "key", "value", "output", "grad_output"):
        x = _to_layout(cfg, x)
    return to_storage(x, dtype)


def _empty(cfg, role):
    base = fa_config.GRAD_OF.get(role, role)
    dtype = cfg.bias_dtype if base == "bias" else (
        "f32" if base == "lse" else cfg.dtype)
    fill = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[dtype]
    # Poison outputs so that an unwritten element cannot pass.
    arr = np.empty(cfg.shape(base), dtype=fill)
    arr[...] = 0x7FC1 if dtype == "bf16" else np.nan
    return arr, dtype, base


def _decode(cfg, base, dtype, arr):
    x = from_storage(arr, dtype)
    if base in ("query", "key", "value", "output", "grad_output"):
        x = _from_layout(cfg, x)
    return x


def run_forward(cfg, inputs, pipeline="fa-cpu-pipeline"):
    """(output, lse) of fa.attention on the CPU, float64, logical layout."""
    fn = CompiledFunction(compile_to_shared_library(
        fa_config.forward_mlir(cfg), pipeline), "attention")
    args = [_encode(cfg, r, inputs[r]) for r in fa_config.forward_inputs(cfg)]
    outs = [_empty(cfg, r) for r in fa_config.forward_outputs(cfg)]
    fn(*args, *[o[0] for o in outs])
    decoded = [_decode(cfg, base, dtype, arr) for arr, dtype, base in outs]
    return decoded[0], (decoded[1] if cfg.return_lse else None)


def run_backward(cfg, inputs, grad_output, output, lse,
                 pipeline="fa-cpu-pipeline"):
    """(dq, dk, dv, dbias) of fa.attention_grad on the CPU, float64."""
    fn = CompiledFunction(compile_to_shared_library(
        fa_config.backward_mlir(cfg), pipeline), "attention_grad")
    values = dict(inputs, grad_output=grad_output, output=output, lse=lse)
    args = [_encode(cfg, r, values[r]) for r in fa_config.backward_inputs(cfg)]
    outs = [_empty(cfg, r) for r in fa_config.backward_outputs(cfg)]
    fn(*args, *[o[0] for o in outs])
    grads = [_decode(cfg, base, dtype, arr) for arr, dtype, base in outs]
    return tuple(grads) + ((None,) if cfg.bias is None else ())


def check_forward(cfg, seed=0, pipeline="fa-cpu-pipeline", input_scale=1.0):
    """Runs one forward; returns a dict of errors and whether it passes."""
    inputs = random_inputs(cfg, seed, input_scale)
    ref_o, ref_lse = reference.forward(cfg, inputs["query"], inputs["key"],
                                       inputs["value"], inputs.get("bias"))
    base_o = reference.forward_lowp(cfg, inputs["query"], inputs["key"],
                                    inputs["value"], inputs.get("bias"))
    o, lse = run_forward(cfg, inputs, pipeline)
    err = reference.max_error(o, ref_o)
    base = reference.max_error(base_o, ref_o)
    eps = EPSILON[cfg.dtype]
    result = {"err": err, "baseline": base, "ok": err <= 2 * base + eps}
    if cfg.return_lse:
        lse_err = reference.max_error(lse, ref_lse)
        result["lse_err"] = lse_err
        result["ok"] = result["ok"] and lse_err <= 1e-4 * max(
            1.0, float(np.abs(ref_lse[np.isfinite(ref_lse)]).max(initial=0)))
    return result


def check_backward(cfg, seed=0, pipeline="fa-cpu-pipeline"):
    """Runs one backward on the reference forward's O and LSE.

    Returns the per-gradient errors against float64, the baseline's (the
    plain backward rounding every step to the dtype) and whether every
    gradient passes the criterion.
    """
    inputs = random_inputs(cfg, seed)
    rng = np.random.default_rng(seed + 1)
    do = round_to(rng.standard_normal(cfg.shape_bhsd("grad_output")),
                  cfg.dtype).astype(np.float64)
    o, lse = reference.forward(cfg, inputs["query"], inputs["key"],
                               inputs["value"], inputs.get("bias"))
    o = round_to(o, cfg.dtype).astype(np.float64)
    ref = reference.backward(cfg, inputs["query"], inputs["key"],
                             inputs["value"], do, inputs.get("bias"))
    ours = run_backward(cfg, inputs, do, o, lse, pipeline)
    base = reference.backward_lowp(cfg, inputs["query"], inputs["key"],
                                   inputs["value"], do, inputs.get("bias"))
    eps = EPSILON[cfg.dtype]
    result = {"ok": True}
    for name, r, x, bl in zip(("dq", "dk", "dv", "dbias"), ref, ours, base):
        if r is None:
            continue
        err = reference.max_error(x, r)
        b = reference.max_error(bl, r)
        result[name] = (err, b)
        result["ok"] = result["ok"] and err <= 2 * b + eps
    return result


def finite_difference_error(cfg, seed=0, pipeline="fa-cpu-pipeline", h=1e-6):
    """Largest difference between the compiled backward and central finite
    differences of the float64 reference forward, over every element of Q, K,
    V and the bias (use tiny f32 problems: one forward per element)."""
    inputs = random_inputs(cfg, seed=seed)
    rng = np.random.default_rng(seed + 1)
    do = rng.standard_normal(cfg.shape_bhsd("grad_output"))
    bias = inputs.get("bias")
    o, lse = reference.forward(cfg, inputs["query"], inputs["key"],
                               inputs["value"], bias)
    grads = run_backward(cfg, inputs, do, o, lse, pipeline)

    def loss(name, x):
        args = dict(inputs, **{name: x})
        out, _ = reference.forward(cfg, args["query"], args["key"],
                                   args["value"], args.get("bias"))
        return float((out * do).sum())

    worst = 0.0
    names = ("query", "key", "value") + (("bias",) if bias is not None else ())
    for name, grad in zip(names, grads):
        x = inputs[name]
        numeric = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            plus, minus = x.copy(), x.copy()
            plus[idx] += h
            minus[idx] -= h
            numeric[idx] = (loss(name, plus) - loss(name, minus)) / (2 * h)
        worst = max(worst, reference.max_error(grad, numeric))
    return worst

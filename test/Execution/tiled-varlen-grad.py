# fa.attention_varlen_grad through fa-cpu-pipeline, tiled and through the
# reference decomposition, against the float64 gradients of each sequence
# with FlashAttention's criterion (dQ, dK, dV each within 2x the plain
# low-precision backward's error): a ragged batch with a sequence without
# queries (its keys get dK = dV = 0), one without keys (its queries get
# dQ = 0, from LSE -inf), rows that see no key (bottom-right causal with
# more queries than keys), tails across the 64-row tiles, GQA 4/2, head
# dims 16/8, causal in both alignments, a window with a softcap, a scale;
# packed tokens past the last sequence get gradient 0. Sizes dynamic.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir import reference
from fa_mlir.config import AttentionConfig
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, to_storage
from fa_mlir.memref import CompiledFunction
from fa_mlir.testing import EPSILON

HQ, HKV, D, DV = 4, 2, 16, 8
CU_Q = [0, 3, 3, 10, 11, 81, 151]
CU_K = [0, 5, 9, 9, 29, 99, 139]
PAD_Q, PAD_K = 3, 2  # packed tokens of no sequence
TOTAL_Q, TOTAL_K = CU_Q[-1] + PAD_Q, CU_K[-1] + PAD_K
PIPELINES = ("fa-cpu-pipeline{tiled=true}", "fa-cpu-pipeline{tiled=false}")
failed = 0


def kernel_text(dtype, attrs):
    def packed(heads, dim):
        return f"tensor<?x{heads}x{dim}x{dtype}>"
    q, k, v = packed(HQ, D), packed(HKV, D), packed(HKV, DV)
    o, cu, lse = packed(HQ, DV), f"tensor<{len(CU_Q)}xi32>", f"tensor<{HQ}x?xf32>"
    mem = lambda t: t.replace("tensor", "memref")  # noqa: E731
    ins = [("do", o), ("q", q), ("k", k), ("v", v), ("o", o), ("lse", lse),
           ("cq", cu), ("ck", cu)]
    outs = [("dq", q), ("dk", k), ("dv", v)]
    params = ", ".join(f"%{n}: {mem(t)}" for n, t in ins + outs)
    body = "".join(f"  %{n}_t = bufferization.to_tensor %{n} restrict : "
                   f"{mem(t)} to {t}\n" for n, t in ins)
    operands = ", ".join(f"%{n}_t" for n, _ in ins)
    types = ", ".join(t for _, t in ins)
    body += (f"  %dq_r, %dk_r, %dv_r = fa.attention_varlen_grad {operands} : "
             f"{types} {attrs} -> {q}, {k}, {v}\n")
    body += "".join(f"  bufferization.materialize_in_destination %{n}_r in "
                    f"restrict writable %{n} : ({t}, {mem(t)}) -> ()\n"
                    for n, t in outs)
    return (f"func.func @varlen_grad({params}) attributes "
            f"{{llvm.emit_c_interface}} {{\n{body}  return\n}}\n")


def bh(x):
    """[tokens, heads, dim] -> [1, heads, tokens, dim]."""
    return x.transpose(1, 0, 2)[None]


def forward_per_sequence(cfgs, q, k, v, dtype):
    """The forward's O (rounded to dtype) and LSE, packed, in float64."""
    o = np.zeros((TOTAL_Q, HQ, DV))
    lse = np.zeros((HQ, TOTAL_Q), np.float32)
    for (q0, q1, k0, k1), cfg in cfgs:
        if q1 == q0:
            continue
        if k1 == k0:
            lse[:, q0:q1] = -np.inf
            continue
        ref_o, ref_lse = reference.forward(cfg, bh(q[q0:q1]), bh(k[k0:k1]), bh(v[k0:k1]))
        o[q0:q1] = reference.round_to(ref_o[0].transpose(1, 0, 2), dtype)
        lse[:, q0:q1] = ref_lse[0]
    return o, lse


def check_sequence(cfg, spans, q, k, v, do, grads):
    """Whether sequence `spans`' dQ, dK, dV meet the criterion; the worst error."""
    q0, q1, k0, k1 = spans
    dq, dk, dv = grads
    if q1 == q0 or k1 == k0:
        # No query: its keys get nothing. No key: its queries get nothing.
        return bool(np.all(dq[q0:q1] == 0) and np.all(dk[k0:k1] == 0) and
                    np.all(dv[k0:k1] == 0)), 0.0
    args = (bh(q[q0:q1]), bh(k[k0:k1]), bh(v[k0:k1]), bh(do[q0:q1]))
    ref = reference.backward(cfg, *args)
    base = reference.backward_lowp(cfg, *args)
    ok, worst = True, 0.0
    for ours, r, bl in zip((dq[q0:q1], dk[k0:k1], dv[k0:k1]), ref, base):
        err = reference.max_error(bh(ours), r)
        worst = max(worst, err)
        ok &= err <= 2 * reference.max_error(bl, r) + EPSILON[cfg.dtype]
    return ok, worst


def run_case(name, dtype, seed=0, **semantics):
    global failed
    rng = np.random.default_rng(seed)
    rnd = lambda *s: reference.round_to(rng.standard_normal(s), dtype)  # noqa: E731
    q, k, v = rnd(TOTAL_Q, HQ, D), rnd(TOTAL_K, HKV, D), rnd(TOTAL_K, HKV, DV)
    do = rnd(TOTAL_Q, HQ, DV)
    spans = [(q0, q1, k0, k1) for (q0, q1), (k0, k1)
             in zip(zip(CU_Q, CU_Q[1:]), zip(CU_K, CU_K[1:]))]
    cfgs = [((q0, q1, k0, k1), AttentionConfig(
        batch=1, heads_q=HQ, heads_kv=HKV, seq_q=max(q1 - q0, 1),
        seq_k=max(k1 - k0, 1), head_dim=D, head_dim_v=DV, dtype=dtype,
        **semantics)) for q0, q1, k0, k1 in spans]
    o, lse = forward_per_sequence(cfgs, q, k, v, dtype)
    attrs = {"causal": "causal" if semantics.get("causal") else None,
             "mask_alignment": semantics.get("mask_alignment") and
             f"mask_alignment = #fa<mask_alignment {semantics['mask_alignment']}>",
             "window": semantics.get("window") and
             "window = array<i64: {}, {}>".format(*semantics["window"]),
             "softcap": semantics.get("softcap") and
             f"softcap = {semantics['softcap']:e} : f32",
             "scale": semantics.get("scale") and f"scale = {semantics['scale']:e} : f32"}
    text = kernel_text(dtype, "{" + ", ".join(a for a in attrs.values() if a) + "}")
    for pipeline in PIPELINES:
        fn = CompiledFunction(compile_to_shared_library(text, pipeline), "varlen_grad")
        # Garbage in the gradients' buffers: every element must be written.
        grads = [to_storage(np.full(x.shape, 7.0), dtype) for x in (q, k, v)]
        fn(*(to_storage(x, dtype) for x in (do, q, k, v, o)), lse,
           np.array(CU_Q, np.int32), np.array(CU_K, np.int32), *grads)
        grads = [from_storage(g, dtype) for g in grads]
        ok, worst = True, 0.0
        for seq_spans, cfg in cfgs:
            seq_ok, err = check_sequence(cfg, seq_spans, q, k, v, do, grads)
            ok &= seq_ok
            worst = max(worst, err)
        ok &= bool(np.all(grads[0][CU_Q[-1]:] == 0) and
                   np.all(grads[1][CU_K[-1]:] == 0) and np.all(grads[2][CU_K[-1]:] == 0))
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {dtype} {name} {pipeline} err {worst:.3g}")


for dtype in ("f32", "bf16"):
    run_case("plain", dtype)
    run_case("causal-top-left", dtype, causal=True)
    run_case("causal-bottom-right", dtype, causal=True, mask_alignment="bottom_right")
    run_case("window-softcap-scale", dtype, window=(6, 2), softcap=3.0, scale=0.3,
             mask_alignment="bottom_right")
run_case("causal-f16", "f16", seed=3, causal=True)

print(f"{failed} failed")

# fa.attention_varlen through fa-cpu-pipeline, tiled and through the
# reference decomposition, against float64 per sequence with
# FlashAttention's criterion: a ragged batch with an empty query sequence, a
# sequence without keys (output 0, LSE -inf), tails across the 64-row tiles,
# GQA, causal in both alignments, a window with a softcap, split-KV; sizes
# of the packed tensors dynamic.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir import reference
from fa_mlir.config import AttentionConfig
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, to_storage
from fa_mlir.memref import CompiledFunction
from fa_mlir.testing import EPSILON

HQ, HKV, D = 4, 2, 16
CU_Q = [0, 3, 3, 10, 11, 81]
CU_K = [0, 5, 9, 9, 29, 99]
PIPELINES = ("fa-cpu-pipeline{tiled=true}", "fa-cpu-pipeline{tiled=false}")
failed = 0


def kernel_text(dtype, attrs):
    q, k = f"tensor<?x{HQ}x{D}x{dtype}>", f"tensor<?x{HKV}x{D}x{dtype}>"
    cu, lse = f"tensor<{len(CU_Q)}xi32>", f"tensor<{HQ}x?xf32>"
    mem = lambda t: t.replace("tensor", "memref")  # noqa: E731
    ins = [("q", q), ("k", k), ("v", k), ("cq", cu), ("ck", cu)]
    outs = [("o", q), ("lse", lse)]
    params = ", ".join(f"%{n}: {mem(t)}" for n, t in ins + outs)
    body = "".join(f"  %{n}_t = bufferization.to_tensor %{n} restrict : "
                   f"{mem(t)} to {t}\n" for n, t in ins)
    body += (f"  %o_r, %lse_r = fa.attention_varlen %q_t, %k_t, %v_t, %cq_t, "
             f"%ck_t : {q}, {k}, {k}, {cu}, {cu} {attrs} -> {q}, {lse}\n")
    body += "".join(f"  bufferization.materialize_in_destination %{n}_r in "
                    f"restrict writable %{n} : ({t}, {mem(t)}) -> ()\n"
                    for n, t in outs)
    return (f"func.func @varlen({params}) attributes {{llvm.emit_c_interface}} "
            f"{{\n{body}  return\n}}\n")


def run_case(name, dtype, causal=False, mask_alignment=None, window=None,
             softcap=None, num_splits=None, seed=0):
    global failed
    rng = np.random.default_rng(seed)
    rnd = lambda *s: reference.round_to(rng.standard_normal(s), dtype)  # noqa: E731
    q, k, v = rnd(CU_Q[-1], HQ, D), rnd(CU_K[-1], HKV, D), rnd(CU_K[-1], HKV, D)
    attrs = {"causal": "causal" if causal else None,
             "mask_alignment": mask_alignment and
             f"mask_alignment = #fa<mask_alignment {mask_alignment}>",
             "window": window and f"window = array<i64: {window[0]}, {window[1]}>",
             "softcap": softcap and f"softcap = {softcap:e} : f32",
             "num_splits": num_splits and f"num_splits = {num_splits} : i64"}
    text = kernel_text(dtype, "{" + ", ".join(a for a in attrs.values() if a) + "}")
    for pipeline in PIPELINES:
        fn = CompiledFunction(compile_to_shared_library(text, pipeline), "varlen")
        o = to_storage(np.zeros(q.shape), dtype)
        lse = np.empty((HQ, CU_Q[-1]), np.float32)
        fn(*(to_storage(x, dtype) for x in (q, k, v)),
           np.array(CU_Q, np.int32), np.array(CU_K, np.int32), o, lse)
        o = from_storage(o, dtype)
        ok, worst = True, 0.0
        for (q0, q1), (k0, k1) in zip(zip(CU_Q, CU_Q[1:]), zip(CU_K, CU_K[1:])):
            if q1 == q0:
                continue
            if k1 == k0:
                ok &= bool(np.all(o[q0:q1] == 0) and np.all(np.isneginf(lse[:, q0:q1])))
                continue
            cfg = AttentionConfig(
                batch=1, heads_q=HQ, heads_kv=HKV, seq_q=q1 - q0, seq_k=k1 - k0,
                head_dim=D, dtype=dtype, causal=causal, window=window,
                softcap=softcap, mask_alignment=mask_alignment)
            bh = lambda x: x.transpose(1, 0, 2)[None]  # noqa: E731
            ref_o, ref_lse = reference.forward(cfg, bh(q[q0:q1]), bh(k[k0:k1]), bh(v[k0:k1]))
            base = reference.forward_lowp(cfg, bh(q[q0:q1]), bh(k[k0:k1]), bh(v[k0:k1]))
            err = reference.max_error(bh(o[q0:q1]), ref_o)
            worst = max(worst, err)
            ok &= err <= 2 * reference.max_error(base, ref_o) + EPSILON[dtype]
            ok &= reference.max_error(lse[None, :, q0:q1], ref_lse) < 1e-4
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {dtype} {name} {pipeline} err {worst:.3g}")


for dtype in ("f32", "bf16"):
    run_case("plain", dtype)
    run_case("causal-top-left", dtype, causal=True)
    run_case("causal-bottom-right-split", dtype, causal=True,
             mask_alignment="bottom_right", num_splits=2)
    run_case("window-softcap", dtype, window=(6, 2), softcap=3.0,
             mask_alignment="bottom_right")

print(f"{failed} failed")

# fa.attention_kvcache through fa-cpu-pipeline, tiled and through the
# reference decomposition, against float64 per sequence with
# FlashAttention's criterion: contiguous and paged caches (scattered pages,
# a page-boundary length, an empty sequence, lengths shorter than the pages
# allocated), appends that cross pages, GQA, bottom-right causal and window
# masks, split-KV; the updated caches hold the new keys at their slots and
# nothing else changed.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir import reference
from fa_mlir.config import AttentionConfig
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, to_storage
from fa_mlir.memref import CompiledFunction
from fa_mlir.testing import EPSILON

B, HQ, HKV, D, PAGE, MAX_PAGES = 3, 4, 2, 16, 8, 5
PIPELINES = ("fa-cpu-pipeline{tiled=true}", "fa-cpu-pipeline{tiled=false}")
failed = 0


def check(tag, ok, detail=""):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {tag} {detail}")


def ty(shape, elem, kind="tensor"):
    return f"{kind}<{'x'.join(map(str, shape))}x{elem}>"


def kernel_text(dtype, sq, sn, cache_shape, paged, attrs):
    shapes = {"q": (B, sq, HQ, D), "kc": cache_shape, "vc": cache_shape,
              "lens": (B,)}
    elems = {"lens": "i32", "bt": "i32"}
    if paged:
        shapes["bt"] = (B, MAX_PAGES)
    if sn:
        shapes["k"] = shapes["v"] = (B, sn, HKV, D)
    outs = {"o": (B, sq, HQ, D), "lse": (B, HQ, sq)}
    elems["lse"] = "f32"
    if sn:
        outs["kc2"] = outs["vc2"] = cache_shape
    elem = lambda n: elems.get(n, dtype)  # noqa: E731
    args = list(shapes) + list(outs)
    all_shapes = {**shapes, **outs}
    params = ", ".join(f"%{n}: {ty(all_shapes[n], elem(n), 'memref')}" for n in args)
    body = "".join(
        f"  %{n}_t = bufferization.to_tensor %{n} restrict : "
        f"{ty(s, elem(n), 'memref')} to {ty(s, elem(n))}\n"
        for n, s in shapes.items())
    table = f" block_table(%bt_t : {ty(shapes['bt'], 'i32')})" if paged else ""
    append = (f" append(%k_t, %v_t : {ty(shapes['k'], dtype)}, "
              f"{ty(shapes['v'], dtype)})" if sn else "")
    results = ", ".join(f"%{n}_r" for n in outs)
    body += (f"  {results} = fa.attention_kvcache %q_t, %kc_t, %vc_t, %lens_t : "
             f"{ty(shapes['q'], dtype)}, {ty(cache_shape, dtype)}, "
             f"{ty(cache_shape, dtype)}, {ty((B,), 'i32')}{table}{append} "
             f"{attrs} -> {', '.join(ty(s, elem(n)) for n, s in outs.items())}\n")
    body += "".join(
        f"  bufferization.materialize_in_destination %{n}_r in restrict "
        f"writable %{n} : ({ty(s, elem(n))}, {ty(s, elem(n), 'memref')}) -> ()\n"
        for n, s in outs.items())
    return (f"func.func @kv({params}) attributes {{llvm.emit_c_interface}} {{\n"
            f"{body}  return\n}}\n"), list(shapes), outs


def slot(table, b, t):
    return (table[b, t // PAGE], t % PAGE) if table is not None else (b, t)


def run_case(name, dtype, lens, sq=1, sn=0, paged=True, causal=False,
             window=None, num_splits=None, seed=0):
    rng = np.random.default_rng(seed)
    cap = PAGE * MAX_PAGES
    cache_shape = (B * MAX_PAGES + 2, PAGE, HKV, D) if paged else (B, cap, HKV, D)
    rnd = lambda *s: reference.round_to(rng.standard_normal(s), dtype)  # noqa: E731
    q, kc, vc = rnd(B, sq, HQ, D), rnd(*cache_shape), rnd(*cache_shape)
    k, v = rnd(B, sn, HKV, D), rnd(B, sn, HKV, D)
    table = (rng.permutation(cache_shape[0])[:B * MAX_PAGES]
             .reshape(B, MAX_PAGES).astype(np.int32) if paged else None)
    attrs = []
    if causal:
        attrs.append("causal")
    if window:
        attrs.append(f"window = array<i64: {window[0]}, {window[1]}>")
    if num_splits is not None:
        attrs.append(f"num_splits = {num_splits} : i64")
    text, ins, outs = kernel_text(dtype, sq, sn, cache_shape, paged,
                                  "{" + ", ".join(attrs) + "}" if attrs else "")
    values = {"q": q, "kc": kc, "vc": vc, "lens": np.array(lens, np.int32),
              "bt": table, "k": k, "v": v}
    args = [values[n] if n in ("lens", "bt") else to_storage(values[n], dtype)
            for n in ins]
    for pipeline in PIPELINES:
        fn = CompiledFunction(compile_to_shared_library(text, pipeline), "kv")
        bufs = {n: (np.empty(s, np.float32) if n == "lse" else
                    to_storage(np.zeros(s), dtype)) for n, s in outs.items()}
        fn(*args, *bufs.values())
        o = from_storage(bufs["o"], dtype)
        ok, worst = True, 0.0
        for b, n in enumerate(lens):
            keys = [kc[slot(table, b, t)] for t in range(n)] + list(k[b])
            vals = [vc[slot(table, b, t)] for t in range(n)] + list(v[b])
            total = n + sn
            if total == 0:
                ok &= bool(np.all(o[b] == 0) and np.all(np.isneginf(bufs["lse"][b])))
                continue
            cfg = AttentionConfig(
                batch=1, heads_q=HQ, heads_kv=HKV, seq_q=sq, seq_k=total,
                head_dim=D, dtype=dtype, causal=causal, window=window,
                mask_alignment="bottom_right" if (causal or window) else None)
            qb = q[b].transpose(1, 0, 2)[None]
            kb = np.stack(keys).transpose(1, 0, 2)[None]
            vb = np.stack(vals).transpose(1, 0, 2)[None]
            ref_o, ref_lse = reference.forward(cfg, qb, kb, vb)
            base = reference.forward_lowp(cfg, qb, kb, vb)
            err = reference.max_error(o[b].transpose(1, 0, 2)[None], ref_o)
            worst = max(worst, err)
            ok &= err <= 2 * reference.max_error(base, ref_o) + EPSILON[dtype]
            ok &= reference.max_error(bufs["lse"][b][None], ref_lse) < 1e-4
        if sn:
            want_k, want_v = kc.copy(), vc.copy()
            for b, n in enumerate(lens):
                for t in range(sn):
                    want_k[slot(table, b, n + t)] = k[b, t]
                    want_v[slot(table, b, n + t)] = v[b, t]
            ok &= bool(np.array_equal(from_storage(bufs["kc2"], dtype), want_k)
                       and np.array_equal(from_storage(bufs["vc2"], dtype), want_v))
        check(f"{dtype} {name} {pipeline}", ok, f"err {worst:.3g}")


for dtype in ("f32", "bf16"):
    run_case("contiguous", dtype, [13, 0, 40], paged=False, causal=True)
    run_case("contiguous-append", dtype, [13, 0, 36], sn=3, sq=2,
             paged=False, causal=True)
    run_case("paged-scattered", dtype, [13, 0, 16], causal=True)
    run_case("paged-append-crossing", dtype, [7, 0, 15], sn=3, sq=3,
             causal=True, num_splits=3)
    run_case("paged-window-split", dtype, [21, 3, 30], sn=4, sq=4,
             causal=True, window=(6, 0), num_splits=2)
    run_case("paged-noncausal", dtype, [9, 24, 1])

print(f"{failed} failed")

# score_mod / mask_mod on fa.attention_varlen, fa.attention_varlen_grad and
# fa.attention_kvcache on the CPU, tiled and through the reference
# decomposition, against float64 (PyTorch autograd for the backward) with
# FlashAttention's criterion (error <= 2x the same computation's in the
# working precision, plus eps). The positions (docs/Modifiers.md, "On the
# inference ops"): a ragged batch's b is the sequence and i, j count from 0
# in it; a KV cache's j is the key's position in the sequence and i the
# query's, n - seq_q + i. The modifiers read them through per-sequence
# captures (a relative bias table per sequence, document ids by position),
# so a wrong batch or position changes the result. Rows every key of which
# mask_mod hides, and sequences without keys, must give O = 0, LSE = -inf.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np
import torch

from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, round_to, to_storage
from fa_mlir.memref import CompiledFunction
from memref_entry import entry_function as function
from modifier_regions import regions

HQ, HKV, D = 4, 2, 16
SCALE = 1.0 / np.sqrt(D)
EPS = {"f32": 1e-5, "bf16": 1e-3}
TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f64": torch.float64}
TILED, REFERENCE = "fa-cpu-pipeline", "fa-cpu-pipeline{tiled=false}"
R = 8  # relative distances clamp to [-R, R]
ARGS = "%s: f32, %b: index, %h: index, %i: index, %j: index"
MASK_ARGS = "%b: index, %h: index, %i: index, %j: index"
rng = np.random.default_rng(11)
SLOPES = (2.0 ** (-8.0 * np.arange(1, HQ + 1) / HQ)).astype(np.float32)


def alibi(captures=""):
    return f"""
  ^bb0({ARGS}, %sl: tensor<{HQ}xf32>{captures}):
    %m = tensor.extract %sl[%h] : tensor<{HQ}xf32>
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %m, %df : f32
    %r = arith.addf %s, %bias : f32
    fa.yield %r : f32"""


def relative_bias(table_type):
    """table[b, h, clamp(j - i, -R, R) + R]: one table per sequence."""
    return f"""
  ^bb0({ARGS}, %t: {table_type}):
    %d = arith.subi %j, %i : index
    %lo = arith.constant -{R} : index
    %hi = arith.constant {R} : index
    %c = arith.maxsi %d, %lo : index
    %c2 = arith.minsi %c, %hi : index
    %kk = arith.addi %c2, %hi : index
    %bias = tensor.extract %t[%b, %h, %kk] : {table_type}
    %r = arith.addf %s, %bias : f32
    fa.yield %r : f32"""


def documents(docs_type):
    """Query i of sequence b sees key j where their documents match."""
    return f"""
  ^bb0({MASK_ARGS}, %docq: {docs_type}, %dock: {docs_type}):
    %di = tensor.extract %docq[%b, %i] : {docs_type}
    %dj = tensor.extract %dock[%b, %j] : {docs_type}
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1"""


def tensor_type(a, elem):
    return f"tensor<{'x'.join(map(str, a.shape))}x{elem}>"


def modifiers(batch, max_q, max_k, docs_q, docs_k):
    """ALiBi, a per-sequence relative bias and a document mask, with their
    captures and float64-able PyTorch definitions."""
    table = rng.standard_normal((batch, HQ, 2 * R + 1)).astype(np.float32)
    dq, dk = np.zeros((batch, max_q), np.int32), np.zeros((batch, max_k), np.int32)
    for b, (q, k) in enumerate(zip(docs_q, docs_k)):
        dq[b, :len(q)], dk[b, :len(k)] = q, k
    ttype, dtype = tensor_type(table, "f32"), tensor_type(dq, "i32")
    assert dtype == tensor_type(dk, "i32")
    return {
        "alibi": dict(captures=[SLOPES], types=[f"tensor<{HQ}xf32>"],
                      causal=True, score=alibi(),
                      score_fn=lambda s, b, h, i, j:
                      s + torch.tensor(SLOPES).double()[h] * (j - i)),
        "relative": dict(captures=[table], types=[ttype], score=relative_bias(ttype),
                         score_fn=lambda s, b, h, i, j: s + torch.tensor(table).double()[
                             b, h, torch.clamp(j - i, -R, R) + R]),
        "document": dict(captures=[dq, dk], types=[dtype, dtype],
                         mask=documents(dtype),
                         mask_fn=lambda b, h, i, j: torch.tensor(dq)[b, i]
                         == torch.tensor(dk)[b, j]),
    }


def captures_clause(mod):
    names = ", ".join(f"%cap{n}_t" for n in range(len(mod["captures"])))
    return f"captures({names} : {', '.join(mod['types'])})"


def capture_args(mod):
    return [(f"cap{n}", t[len("tensor<"):-1]) for n, t in enumerate(mod["types"])]


def attend(mod, q, k, v, b, ipos, dtype):
    """One sequence: q [sq, HQ, D], k, v [sk, HKV, D] (torch), query rows at
    positions `ipos`, keys at 0..sk-1; O [sq, HQ, D] and LSE [HQ, sq]."""
    t = TORCH[dtype]
    q, k, v = (x.to(t) for x in (q, k, v))
    k = k.repeat_interleave(HQ // HKV, dim=1)
    v = v.repeat_interleave(HQ // HKV, dim=1)
    h = torch.arange(HQ)[:, None, None]
    i = torch.as_tensor(ipos)[None, :, None]
    j = torch.arange(k.shape[0])[None, None, :]
    s = torch.einsum("ihd,jhd->hij", q, k) * SCALE
    if "score_fn" in mod:
        s = mod["score_fn"](s, b, h, i, j).to(t)
    keep = torch.ones(s.shape, dtype=torch.bool)
    if mod.get("causal"):
        keep &= j <= i
    if "mask_fn" in mod:
        keep &= mod["mask_fn"](b, h, i, j)
    s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s.float() if t == torch.bfloat16 else s, dim=-1).to(t)
    p = torch.nan_to_num(p, nan=0.0)
    return torch.einsum("hij,jhd->ihd", p, v), torch.logsumexp(s.double(), dim=-1)


failed = 0


def report(tag, ok, detail=""):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {tag} {detail}")


def err(x, ref):
    return float(np.abs(np.asarray(x, np.float64) - ref).max()) if ref.size else 0.0


def check_rows(ours, ours_lse, ref, base, ref_lse, dtype):
    """(ok, error): within the criterion; rows without a visible key exactly
    O = 0 and LSE = -inf."""
    hidden = np.isneginf(ref_lse)  # [HQ, sq]
    e = err(ours, ref)
    ok = e <= 2 * err(base, ref) + EPS[dtype]
    ok &= bool(np.all(np.isneginf(ours_lse[hidden])))
    ok &= bool(np.all(ours.transpose(1, 0, 2)[hidden] == 0))
    finite = ~hidden
    ok &= bool(np.all(np.abs(ours_lse[finite] - ref_lse[finite]) < 1e-4))
    return ok, e


# --- fa.attention_varlen / fa.attention_varlen_grad -----------------------
# (seq_q, seq_k) per sequence: an empty query sequence, one without keys,
# a sequence whose lengths differ, tails across the 64-row tiles.
LENS = [(3, 5), (0, 4), (37, 37), (1, 0), (70, 70)]
CU_Q = np.cumsum([0] + [q for q, _ in LENS]).astype(np.int32)
CU_K = np.cumsum([0] + [k for _, k in LENS]).astype(np.int32)
# Query 2 of sequence 0 is in a document no key is in: a fully masked row.
VARLEN_MODS = modifiers(
    len(LENS), 70, 70,
    [[0, 1, 9], [], [0] * 10 + [1] * 27, [0], [0] * 20 + [1] * 30 + [2] * 20],
    [[0, 0, 1, 1, 1], [0] * 4, [0] * 10 + [1] * 27, [],
     [0] * 20 + [1] * 30 + [2] * 20])
TQ, TK, NCU = int(CU_Q[-1]), int(CU_K[-1]), len(CU_Q)


def varlen_mlir(mod, dtype, attrs):
    q, kv = f"{TQ}x{HQ}x{D}x{dtype}", f"{TK}x{HKV}x{D}x{dtype}"
    cu, lse = f"{NCU}xi32", f"{HQ}x{TQ}xf32"
    args = [("q", q), ("k", kv), ("v", kv), ("cq", cu), ("ck", cu)] + capture_args(mod)
    op = (f"  %r0, %r1 = fa.attention_varlen %q_t, %k_t, %v_t, %cq_t, %ck_t : "
          f"tensor<{q}>, tensor<{kv}>, tensor<{kv}>, tensor<{cu}>, tensor<{cu}> "
          f"{captures_clause(mod)} {attrs} -> tensor<{q}>, tensor<{lse}>{regions(mod)}\n")
    return function("varlen", args, [("o", q), ("lse", lse)], op)


def varlen_grad_mlir(mod, dtype, attrs):
    q, kv = f"{TQ}x{HQ}x{D}x{dtype}", f"{TK}x{HKV}x{D}x{dtype}"
    cu, lse = f"{NCU}xi32", f"{HQ}x{TQ}xf32"
    args = ([("do", q), ("q", q), ("k", kv), ("v", kv), ("o", q), ("lse", lse),
             ("cq", cu), ("ck", cu)] + capture_args(mod))
    op = (f"  %r0, %r1, %r2 = fa.attention_varlen_grad %do_t, %q_t, %k_t, %v_t, "
          f"%o_t, %lse_t, %cq_t, %ck_t : tensor<{q}>, tensor<{q}>, tensor<{kv}>, "
          f"tensor<{kv}>, tensor<{q}>, tensor<{lse}>, tensor<{cu}>, tensor<{cu}> "
          f"{captures_clause(mod)} {attrs} -> tensor<{q}>, tensor<{kv}>, "
          f"tensor<{kv}>{regions(mod)}\n")
    return function("varlen_grad", args, [("dq", q), ("dk", kv), ("dv", kv)], op)


def attrs_of(mod, extra=()):
    a = (["causal"] if mod.get("causal") else []) + list(extra)
    return "{" + ", ".join(a) + "}" if a else ""


def sequences():
    for b, ((q0, q1), (k0, k1)) in enumerate(zip(zip(CU_Q, CU_Q[1:]),
                                              zip(CU_K, CU_K[1:]))):
        if q1 > q0:
            yield b, q0, q1, k0, k1


def packed_inputs(dtype, seed):
    r = np.random.default_rng(seed)
    return [round_to(r.standard_normal(s), dtype).astype(np.float64)
            for s in ((TQ, HQ, D), (TK, HKV, D), (TK, HKV, D))]


def check_varlen(name, mod, dtype, pipeline, extra=()):
    q, k, v = packed_inputs(dtype, len(name))
    fn = CompiledFunction(compile_to_shared_library(
        varlen_mlir(mod, dtype, attrs_of(mod, extra)), pipeline), "varlen")
    o = to_storage(np.zeros((TQ, HQ, D)), dtype)
    lse = np.zeros((HQ, TQ), np.float32)
    fn(*(to_storage(x, dtype) for x in (q, k, v)), CU_Q, CU_K, *mod["captures"], o, lse)
    o = from_storage(o, dtype)
    ok, worst = True, 0.0
    for b, q0, q1, k0, k1 in sequences():
        if k1 == k0:
            ok &= bool(np.all(o[q0:q1] == 0) and np.all(np.isneginf(lse[:, q0:q1])))
            continue
        args = [torch.tensor(x) for x in (q[q0:q1], k[k0:k1], v[k0:k1])]
        ref, ref_lse = attend(mod, *args, b, np.arange(q1 - q0), "f64")
        base, _ = attend(mod, *args, b, np.arange(q1 - q0), dtype)
        good, e = check_rows(o[q0:q1], lse[:, q0:q1], ref.numpy(),
                             base.double().numpy(), ref_lse.numpy(), dtype)
        ok &= good
        worst = max(worst, e)
    report(f"varlen {name} {dtype} {pipeline}", ok, f"err {worst:.3g}")


def varlen_grads(mod, q, k, v, do, dtype):
    """Packed dQ, dK, dV (autograd per sequence), O and LSE."""
    ts = [torch.tensor(x, dtype=TORCH[dtype]).requires_grad_() for x in (q, k, v)]
    o = torch.zeros(TQ, HQ, D, dtype=torch.float64)
    lse = torch.full((HQ, TQ), float("-inf"), dtype=torch.float64)
    for b, q0, q1, k0, k1 in sequences():
        if k1 == k0:
            continue
        ob, lb = attend(mod, ts[0][q0:q1], ts[1][k0:k1], ts[2][k0:k1], b,
                        np.arange(q1 - q0), dtype)
        ob.backward(torch.tensor(do[q0:q1]).to(ob.dtype), retain_graph=True)
        o[q0:q1], lse[:, q0:q1] = ob.detach().double(), lb.detach()
    return [t.grad.double().numpy() if t.grad is not None else np.zeros(t.shape)
            for t in ts], o.numpy(), lse.numpy()


def check_varlen_grad(name, mod, dtype, pipeline):
    q, k, v = packed_inputs(dtype, len(name) + 1)
    do = round_to(np.random.default_rng(3).standard_normal((TQ, HQ, D)),
                  dtype).astype(np.float64)
    ref, o, lse = varlen_grads(mod, q, k, v, do, "f64")
    base, _, _ = varlen_grads(mod, q, k, v, do, dtype)
    fn = CompiledFunction(compile_to_shared_library(
        varlen_grad_mlir(mod, dtype, attrs_of(mod)), pipeline), "varlen_grad")
    outs = [to_storage(np.zeros(s), dtype) for s in ((TQ, HQ, D), (TK, HKV, D), (TK, HKV, D))]
    fn(*(to_storage(x, dtype) for x in (do, q, k, v, round_to(o, dtype))),
       np.ascontiguousarray(lse, np.float32), CU_Q, CU_K, *mod["captures"], *outs)
    for g, x, r, bl in zip(("dq", "dk", "dv"), outs, ref, base):
        e, b = err(from_storage(x, dtype), r), err(bl, r)
        report(f"varlen_grad {name} {g} {dtype} {pipeline}", e <= 2 * b + EPS[dtype],
               f"err {e:.3g} baseline {b:.3g}")


for name, mod in VARLEN_MODS.items():
    check_varlen(name, mod, "f32", TILED)
    check_varlen(name, mod, "f32", REFERENCE)
    check_varlen_grad(name, mod, "f32", TILED)
check_varlen("alibi", VARLEN_MODS["alibi"], "bf16", TILED)
check_varlen("document split-kv", VARLEN_MODS["document"], "f32", TILED,
             extra=["num_splits = 2 : i64"])
check_varlen_grad("document", VARLEN_MODS["document"], "f32", REFERENCE)

# --- fa.attention_kvcache ----------------------------------------------------
B, PAGE, MAX_PAGES, SQ, SN = 3, 8, 5, 3, 2
CAP = PAGE * MAX_PAGES
LENS_KV = [13, 1, 30]  # cached keys; n = len + SN keys after the append
# Documents by absolute position; query 0 of sequence 0 (position 12) is in a
# document of its own: a fully masked row.
DOCS_K = [[0] * 6 + [1] * 9, [0] * 3, [0] * 10 + [1] * 10 + [2] * 12]
DOCS_Q = [d[:] for d in DOCS_K]
DOCS_Q[0][12] = 7
KV_MODS = modifiers(B, CAP, CAP, DOCS_Q, DOCS_K)


def ty(shape, elem):
    return f"{'x'.join(map(str, shape))}x{elem}"


def kvcache_mlir(mod, dtype, paged, attrs):
    cache = (B * MAX_PAGES + 1, PAGE, HKV, D) if paged else (B, CAP, HKV, D)
    q, c, new = ty((B, SQ, HQ, D), dtype), ty(cache, dtype), ty((B, SN, HKV, D), dtype)
    args = [("q", q), ("kc", c), ("vc", c), ("lens", ty((B,), "i32"))]
    if paged:
        args.append(("bt", ty((B, MAX_PAGES), "i32")))
    args += [("k", new), ("v", new)] + capture_args(mod)
    table = f" block_table(%bt_t : tensor<{args[4][1]}>)" if paged else ""
    lse = ty((B, HQ, SQ), "f32")
    op = (f"  %r0, %r1, %r2, %r3 = fa.attention_kvcache %q_t, %kc_t, %vc_t, %lens_t : "
          f"tensor<{q}>, tensor<{c}>, tensor<{c}>, tensor<{ty((B,), 'i32')}>{table} "
          f"append(%k_t, %v_t : tensor<{new}>, tensor<{new}>) {captures_clause(mod)} "
          f"{attrs} -> tensor<{q}>, tensor<{lse}>, tensor<{c}>, tensor<{c}>"
          f"{regions(mod)}\n")
    return function("kv", args, [("o", q), ("lse", lse), ("kc2", c), ("vc2", c)],
                    op), cache


def check_kvcache(name, mod, dtype, pipeline, paged, extra=()):
    text, cache = kvcache_mlir(mod, dtype, paged, attrs_of(mod, extra))
    r = np.random.default_rng(len(name))
    rnd = lambda *s: round_to(r.standard_normal(s), dtype).astype(np.float64)  # noqa: E731
    q, kc, vc = rnd(B, SQ, HQ, D), rnd(*cache), rnd(*cache)
    k, v = rnd(B, SN, HKV, D), rnd(B, SN, HKV, D)
    table = (r.permutation(cache[0])[:B * MAX_PAGES].reshape(B, MAX_PAGES)
             .astype(np.int32) if paged else None)
    slot = (lambda b, t: (table[b, t // PAGE], t % PAGE)) if paged else (lambda b, t: (b, t))
    fn = CompiledFunction(compile_to_shared_library(text, pipeline), "kv")
    o = to_storage(np.zeros((B, SQ, HQ, D)), dtype)
    lse = np.zeros((B, HQ, SQ), np.float32)
    kc2, vc2 = to_storage(np.zeros(cache), dtype), to_storage(np.zeros(cache), dtype)
    ins = [to_storage(x, dtype) for x in (q, kc, vc)] + [np.array(LENS_KV, np.int32)]
    ins += ([table] if paged else []) + [to_storage(x, dtype) for x in (k, v)]
    fn(*ins, *mod["captures"], o, lse, kc2, vc2)
    o = from_storage(o, dtype)
    ok, worst = True, 0.0
    for b, n in enumerate(LENS_KV):
        keys = np.stack([kc[slot(b, t)] for t in range(n)] + list(k[b]))
        vals = np.stack([vc[slot(b, t)] for t in range(n)] + list(v[b]))
        ipos = np.arange(SQ) + n + SN - SQ  # the queries' absolute positions
        args = [torch.tensor(x) for x in (q[b], keys, vals)]
        ref, ref_lse = attend(mod, *args, b, ipos, "f64")
        base, _ = attend(mod, *args, b, ipos, dtype)
        good, e = check_rows(o[b], lse[b], ref.numpy(), base.double().numpy(),
                             ref_lse.numpy(), dtype)
        ok &= good
        worst = max(worst, e)
    report(f"kvcache {name} {'paged' if paged else 'contiguous'} {dtype} {pipeline}",
           ok, f"err {worst:.3g}")


for name, mod in KV_MODS.items():
    check_kvcache(name, mod, "f32", TILED, paged=True)
    check_kvcache(name, mod, "f32", REFERENCE, paged=False)
check_kvcache("alibi", KV_MODS["alibi"], "bf16", TILED, paged=False)
check_kvcache("document split-kv", KV_MODS["document"], "f32", TILED, paged=True,
              extra=["num_splits = 2 : i64"])
print(f"{failed} failed")

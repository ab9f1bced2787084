# Attention sinks (gpt-oss: one logit per query head in every row's softmax
# normalizer, no value row) on the CPU, through the tiled lowering
# (fa-tile-attention, split-KV too) and the reference decomposition, against
# float64 (PyTorch autograd for the backward, d_sinks included) with
# FlashAttention's criterion: our error <= 2x the error of the same
# computation in the working precision, plus eps. GQA (4 query heads on 2
# kv heads), causal, and a mask_mod that hides the first rows entirely (their
# O is 0 and their LSE the sink). 70 tokens straddle the 64-row tiles.
# A sink of -inf is no sink (one head has one): that head's hidden rows get
# LSE -inf, and nothing becomes NaN, d_sinks included.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np
import torch

from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, round_to, to_storage
from fa_mlir.memref import CompiledFunction
from memref_entry import entry_function as function

B, HQ, HKV, S, D = 2, 4, 2, 70, 32
SCALE = 1.0 / np.sqrt(D)
HIDDEN_ROWS = 3  # mask_mod hides every key from rows 0..2
EPS = {"f32": 1e-5, "bf16": 1e-3}
# Head 3 has no sink (-inf): its hidden rows have LSE -inf, not the sink.
SINKS = np.array([0.5, -1.0, 4.0, -np.inf], dtype=np.float32)
TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f64": torch.float64}

MASK_MOD = f""" mask_mod {{
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.constant {HIDDEN_ROWS} : index
    %keep = arith.cmpi uge, %i, %c : index
    fa.yield %keep : i1
  }}"""


def reference(q, k, v, sinks, dtype, causal):
    """O and LSE with sinks, every step in `dtype` (torch)."""
    t = TORCH[dtype]
    q, k, v = (x.to(t) for x in (q, k, v))
    k = k.repeat_interleave(HQ // HKV, dim=1)
    v = v.repeat_interleave(HQ // HKV, dim=1)
    i = torch.arange(S)[:, None]
    j = torch.arange(S)[None, :]
    keep = i >= HIDDEN_ROWS
    if causal:
        keep = keep & (j <= i)
    s = ((q @ k.transpose(-1, -2)) * SCALE).masked_fill(~keep, float("-inf"))
    sink = sinks.to(s.dtype)[None, :, None, None].expand(B, HQ, S, 1)
    full = torch.cat([s, sink], dim=-1)
    x = full.float() if t == torch.bfloat16 else full
    # softmax that gives 0 (and finite gradients) on a row of -inf.
    m = x.max(dim=-1, keepdim=True).values.detach()
    e = torch.exp(x - torch.where(m == float("-inf"), 0.0, m))
    den = e.sum(dim=-1, keepdim=True)
    p = (e / torch.where(den == 0, 1.0, den)).to(t)[..., :S]
    return p @ v, torch.logsumexp(full.double(), dim=-1)


def types(dtype):
    return (f"{B}x{HQ}x{S}x{D}x{dtype}", f"{B}x{HKV}x{S}x{D}x{dtype}",
            f"{B}x{HQ}x{S}xf32", f"{HQ}xf32")


def forward_mlir(dtype, attrs):
    q, kv, lse, sk = types(dtype)
    op = (f"  %r0, %r1 = fa.attention %q_t, %k_t, %v_t : tensor<{q}>, "
          f"tensor<{kv}>, tensor<{kv}> sinks(%s_t : tensor<{sk}>) {attrs} "
          f"-> tensor<{q}>, tensor<{lse}>{MASK_MOD}\n")
    return function("attention", [("q", q), ("k", kv), ("v", kv), ("s", sk)],
                    [("o", q), ("lse", lse)], op)


def backward_mlir(dtype, attrs):
    q, kv, lse, sk = types(dtype)
    op = (f"  %r0, %r1, %r2, %r3 = fa.attention_grad %do_t, %q_t, %k_t, "
          f"%v_t, %o_t, %lse_t : tensor<{q}>, tensor<{q}>, tensor<{kv}>, "
          f"tensor<{kv}>, tensor<{q}>, tensor<{lse}> sinks(%s_t : "
          f"tensor<{sk}>) {attrs} -> tensor<{q}>, tensor<{kv}>, "
          f"tensor<{kv}>, tensor<{sk}>{MASK_MOD}\n")
    args = [("do", q), ("q", q), ("k", kv), ("v", kv), ("o", q),
            ("lse", lse), ("s", sk)]
    return function("attention_grad", args,
                    [("dq", q), ("dk", kv), ("dv", kv), ("ds", sk)], op)


def run(text, name, ins, outs, pipeline):
    """`outs`: (shape, dtype) of each result."""
    fn = CompiledFunction(compile_to_shared_library(text, pipeline), name)
    bufs = [to_storage(np.zeros(s), dt) for s, dt in outs]
    fn(*ins, *bufs)
    return [from_storage(o, dt) for o, (_, dt) in zip(bufs, outs)]


def inputs(dtype, seed):
    r = np.random.default_rng(seed)
    shapes = [(B, HQ, S, D), (B, HKV, S, D), (B, HKV, S, D)]
    return [round_to(r.standard_normal(s), dtype).astype(np.float64)
            for s in shapes]


def err(x, ref):
    x = np.asarray(x, np.float64)
    same = x == ref  # equal infinities are exact (their difference NaN)
    with np.errstate(invalid="ignore"):
        return float(np.where(same, 0.0, np.abs(x - ref)).max())


failed = 0


def report(tag, ours, base, eps):
    global failed
    ok = ours <= 2 * base + eps
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {tag}: err {ours:.3g} baseline {base:.3g}")


def check(tag, ok):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {tag}")


def attrs_of(causal, splits=None):
    items = (["causal"] if causal else []) + (
        [f"num_splits = {splits} : i64"] if splits else [])
    return "{" + ", ".join(items) + "}" if items else ""


def check_forward(dtype, pipeline, causal, splits=None):
    q, k, v = inputs(dtype, 11)
    ts = [torch.tensor(x) for x in (q, k, v)]
    ref, ref_lse = reference(*ts, torch.tensor(SINKS).double(), "f64",
                             causal)
    base, _ = reference(*ts, torch.tensor(SINKS), dtype, causal)
    ins = [to_storage(x, dtype) for x in (q, k, v)] + [SINKS.copy()]
    o, lse = run(forward_mlir(dtype, attrs_of(causal, splits)), "attention",
                 ins, [((B, HQ, S, D), dtype), ((B, HQ, S), "f32")], pipeline)
    tag = f"{dtype} {pipeline} causal={causal} splits={splits}"
    report(f"forward O {tag}", err(o, ref.numpy()),
           err(base.double().numpy(), ref.numpy()), EPS[dtype])
    # LSE is f32 in every precision: within a few f32 ulps of float64.
    report(f"forward LSE {tag}", err(lse, ref_lse.numpy()), 0.0, 1e-5)
    # The hidden rows: O = 0 and LSE = the sink (-inf for no sink).
    hidden = slice(0, HIDDEN_ROWS)
    check(f"hidden rows O = 0, LSE = sink {tag}",
          np.all(o[:, :, hidden] == 0) and np.array_equal(
              lse[:, :, hidden],
              np.broadcast_to(SINKS[None, :, None], (B, HQ, HIDDEN_ROWS))))


def grads(q, k, v, sinks, do, dtype, causal):
    t = TORCH[dtype]
    ts = [torch.tensor(x, dtype=t).requires_grad_() for x in (q, k, v)]
    st = torch.tensor(sinks, dtype=torch.float64 if dtype == "f64"
                      else torch.float32).requires_grad_()
    o, lse = reference(*ts, st, dtype, causal)
    o.backward(torch.tensor(do).to(o.dtype))
    return [x.grad.double().numpy() for x in ts + [st]], o, lse


def check_backward(dtype, pipeline, causal):
    q, k, v = inputs(dtype, 12)
    do = round_to(np.random.default_rng(3).standard_normal((B, HQ, S, D)),
                  dtype).astype(np.float64)
    ref, o, lse = grads(q, k, v, SINKS, do, "f64", causal)
    base, _, _ = grads(q, k, v, SINKS, do, dtype, causal)
    o = round_to(o.detach().numpy(), dtype).astype(np.float64)
    ins = ([to_storage(x, dtype) for x in (do, q, k, v, o)]
           + [np.ascontiguousarray(lse.detach().numpy(), np.float32),
              SINKS.copy()])
    ours = run(backward_mlir(dtype, attrs_of(causal)), "attention_grad", ins,
               [((B, HQ, S, D), dtype), ((B, HKV, S, D), dtype),
                ((B, HKV, S, D), dtype), ((HQ,), "f32")], pipeline)
    tag = f"{dtype} {pipeline} causal={causal}"
    for g, x, r, bl in zip(("dq", "dk", "dv", "dsinks"), ours, ref, base):
        report(f"backward {g} {tag}", err(x, r), err(bl, r), EPS[dtype])
    no_sink = ~np.isfinite(SINKS)
    check(f"no sink: finite gradients, d_sinks = 0 {tag}",
          all(np.isfinite(g).all() for g in ours[:3])
          and np.all(ours[3][no_sink] == 0)
          and np.isfinite(ours[3][~no_sink]).all())


TILED, REFERENCE = "fa-cpu-pipeline", "fa-cpu-pipeline{tiled=false}"
for pipeline in (TILED, REFERENCE):
    check_forward("f32", pipeline, causal=True)
    check_backward("f32", pipeline, causal=True)
check_forward("f32", TILED, causal=False)
check_backward("f32", TILED, causal=False)
check_forward("bf16", TILED, causal=True)
check_backward("bf16", TILED, causal=True)
# Split-KV: the sink joins the normalizer once, in split 0; with 3 splits
# over 2 key tiles one split is empty.
check_forward("f32", TILED, causal=True, splits=3)
print(f"{failed} failed")

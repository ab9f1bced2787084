# score_mod / mask_mod regions (FlexAttention's modifiers) on the CPU, through
# the tiled lowering (fa-tile-attention) and the reference decomposition,
# against float64 (PyTorch autograd for the backward) with FlashAttention's
# criterion: our error <= 2x the error of the same computation in the
# working precision, plus eps. The modifiers: ALiBi (slopes as a capture),
# a T5-style bucketed relative bias (the table as a capture), a document
# mask (ids as a capture), prefix-LM (prefix lengths as a capture), and a
# combination with softcap and a GQA head mapping; split-KV once. 70 tokens
# straddle the 64-row tiles.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np
import torch

from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage, round_to, to_storage
from fa_mlir.memref import CompiledFunction
from memref_entry import entry_function as function
from modifier_regions import regions

B, HQ, HKV, S, D = 2, 4, 2, 70, 32
SCALE = 1.0 / np.sqrt(D)
# MAX_DISTANCE 50: no distance lands on a bucket boundary up to rounding
# (the log-bucket value is an integer only where the bucket clamps anyway).
NUM_BUCKETS, MAX_DISTANCE = 16, 50
EPS = {"f32": 1e-5, "bf16": 1e-3}
ARGS = ("%s: f32, %b: index, %h: index, %i: index, %j: index")
MASK_ARGS = ("%b: index, %h: index, %i: index, %j: index")

rng = np.random.default_rng(7)
SLOPES = (2.0 ** (-8.0 * np.arange(1, HQ + 1) / HQ)).astype(np.float32)
TABLE = rng.standard_normal((HQ, NUM_BUCKETS)).astype(np.float32)
DOCS = np.stack([np.repeat(np.arange(4), [20, 30, 15, 5]),
                 np.repeat(np.arange(3), [50, 1, 19])]).astype(np.int32)
PREFIX = np.array([13, 66], dtype=np.int32)

# T5's bidirectional buckets: half per direction, exact below max_exact,
# logarithmic up to MAX_DISTANCE.
T5_BUCKET = f"""
    %rel = arith.subi %j, %i : index
    %reli = arith.index_cast %rel : index to i64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %half = arith.constant {NUM_BUCKETS // 2} : i64
    %exact = arith.constant {NUM_BUCKETS // 4} : i64
    %up = arith.cmpi sgt, %reli, %c0 : i64
    %base = arith.select %up, %half, %c0 : i64
    %neg = arith.subi %c0, %reli : i64
    %abs = arith.maxsi %reli, %neg : i64
    %small = arith.cmpi slt, %abs, %exact : i64
    %abs1 = arith.maxsi %abs, %c1 : i64
    %af = arith.sitofp %abs1 : i64 to f32
    %ef = arith.sitofp %exact : i64 to f32
    %ratio = arith.divf %af, %ef : f32
    %lg = math.log %ratio : f32
    %norm = arith.constant {np.log(MAX_DISTANCE / (NUM_BUCKETS // 4)):.9g} : f32
    %span = arith.constant {NUM_BUCKETS // 2 - NUM_BUCKETS // 4}.0 : f32
    %x = arith.divf %lg, %norm : f32
    %y = arith.mulf %x, %span : f32
    %yi = arith.fptosi %y : f32 to i64
    %large0 = arith.addi %exact, %yi : i64
    %last = arith.subi %half, %c1 : i64
    %large = arith.minsi %large0, %last : i64
    %off = arith.select %small, %abs, %large : i64
    %bucket = arith.addi %base, %off : i64
    %bk = arith.index_cast %bucket : i64 to index"""


def t5_bucket(rel):
    half, exact = NUM_BUCKETS // 2, NUM_BUCKETS // 4
    base = torch.where(rel > 0, half, 0)
    a = rel.abs()
    ratio = torch.clamp(a, min=1).to(torch.float32) / exact
    large = exact + (torch.log(ratio) / np.float32(np.log(MAX_DISTANCE / exact))
                     * (half - exact)).to(torch.int64)
    large = torch.clamp(large, max=half - 1)
    return base + torch.where(a < exact, a, large)


MODIFIERS = {
    "alibi": dict(
        captures=[("slopes", SLOPES, "tensor<4xf32>")], attrs="{causal}",
        score=f"""
  ^bb0({ARGS}, %sl: tensor<4xf32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %m, %df : f32
    %r = arith.addf %s, %bias : f32
    fa.yield %r : f32""",
        score_fn=lambda s, b, h, i, j: s + torch.tensor(SLOPES).double()[h]
        * (j - i),
        causal=True),
    "t5-bias": dict(
        captures=[("table", TABLE, "tensor<4x16xf32>")], attrs="",
        score=f"""
  ^bb0({ARGS}, %t: tensor<4x16xf32>):{T5_BUCKET}
    %bias = tensor.extract %t[%h, %bk] : tensor<4x16xf32>
    %r = arith.addf %s, %bias : f32
    fa.yield %r : f32""",
        score_fn=lambda s, b, h, i, j: s + torch.tensor(TABLE).double()[
            h, t5_bucket(j - i)]),
    "document": dict(
        captures=[("docs", DOCS, "tensor<2x70xi32>")], attrs="",
        mask=f"""
  ^bb0({MASK_ARGS}, %d: tensor<2x70xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<2x70xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<2x70xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1""",
        mask_fn=lambda b, h, i, j: torch.tensor(DOCS)[b, i]
        == torch.tensor(DOCS)[b, j]),
    "prefix-lm": dict(
        captures=[("prefix", PREFIX, "tensor<2xi32>")], attrs="",
        mask=f"""
  ^bb0({MASK_ARGS}, %p: tensor<2xi32>):
    %len = tensor.extract %p[%b] : tensor<2xi32>
    %lenx = arith.index_cast %len : i32 to index
    %past = arith.cmpi ule, %j, %i : index
    %inprefix = arith.cmpi ult, %j, %lenx : index
    %keep = arith.ori %past, %inprefix : i1
    fa.yield %keep : i1""",
        mask_fn=lambda b, h, i, j: (j <= i) | (j < torch.tensor(PREFIX)[b])),
    # A learned-looking nonlinear score_mod (tanh, mul, max: a real
    # derivative for the backward), ALiBi's slopes, the document mask and
    # softcap together.
    "combined": dict(
        captures=[("slopes", SLOPES, "tensor<4xf32>"),
                  ("docs", DOCS, "tensor<2x70xi32>")],
        attrs="{softcap = 5.0 : f32, window = array<i64: 40, 40>}",
        score=f"""
  ^bb0({ARGS}, %sl: tensor<4xf32>, %d: tensor<2x70xi32>):
    %m = tensor.extract %sl[%h] : tensor<4xf32>
    %c3 = arith.constant 3.0 : f32
    %x = arith.divf %s, %c3 : f32
    %t = math.tanh %x : f32
    %u = arith.mulf %t, %c3 : f32
    %w = arith.mulf %u, %m : f32
    %r0 = arith.addf %s, %w : f32
    %floor = arith.constant -2.0 : f32
    %r = arith.maximumf %r0, %floor : f32
    fa.yield %r : f32""",
        mask=f"""
  ^bb0({MASK_ARGS}, %sl: tensor<4xf32>, %d: tensor<2x70xi32>):
    %di = tensor.extract %d[%b, %i] : tensor<2x70xi32>
    %dj = tensor.extract %d[%b, %j] : tensor<2x70xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    fa.yield %same : i1""",
        score_fn=lambda s, b, h, i, j: torch.maximum(
            s + 3 * torch.tanh(s / 3) * torch.tensor(SLOPES).double()[h],
            torch.tensor(-2.0, dtype=s.dtype)),
        mask_fn=lambda b, h, i, j: torch.tensor(DOCS)[b, i]
        == torch.tensor(DOCS)[b, j],
        softcap=5.0, window=40),
}

TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f64": torch.float64}


def reference(mod, q, k, v, dtype):
    """Attention with the modifiers, every step in `dtype` (torch)."""
    t = TORCH[dtype]
    q, k, v = (x.to(t) for x in (q, k, v))
    k = k.repeat_interleave(HQ // HKV, dim=1)
    v = v.repeat_interleave(HQ // HKV, dim=1)
    b = torch.arange(B)[:, None, None, None]
    h = torch.arange(HQ)[None, :, None, None]
    i = torch.arange(S)[None, None, :, None]
    j = torch.arange(S)[None, None, None, :]
    s = (q @ k.transpose(-1, -2)) * SCALE
    if "score_fn" in mod:
        s = mod["score_fn"](s, b, h, i, j).to(t)
    if "softcap" in mod:
        s = mod["softcap"] * torch.tanh(s / mod["softcap"])
    keep = torch.ones(B, HQ, S, S, dtype=torch.bool)
    if mod.get("causal"):
        keep &= j <= i
    if "window" in mod:
        keep &= (j - i).abs() <= mod["window"]
    if "mask_fn" in mod:
        keep &= mod["mask_fn"](b, h, i, j)
    s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s.float() if t == torch.bfloat16 else s, dim=-1).to(t)
    p = torch.nan_to_num(p, nan=0.0)
    return p @ v, torch.logsumexp(s.double(), dim=-1)


def mlir_types(dtype):
    q = f"{B}x{HQ}x{S}x{D}x{dtype}"
    kv = f"{B}x{HKV}x{S}x{D}x{dtype}"
    lse = f"{B}x{HQ}x{S}xf32"
    return q, kv, lse


def capture_types(mod):
    caps = mod["captures"]
    return ([(n, t[len("tensor<"):-1]) for n, _, t in caps],
            ", ".join(f"%{n}_t" for n, _, _ in caps),
            ", ".join(t for _, _, t in caps))


def forward_mlir(mod, dtype):
    q, kv, _ = mlir_types(dtype)
    cap_args, cap_vals, cap_types = capture_types(mod)
    args = [("q", q), ("k", kv), ("v", kv)] + cap_args
    op = (f"  %r0 = fa.attention %q_t, %k_t, %v_t : tensor<{q}>, "
          f"tensor<{kv}>, tensor<{kv}> captures({cap_vals} : {cap_types}) "
          f"{mod['attrs']} -> tensor<{q}>{regions(mod)}\n")
    return function("attention", args, [("o", q)], op)


def backward_mlir(mod, dtype):
    q, kv, lse = mlir_types(dtype)
    cap_args, cap_vals, cap_types = capture_types(mod)
    args = [("do", q), ("q", q), ("k", kv), ("v", kv), ("o", q),
            ("lse", lse)] + cap_args
    op = (f"  %r0, %r1, %r2 = fa.attention_grad %do_t, %q_t, %k_t, %v_t, "
          f"%o_t, %lse_t : tensor<{q}>, tensor<{q}>, tensor<{kv}>, "
          f"tensor<{kv}>, tensor<{q}>, tensor<{lse}> captures({cap_vals} : "
          f"{cap_types}) {mod['attrs']} -> tensor<{q}>, tensor<{kv}>, "
          f"tensor<{kv}>{regions(mod)}\n")
    return function("attention_grad", args,
                    [("dq", q), ("dk", kv), ("dv", kv)], op)


def run(text, name, ins, out_shapes, dtype, pipeline):
    fn = CompiledFunction(compile_to_shared_library(text, pipeline), name)
    outs = [to_storage(np.zeros(s), dtype) for s in out_shapes]
    fn(*ins, *outs)
    return [from_storage(o, dtype) for o in outs]


def inputs(dtype, seed):
    r = np.random.default_rng(seed)
    shapes = [(B, HQ, S, D), (B, HKV, S, D), (B, HKV, S, D)]
    return [round_to(r.standard_normal(s), dtype).astype(np.float64)
            for s in shapes]


def captures(mod):
    return [np.ascontiguousarray(c) for _, c, _ in mod["captures"]]


def err(x, ref):
    return float(np.abs(np.asarray(x, np.float64) - ref).max())


failed = 0


def report(tag, ours, base, eps):
    global failed
    ok = ours <= 2 * base + eps
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {tag}: err {ours:.3g} baseline {base:.3g}")


def check_forward(name, mod, dtype, pipeline):
    q, k, v = inputs(dtype, len(name))
    ref, _ = reference(mod, *(torch.tensor(x) for x in (q, k, v)), "f64")
    base, _ = reference(mod, *(torch.tensor(x) for x in (q, k, v)), dtype)
    ins = [to_storage(x, dtype) for x in (q, k, v)] + captures(mod)
    (o,) = run(forward_mlir(mod, dtype), "attention", ins, [(B, HQ, S, D)],
               dtype, pipeline)
    report(f"forward {name} {dtype} {pipeline}", err(o, ref.numpy()),
           err(base.double().numpy(), ref.numpy()), EPS[dtype])


def grads(mod, q, k, v, do, dtype):
    ts = [torch.tensor(x, dtype=TORCH[dtype]).requires_grad_()
          for x in (q, k, v)]
    o, lse = reference(mod, *ts, dtype)
    o.backward(torch.tensor(do).to(o.dtype))
    return [t.grad.double().numpy() for t in ts], o, lse


def check_backward(name, mod, dtype, pipeline):
    q, k, v = inputs(dtype, len(name) + 1)
    do = round_to(np.random.default_rng(3).standard_normal((B, HQ, S, D)),
                  dtype).astype(np.float64)
    ref, o, lse = grads(mod, q, k, v, do, "f64")
    base, _, _ = grads(mod, q, k, v, do, dtype)
    o = round_to(o.detach().numpy(), dtype).astype(np.float64)
    ins = ([to_storage(x, dtype) for x in (do, q, k, v, o)]
           + [np.ascontiguousarray(lse.detach().numpy(), np.float32)]
           + captures(mod))
    ours = run(backward_mlir(mod, dtype), "attention_grad", ins,
               [(B, HQ, S, D), (B, HKV, S, D), (B, HKV, S, D)], dtype,
               pipeline)
    for g, x, r, bl in zip(("dq", "dk", "dv"), ours, ref, base):
        report(f"backward {name} {g} {dtype} {pipeline}", err(x, r),
               err(bl, r), EPS[dtype])


TILED, REFERENCE = "fa-cpu-pipeline", "fa-cpu-pipeline{tiled=false}"
for name, mod in MODIFIERS.items():
    check_forward(name, mod, "f32", TILED)
    check_forward(name, mod, "f32", REFERENCE)
    check_backward(name, mod, "f32", TILED)
check_forward("combined", MODIFIERS["combined"], "bf16", TILED)
# Split-KV: each split's tiles see the same (b, h, i, j).
check_forward("alibi split-kv", {**MODIFIERS["alibi"],
                                 "attrs": "{causal, num_splits = 3 : i64}"},
              "f32", TILED)
check_backward("combined", MODIFIERS["combined"], "f32", REFERENCE)
print(f"{failed} failed")

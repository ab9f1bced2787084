# Block sparsity from mask_mod (compile-time BlockMask) on the CPU tiles:
# a mask_mod that states causal or a window must compute exactly what the
# attribute computes (the same tiles skipped, the same tiles unmasked, the
# same boundary tiles masked: bitwise equal results, forward and backward),
# and a mask whose hidden tiles lie inside the visited spans (skipped by an
# scf.if) must match float64 with FlashAttention's criterion. 200 tokens:
# tails in the last 64-row tile.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np
import torch

from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.memref import CompiledFunction
from memref_entry import entry_function as function

B, HQ, HKV, S, D = 1, 2, 1, 200, 32
SCALE = 1.0 / np.sqrt(D)
T = f"{B}x{HQ}x{S}x{D}xf32"
KV = f"{B}x{HKV}x{S}x{D}xf32"
LSE = f"{B}x{HQ}x{S}xf32"
ARGS = "^bb0(%b: index, %h: index, %i: index, %j: index):"

CAUSAL = f"""{ARGS}
    %keep = arith.cmpi ule, %j, %i : index
    fa.yield %keep : i1"""
# Window (left 40, right 10), written with signed differences.
WINDOW = f"""{ARGS}
    %d = arith.subi %i, %j : index
    %e = arith.subi %j, %i : index
    %left = arith.constant 40 : index
    %right = arith.constant 10 : index
    %in_l = arith.cmpi sle, %d, %left : index
    %in_r = arith.cmpi sle, %e, %right : index
    %keep = arith.andi %in_l, %in_r : i1
    fa.yield %keep : i1"""
# Causal, and only key blocks of 32 with an even index: with 64-row tiles
# the odd halves make partial tiles, and with block-k 32 whole hidden tiles
# inside each query tile's span.
DILATED = f"""{ARGS}
    %c32 = arith.constant 32 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %blk = arith.divui %j, %c32 : index
    %par = arith.remui %blk, %c2 : index
    %even = arith.cmpi eq, %par, %c0 : index
    %past = arith.cmpi ule, %j, %i : index
    %keep = arith.andi %even, %past : i1
    fa.yield %keep : i1"""


def region(mask):
    return f" mask_mod {{\n  {mask}\n  }}" if mask else ""


def forward(attrs, mask):
    op = (f"  %r0, %r1 = fa.attention %q_t, %k_t, %v_t : tensor<{T}>, "
          f"tensor<{KV}>, tensor<{KV}> {attrs} -> tensor<{T}>, "
          f"tensor<{LSE}>{region(mask)}\n")
    return function("attention", [("q", T), ("k", KV), ("v", KV)],
                    [("o", T), ("l", LSE)], op)


def backward(attrs, mask):
    op = (f"  %r0, %r1, %r2 = fa.attention_grad %do_t, %q_t, %k_t, %v_t, "
          f"%o_t, %l_t : tensor<{T}>, tensor<{T}>, tensor<{KV}>, "
          f"tensor<{KV}>, tensor<{T}>, tensor<{LSE}> {attrs} -> tensor<{T}>, "
          f"tensor<{KV}>, tensor<{KV}>{region(mask)}\n")
    ins = [("do", T), ("q", T), ("k", KV), ("v", KV), ("o", T), ("l", LSE)]
    return function("attention_grad", ins,
                    [("dq", T), ("dk", KV), ("dv", KV)], op)


def run(text, name, ins, shapes, pipeline):
    fn = CompiledFunction(compile_to_shared_library(text, pipeline), name)
    outs = [np.zeros(s, np.float32) for s in shapes]
    fn(*ins, *outs)
    return outs


rng = np.random.default_rng(5)
q = rng.standard_normal((B, HQ, S, D)).astype(np.float32)
k = rng.standard_normal((B, HKV, S, D)).astype(np.float32)
v = rng.standard_normal((B, HKV, S, D)).astype(np.float32)
do = rng.standard_normal((B, HQ, S, D)).astype(np.float32)
FWD_SHAPES = [(B, HQ, S, D), (B, HQ, S)]
BWD_SHAPES = [(B, HQ, S, D), (B, HKV, S, D), (B, HKV, S, D)]
failed = 0


def check(tag, ok):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} {tag}")


def both(attrs, mask, pipeline):
    o, lse = run(forward(attrs, mask), "attention", [q, k, v], FWD_SHAPES,
                 pipeline)
    grads = run(backward(attrs, mask), "attention_grad",
                [do, q, k, v, o, lse], BWD_SHAPES, pipeline)
    return [o, lse] + grads


def tiled(block_k):
    return (f"fa-tile-attention{{block-k={block_k}}},fa-cpu-pipeline"
            if block_k != 64 else "fa-cpu-pipeline")


# The mask_mod forms of the attributes, bitwise.
for name, attrs, mask in (("causal", "{causal}", CAUSAL),
                          ("window", "{window = array<i64: 40, 10>}", WINDOW)):
    want = both(attrs, None, tiled(64))
    got = both("", mask, tiled(64))
    for tag, x, y in zip(("O", "LSE", "dQ", "dK", "dV"), got, want):
        check(f"mask_mod {name} == attribute, {tag}", np.array_equal(x, y))


def reference(keep, dtype):
    """O and (dQ, dK, dV) in `dtype` (torch), keep[i, j] the visible keys."""
    ts = [torch.tensor(x, dtype=dtype).requires_grad_() for x in (q, k, v)]
    kk = ts[1].repeat_interleave(HQ // HKV, dim=1)
    vv = ts[2].repeat_interleave(HQ // HKV, dim=1)
    s = (ts[0] @ kk.transpose(-1, -2) * SCALE).masked_fill(~keep, -np.inf)
    o = torch.softmax(s, dim=-1) @ vv
    o.backward(torch.tensor(do, dtype=dtype))
    return [o.detach().numpy()] + [t.grad.numpy() for t in ts]


i = torch.arange(S)[:, None]
j = torch.arange(S)[None, :]
keep = ((j // 32) % 2 == 0) & (j <= i)
ref = reference(keep, torch.float64)
base = reference(keep, torch.float32)
# block-k 32: whole hidden tiles inside the spans; atomic dQ: the skipped
# tiles' atomic adds sit in the scf.if too.
ATOMIC = "fa-tile-attention{dq-accumulation=atomic},fa-cpu-pipeline"
for name, pipeline in (("block-k 64", tiled(64)), ("block-k 32", tiled(32)),
                       ("atomic dQ", ATOMIC)):
    o, lse, dq, dk, dv = both("", DILATED, pipeline)
    for tag, x, r, bl in zip(("O", "dQ", "dK", "dV"), (o, dq, dk, dv), ref,
                             base):
        ours, baseline = np.abs(x - r).max(), np.abs(bl - r).max()
        check(f"dilated {name} {tag}: err {ours:.3g} baseline "
              f"{baseline:.3g}", ours <= 2 * baseline + 1e-5)
print(f"{failed} failed")

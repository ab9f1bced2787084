"""Ragged-batch prefill next to the peers in one process (issue 14's
benchmark): bf16, 16k tokens, hidden 2048 (heads 2048 / d), d64 and d128,
causal and not.

  equal lengths (B x L, L in 1k .. 8k): our varlen kernel over the packed
      tokens next to our dense kernel on [B, L, H, D] (the floor: varlen
      within 5 % of dense), FA4's flash_attn_varlen_func and FA2's varlen
      forward (torch.ops.aten._flash_attention_forward, what SDPA calls)
  mixed lengths: 16k tokens in sequences of random lengths 64 .. 4096
      (seeded), the varlen kernels only; FLOPs summed over the sequences

PREV_VARLEN (a bundle folder of an earlier compiler's varlen.mlir) adds its
varlen and dense kernels as ours_varlen_prev and ours_dense_prev, timed in
the same rounds; DYN_VARLEN (varlen.mlir compiled with --dynamic-tiles)
adds ours_varlen_dyn and ours_dense_dyn (dyn_over_static: ours_varlen's
time over ours_varlen_dyn's).

Time: the best of three rounds of triton.testing.do_bench medians,
alternating the implementations, after warming the clocks. TFLOP/s count
4 N^2 D H per sequence (halved under a causal mask); ratio_to_best_peer is
ours (varlen) over the fastest of FA4 and FA2.

Usage: python3 test/Device/bench_varlen.py BUNDLE_DIR CSV_OUT
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_varlen as cv  # noqa: E402
import fa_rt  # noqa: E402
import peers  # noqa: E402
from bench_attention import env_ints, environment  # noqa: E402
from bench_decode import timed, warm_up_clocks, write_csv  # noqa: E402

TOKENS, HIDDEN = 16384, 2048


def find(bundles, op, d, causal):
    for b in bundles:
        c = b.cfg
        if (b.op == op and c["dtype"] == "bf16" and c["head_dim"] == d and c["head_dim_v"] == d
                and bool(c.get("causal")) == causal and c.get("window") is None
                and not c.get("softcap") and c.get("mask_alignment", "top_left") == "top_left"):
            return b
    return None


def mixed_lengths(total, seed=3):
    g = torch.Generator().manual_seed(seed)
    lens = []
    while sum(lens) < total:
        lens.append(int(torch.randint(64, 4097, (1,), generator=g)))
    lens[-1] -= sum(lens) - total
    return [n for n in lens if n > 0]


def calls_for(lens, d, causal, kernels):
    """kernels: suffix -> (varlen bundle, dense bundle or None)."""
    heads = HIDDEN // d
    tq = sum(lens)
    q, k, v = (torch.randn(1, tq, heads, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(1, heads, tq, device="cuda")
    cu = cv.cu(lens)
    calls = {}
    for suffix, (varlen, dense) in kernels.items():
        calls["ours_varlen" + suffix] = fa_rt.launcher(varlen.runtime, {
            "query": cv.cd.rt(q), "key": cv.cd.rt(k), "value": cv.cd.rt(v),
            "output": cv.cd.rt(o), "lse": cv.cd.rt(lse), "cu_seqlens_q": cv.cd.rt(cu),
            "cu_seqlens_k": cv.cd.rt(cu)}, keep=(q, k, v, o, lse, cu))
        if dense is not None and len(set(lens)) == 1:
            b, n = len(lens), lens[0]
            qd, kd, vd = (t.view(b, n, heads, d) for t in (q, k, v))
            od, lsed = torch.empty_like(qd), torch.empty(b, heads, n, device="cuda")
            calls["ours_dense" + suffix] = fa_rt.launcher(dense.runtime, {
                "query": cv.cd.rt(qd), "key": cv.cd.rt(kd), "value": cv.cd.rt(vd),
                "output": cv.cd.rt(od), "lse": cv.cd.rt(lsed)}, keep=(od, lsed))
    qp, kp, vp = (t[0] for t in (q, k, v))
    mx = max(lens)
    try:
        f = peers.fa4_varlen_func()
        calls["fa4"] = lambda: f(qp, kp, vp, cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=mx,
                                 max_seqlen_k=mx, causal=causal)
    except peers.Unavailable as ex:
        print(f"# fa4 unavailable: {ex}")
    calls["fa2"] = lambda: torch.ops.aten._flash_attention_forward(
        qp, kp, vp, cu, cu, mx, mx, 0.0, causal, False)
    return calls


def main(argv):
    print("#", environment())
    folders = {"": argv[1]}
    if os.environ.get("PREV_VARLEN"):
        folders["_prev"] = os.environ["PREV_VARLEN"]
    if os.environ.get("DYN_VARLEN"):
        folders["_dyn"] = os.environ["DYN_VARLEN"]
    loaded = {s: (cv.load_bundles(f, "attention_varlen"), cv.load_bundles(f, "attention_fwd"))
              for s, f in folders.items()}
    warm_up_clocks()
    rows = []
    for d in env_ints("HDIMS", "64,128"):
        for causal in (False, True):
            kernels = {s: (find(v, "attention_varlen", d, causal), find(f, "attention_fwd", d, causal))
                       for s, (v, f) in loaded.items()}
            kernels = {s: k for s, k in kernels.items() if k[0] is not None}
            if "" not in kernels:
                print(f"# no varlen bundle for d{d} causal={causal}")
                continue
            shapes = [(f"{n}", [n] * (TOKENS // n)) for n in env_ints("SEQLENS", "1024,2048,4096,8192")]
            shapes.append(("mixed", mixed_lengths(TOKENS)))
            for label, lens in shapes:
                times = timed(calls_for(lens, d, causal, kernels), f" d{d} {label}")
                flops = sum(peers.flops(1, HIDDEN // d, n, d, causal) for n in lens)
                row = {"head_dim": d, "causal": causal, "lengths": label, "num_seqs": len(lens)}
                for name, t in times.items():
                    row[f"{name}_ms"] = f"{t:.4f}"
                    row[f"{name}_tflops"] = f"{flops / (t * 1e-3) / 1e12:.1f}"
                ours = times.get("ours_varlen")
                if ours and "ours_dense" in times:
                    row["varlen_over_dense"] = f"{times['ours_dense'] / ours:.3f}"
                if ours and "ours_varlen_prev" in times:
                    row["new_over_prev"] = f"{times['ours_varlen_prev'] / ours:.3f}"
                if ours and "ours_varlen_dyn" in times:
                    row["dyn_over_static"] = f"{ours / times['ours_varlen_dyn']:.3f}"
                best = min((times[p] for p in ("fa4", "fa2") if p in times), default=None)
                if ours and best:
                    row["ratio_to_best_peer"] = f"{best / ours:.3f}"
                rows.append(row)
                print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    keys = ["head_dim", "causal", "lengths", "num_seqs"]
    for name in ("ours_varlen", "ours_dense", "ours_varlen_prev", "ours_dense_prev",
                 "ours_varlen_dyn", "ours_dense_dyn", "fa4", "fa2"):
        keys += [f"{name}_ms", f"{name}_tflops"]
    keys += ["varlen_over_dense", "new_over_prev", "dyn_over_static", "ratio_to_best_peer"]
    write_csv(argv[2], keys, rows)


if __name__ == "__main__":
    main(sys.argv)

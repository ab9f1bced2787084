"""Attention sinks (gpt-oss; issue 35 item 5) on sm_90a, forward and
backward, next to FlashAttention-4 (flash_attn.cute.flash_attn_func with its
learnable_sink argument, bf16 sinks as it takes them) and to our own kernel
without sinks, in one process on one GPU.

Rows (bf16, bhsd, 16k total tokens per row, gpt-oss-like GQA 64 query heads
over 8 kv heads at d64; d128 with 16 over 2):
  causal_d64    causal, N 4096 (B 4) and 16384 (B 1)
  window_d64    gpt-oss's sliding-window layers (128 keys back), N 4096
  causal_d128   causal, N 4096
Implementations: ours (sinks), ours_nosinks (the same attention without
sinks: what the sink costs), fa4_sink (learnable_sink), fa4 (no sink),
flex_sink (FlexAttention has no sink argument: torch.compile of
flex_attention with return_lse and the block mask of the row's mask, then
O * sigmoid(LSE - sink), the sink's share taken out; autograd through both).
Backward: ours is the sequence (pre with the dSinks partials, main, post,
dsinks); FA4's is torch.autograd over its forward (the forward's time is
subtracted). TFLOP/s over visible pairs: forward 4 B H D pairs, backward
2.5x that. Time: median of triton.testing.do_bench(warmup=25, rep=100).
Before timing, each peer's O (and FA4's dSinks where it has one) is
compared with ours (max |diff| in the CSV). A peer that cannot run a row is
"unavailable" / "fail ..." -- never a crash.

Usage: python3 test/Device/bench_sinks.py BUNDLE_DIR CSV_OUT
Env: SINKS_QUICK=1 (4k causal_d64 only), SINKS_ROWS (comma list of rows),
PEERS (comma list of fa4, flex), PREV_SINKS (a folder of other builds of the
same configurations, e.g. another compiler's or other flags': its sinks
kernels timed as "ours_prev" in the same process, for an A/B).
"""
import csv
import math
import os
import sys

import torch
from triton.testing import do_bench

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_sinks as cs  # noqa: E402
import fa_rt  # noqa: E402
import gen_sinks_inputs as gs  # noqa: E402
import peers  # noqa: E402

TOKENS = 16384
# row -> (config with sinks, config without, head_dim, heads_q, heads_kv, seqlens)
ROWS = {
    "causal_d64": ("sinks_causal_bf16_d64", "nosinks_causal_bf16_d64", 64, 64, 8,
                   [4096, 16384]),
    "window_d64": ("sinks_window_bf16_d64", "nosinks_window_bf16_d64", 64, 64, 8, [4096]),
    "causal_d128": ("sinks_causal_bf16_d128", "nosinks_causal_bf16_d128", 128, 16, 2,
                    [4096]),
}


def visible_pairs(cfg, n):
    keep = cs.keep_mask(cfg, n, n, "cuda")
    return int(keep.sum())


def inputs(n, d, hq, hkv):
    b = TOKENS // n
    g = torch.Generator(device="cuda").manual_seed(n + d)
    q = torch.randn(b, hq, n, d, device="cuda", generator=g, dtype=torch.bfloat16)
    k, v = (torch.randn(b, hkv, n, d, device="cuda", generator=g, dtype=torch.bfloat16)
            for _ in range(2))
    # bf16-representable sinks, so that FA4 (bf16 sinks) computes the same.
    sinks = (torch.randn(hq, device="cuda", generator=g) + 1.0).bfloat16().float()
    do = torch.randn_like(q)
    return q, k, v, sinks, do


def ours(folder, name, q, k, v, sinks, do):
    """(forward launch, backward launch, outputs) of configuration `name`."""
    paths = cs.bundles(folder, name)
    if set(paths) != {"attention_fwd", "attention_bwd"}:
        raise peers.Unavailable(f"no bundles for {name}")
    cfg = gs.CONFIGS[name]
    o, lse = torch.empty_like(q), torch.empty(q.shape[:3], device="cuda")
    ops = {"query": q, "key": k, "value": v, "output": o, "lse": lse}
    grads = {"grad_query": torch.empty_like(q), "grad_key": torch.empty_like(k),
             "grad_value": torch.empty_like(v)}
    bops = {"grad_output": do, "query": q, "key": k, "value": v, "output": o, "lse": lse,
            **grads}
    if cfg.sinks:
        ops["sinks"] = bops["sinks"] = sinks
        bops["grad_sinks"] = grads["grad_sinks"] = torch.empty_like(sinks)
    fwd_rt = fa_rt.gpu_runtime.RuntimeBundle(paths["attention_fwd"])
    bwd_rt = fa_rt.gpu_runtime.RuntimeBundle(paths["attention_bwd"])
    # The workspace from torch's allocator, as fa_mlir.torch passes it (the
    # runtime zeroes the "init": "zero" buffers on the stream).
    b, hq, n, d = q.shape
    symbols = dict(batch=b, heads_q=hq, heads_kv=k.shape[1], seq_q=n, seq_k=k.shape[2],
                   head_dim=d, head_dim_v=d)
    dtypes = {"f32": torch.float32, "i32": torch.int32}
    for name, (sizes, dtype) in fa_rt.gpu_runtime.workspace_shapes(bwd_rt.workspace,
                                                                   symbols).items():
        bops[name] = torch.empty(sizes, device="cuda", dtype=dtypes[dtype])
    fwd = fa_rt.launcher(fwd_rt, {r: cs.rt(t) for r, t in ops.items()}, keep=(fwd_rt,))
    bwd = fa_rt.launcher(bwd_rt, {r: cs.rt(t) for r, t in bops.items()}, keep=(bwd_rt,))
    fwd()
    bwd()
    torch.cuda.synchronize()
    return fwd, bwd, {"o": o, **grads}


def fa4(cfg, q, k, v, sinks, do, with_sink):
    """FA4's (forward, backward-only time function, outputs)."""
    f = peers.fa4_func()
    qs, ks, vs = (t.transpose(1, 2).contiguous().requires_grad_() for t in (q, k, v))
    kw = {"causal": cfg.causal}
    if cfg.window is not None:
        kw["window_size"] = cfg.window
    sink = sinks.bfloat16().requires_grad_() if with_sink else None
    if with_sink:
        kw["learnable_sink"] = sink
    dos = do.transpose(1, 2).contiguous()

    def forward():
        out = f(qs, ks, vs, **kw)
        return out[0] if isinstance(out, tuple) else out
    out = forward()
    leaves = [qs, ks, vs] + ([sink] if with_sink else [])
    # (A FA4 without a sink gradient gives None for it: allow_unused.)
    got = torch.autograd.grad(out, leaves, dos, retain_graph=True, allow_unused=True)
    outs = {"o": out.detach().transpose(1, 2)}
    if with_sink and got[3] is not None:
        outs["grad_sinks"] = got[3].float()

    def backward():
        torch.autograd.grad(out, leaves, dos, retain_graph=True, allow_unused=True)
    return forward, backward, outs


_flex = {}


def flex_sink(cfg, q, k, v, sinks, do):
    """FlexAttention with a sink as its users write one: the LSE it returns
    rescales O (O * e^LSE / (e^LSE + e^sink)); (forward, backward, outputs)."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    if "compiled" not in _flex:
        def attend(q, k, v, sinks, block_mask):
            o, lse = flex_attention(q, k, v, block_mask=block_mask, return_lse=True,
                                    enable_gqa=True)
            share = torch.sigmoid(lse - sinks[None, :, None])
            return o * share[..., None].to(o.dtype)
        _flex["compiled"] = torch.compile(attend, dynamic=False)
    def keep(b, h, i, j):  # causal and the window [left, right], as ours
        visible = j <= i if cfg.causal else i >= 0
        if cfg.window is not None:
            visible = visible & (i - j <= cfg.window[0]) & (j - i <= cfg.window[1])
        return visible
    b, _, n, _ = q.shape
    block_mask = create_block_mask(keep, b, None, n, n, device="cuda")
    leaves = [t.detach().requires_grad_() for t in (q, k, v, sinks)]

    def forward():
        return _flex["compiled"](*leaves, block_mask)
    out = forward()
    got = torch.autograd.grad(out, leaves, do, retain_graph=True)

    def backward():
        torch.autograd.grad(out, leaves, do, retain_graph=True)
    return forward, backward, {"o": out.detach(), "grad_sinks": got[3].float()}


def main(argv):
    folder, out_csv = argv[1], argv[2]
    quick = os.environ.get("SINKS_QUICK")
    want_peers = os.environ.get("PEERS", "fa4,flex").split(",")
    only = [r for r in os.environ.get("SINKS_ROWS", "").split(",") if r]
    prev = os.environ.get("PREV_SINKS")
    rows = []
    print("TFLOP/s, attention sinks (bf16, 16k tokens; fwd / bwd)")
    for row, (with_s, without_s, d, hq, hkv, seqlens) in ROWS.items():
        if quick and row != "causal_d64" or only and row not in only:
            continue
        cfg = gs.CONFIGS[with_s]
        for n in seqlens[:1] if quick else seqlens:
            q, k, v, sinks, do = inputs(n, d, hq, hkv)
            b = q.shape[0]
            fwd_flops = 4 * b * hq * d * visible_pairs(cfg, n)
            results = {}
            ref = None
            impls = [("ours", lambda: ours(folder, with_s, q, k, v, sinks, do)),
                     ("ours_nosinks", lambda: ours(folder, without_s, q, k, v, sinks, do))]
            if prev:
                impls.append(("ours_prev", lambda: ours(prev, with_s, q, k, v, sinks, do)))
            if "fa4" in want_peers:
                impls += [("fa4_sink", lambda: fa4(cfg, q, k, v, sinks, do, True)),
                          ("fa4", lambda: fa4(cfg, q, k, v, sinks, do, False))]
            if "flex" in want_peers:
                impls.append(("flex_sink", lambda: flex_sink(cfg, q, k, v, sinks, do)))
            for name, make in impls:
                try:
                    fwd, bwd, outs = make()
                    diff = ""
                    if name == "ours":
                        ref = outs
                    elif ref is not None and name != "ours_nosinks" and \
                            name != "fa4":
                        diff = f"{(outs['o'].float() - ref['o'].float()).abs().max().item():.3g}"
                        if "grad_sinks" in outs:
                            rel = ((outs["grad_sinks"] - ref["grad_sinks"]).abs().max() /
                                   ref["grad_sinks"].abs().max().clamp(min=1e-6)).item()
                            diff += f" dsinks_rel {rel:.3g}"
                    t_fwd = do_bench(fwd, warmup=25, rep=100)
                    t_bwd = do_bench(bwd, warmup=25, rep=100)
                    results[name] = (t_fwd, t_bwd, diff)
                except Exception as ex:  # noqa: BLE001
                    status = ("unavailable" if isinstance(ex, peers.Unavailable)
                              else f"fail {type(ex).__name__}: {str(ex)[:100]}")
                    results[name] = (math.nan, math.nan, status)
            for name, (t_fwd, t_bwd, note) in results.items():
                tf = fwd_flops / (t_fwd * 1e-3) / 1e12
                tb = 2.5 * fwd_flops / (t_bwd * 1e-3) / 1e12
                rows.append([row, n, b, hq, hkv, d, name, f"{t_fwd:.4f}", f"{t_bwd:.4f}",
                             f"{tf:.1f}", f"{tb:.1f}", note])
                print(f"{row:12s} N={n:5d} {name:13s} fwd {tf:7.1f} bwd {tb:7.1f}  {note}",
                      flush=True)
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row", "seqlen", "batch", "heads_q", "heads_kv", "head_dim", "impl",
                    "fwd_ms", "bwd_ms", "fwd_tflops", "bwd_tflops", "note"])
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""The ragged-batch backward next to the dense one and FlashAttention-4's
varlen backward, in one process (issue 37 item 4's floor: ours over 8
documents in 16k tokens >= 0.9x our dense backward of the same tokens and
>= FA4's varlen backward). bf16, hidden 2048 (heads 2048 / d), d64 and
d128, causal and not.

  equal: 8 documents of 2048 tokens: our varlen backward (one kernel
      sequence over the packed tokens) next to our dense backward on [8,
      2048, H, D] (bshd, the same kernels without the sequence search) and
      FA4's flash_attn_varlen_func backward
  mixed: 8 documents of seeded random lengths summing to 16384: ours next
      to FA4, and next to the per-document loop of our dense backward (what
      varlen_attention's backward was before)

Ours: the sequence through libfa_runtime with its workspace allocated once
(the runtime zeroes the init:zero buffers on every launch); FA4's: the
autograd backward of its varlen forward output, computed once. Time: the
best of three rounds of triton.testing.do_bench medians, alternating the
implementations. TFLOP/s: 2.5x the forward's 4 N^2 D H per document
(halved under a causal mask); varlen_over_dense is dense time / ours
(the floor: >= 0.9), ratio_to_best_peer FA4 time / ours (>= 1.0).

Usage: python3 test/Device/bench_varlen_backward.py BUNDLE_DIR CSV_OUT
Env: HDIMS (64,128), DOCS (8)
"""
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_backward as cb  # noqa: E402
import check_varlen_backward as cvb  # noqa: E402
import fa_rt  # noqa: E402
import peers  # noqa: E402
from bench_attention import env_ints, environment  # noqa: E402
from bench_decode import timed, warm_up_clocks, write_csv  # noqa: E402

TOKENS, HIDDEN = 16384, 2048


def plain(cfg, d, causal):
    return (cfg["dtype"] == "bf16" and cfg["head_dim"] == d and cfg["head_dim_v"] == d
            and bool(cfg["causal"]) == causal and not cfg.get("window")
            and not cfg.get("softcap") and not cfg.get("deterministic")
            and cfg.get("mask_alignment", "top_left") == "top_left")


def find_varlen(seqs, d, causal):
    return next((s for s in seqs if plain(s.cfg, d, causal)), None)


def find_dense(folder, d, causal):
    """Our dense bshd backward sequence (op attention_bwd) of the same options."""
    for p in sorted(os.listdir(folder)):
        if not p.endswith(".json"):
            continue
        path = os.path.join(folder, p)
        with open(path) as f:
            meta = json.load(f)
        if (meta.get("format") == "fa-kernel-sequence" and meta.get("op") == "attention_bwd"
                and meta["config"]["layout"] == "bshd" and plain(meta["config"], d, causal)):
            return cvb.VarlenSequence(path), meta
    return None, None


def document_lengths(docs, seed=5):
    """`docs` lengths summing to TOKENS, at least 256 each, seeded."""
    g = torch.Generator().manual_seed(seed)
    w = torch.rand(docs, generator=g) + 0.1
    lens = [max(256, int(x)) for x in (w / w.sum() * TOKENS).tolist()]
    lens[0] += TOKENS - sum(lens)
    return lens


def forward_rows(q, k, v, lens, causal):
    """O and LSE of every document (SDPA in float32 per document: the
    backward's inputs only need to be consistent, not ours)."""
    o, lse, q0 = torch.empty_like(q), torch.empty(q.shape[1], q.shape[0], device="cuda"), 0
    for n in lens:
        qs, ks, vs = (t[q0:q0 + n].transpose(0, 1).float() for t in (q, k, v))
        s = (qs @ ks.transpose(-1, -2)) / qs.shape[-1] ** 0.5
        if causal:
            s = s.masked_fill(torch.ones(n, n, device="cuda", dtype=torch.bool).triu(1),
                              float("-inf"))
        lse[:, q0:q0 + n] = torch.logsumexp(s, dim=-1)
        o[q0:q0 + n] = (torch.softmax(s, dim=-1) @ vs).transpose(0, 1).to(q.dtype)
        q0 += n
    return o, lse


def sequence_launcher(seq, tensors, sym):
    ops = seq.operands(tensors, sym)
    return fa_rt.launcher(seq.runtime, {r: cb.rt(t) for r, t in ops.items()},
                          keep=tuple(ops.values()))


def calls_for(lens, d, causal, varlen, dense):
    heads = HIDDEN // d
    tq = sum(lens)
    q, k, v, do = (torch.randn(tq, heads, d, device="cuda", dtype=torch.bfloat16)
                   for _ in range(4))
    o, lse = forward_rows(q, k, v, lens, causal)
    cu = cvb.bounds(lens)
    grads = [torch.empty_like(t) for t in (q, k, v)]
    calls = {}
    sym = dict(batch=1, heads_q=heads, heads_kv=heads, seq_q=tq, seq_k=tq, head_dim=d,
               head_dim_v=d, num_seqs=len(lens))
    calls["ours_varlen"] = sequence_launcher(varlen, dict(
        grad_output=do[None], query=q[None], key=k[None], value=v[None], output=o[None],
        lse=lse[None], grad_query=grads[0][None], grad_key=grads[1][None],
        grad_value=grads[2][None], cu_seqlens_q=cu, cu_seqlens_k=cu), sym)
    if dense is not None:
        def dense_call(starts, n, b):
            sl = slice(starts, starts + n * b)
            view = lambda t: t[sl].view(b, n, heads, d)  # noqa: E731
            dsym = dict(batch=b, heads_q=heads, heads_kv=heads, seq_q=n, seq_k=n,
                        head_dim=d, head_dim_v=d)
            lse_b = lse[:, sl].view(heads, b, n).transpose(0, 1).contiguous()
            return sequence_launcher(dense, dict(
                grad_output=view(do), query=view(q), key=view(k), value=view(v),
                output=view(o), lse=lse_b, grad_query=view(grads[0]),
                grad_key=view(grads[1]), grad_value=view(grads[2])), dsym)
        if len(set(lens)) == 1:
            calls["ours_dense"] = dense_call(0, lens[0], len(lens))
        else:
            starts = [sum(lens[:i]) for i in range(len(lens))]
            loop = [dense_call(s, n, 1) for s, n in zip(starts, lens)]
            calls["ours_dense_loop"] = lambda: [f() for f in loop]
    try:
        f = peers.fa4_varlen_func()
        leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
        mx = max(lens)
        out = f(*leaves, cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=mx, max_seqlen_k=mx,
                causal=causal)
        out = out[0] if isinstance(out, tuple) else out
        calls["fa4"] = lambda: torch.autograd.grad(out, leaves, do, retain_graph=True)
    except peers.Unavailable as ex:
        print(f"# fa4 unavailable: {ex}")
    return calls


def main(argv):
    print("#", environment())
    folder = argv[1]
    seqs = cvb.load_sequences(folder)
    warm_up_clocks()
    rows = []
    docs = env_ints("DOCS", "8")[0]
    for d in env_ints("HDIMS", "64,128"):
        for causal in (False, True):
            varlen = find_varlen(seqs, d, causal)
            dense, _ = find_dense(folder, d, causal)
            if varlen is None:
                print(f"# no varlen backward for d{d} causal={causal}")
                continue
            for label, lens in (("equal", [TOKENS // docs] * docs),
                                ("mixed", document_lengths(docs))):
                times = timed(calls_for(lens, d, causal, varlen, dense), f" d{d} {label}")
                flops = sum(peers.flops(1, HIDDEN // d, n, d, causal, mode="bwd") for n in lens)
                row = {"head_dim": d, "causal": causal, "lengths": label,
                       "docs": "/".join(str(n) for n in lens)}
                for name, t in times.items():
                    row[f"{name}_ms"] = f"{t:.4f}"
                    row[f"{name}_tflops"] = f"{flops / (t * 1e-3) / 1e12:.1f}"
                ours = times.get("ours_varlen")
                dense_t = times.get("ours_dense") or times.get("ours_dense_loop")
                if ours and dense_t:
                    row["varlen_over_dense"] = f"{dense_t / ours:.3f}"
                if ours and "fa4" in times:
                    row["ratio_to_best_peer"] = f"{times['fa4'] / ours:.3f}"
                rows.append(row)
                print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    keys = ["head_dim", "causal", "lengths", "docs"]
    for name in ("ours_varlen", "ours_dense", "ours_dense_loop", "fa4"):
        keys += [f"{name}_ms", f"{name}_tflops"]
    keys += ["varlen_over_dense", "ratio_to_best_peer"]
    write_csv(argv[2], keys, rows)


if __name__ == "__main__":
    main(sys.argv)

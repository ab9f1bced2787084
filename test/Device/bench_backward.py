"""Our sm_90a backward (the kernel sequence of build_backward.sh) next to
FlashAttention-4 (flash-attn-4, when importable), cuDNN and FA2 (SDPA's
backends), in one process, on the peers' shapes (test/Device/peers.py: bf16,
bhsd, 16k total tokens, hidden 2048) and FLOP count (backward 2.5x the
forward's). Each peer is timed on its backward alone: autograd.grad of an
output computed once. Ours: the three kernels through libfa_runtime
(check_backward.Sequence, workspace allocated per call as a user's call
would). Time: median of triton.testing.do_bench (warmup 25 ms, rep 100 ms).

Usage: python3 test/Device/bench_backward.py BUNDLES CSV_OUT
Env: SEQLENS (1024,...,16384), HDIMS (64,128), CAUSAL (0,1), PREV_BACKWARD (a folder of
an earlier compiler's sequences, timed as "ours_prev" in the same process), PEERS
(fa4,cudnn,fa2; empty: none, for an A/B of ours and ours_prev in the other order).
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import check_backward as cb  # noqa: E402
import peers  # noqa: E402
from bench_attention import env_ints, environment, timed  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False


def peer_backward(name, q, k, v, do, causal):
    """A no-argument call running `name`'s backward once, or None."""
    leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    if name == "fa4":
        try:
            f = peers.fa4_func()
        except peers.Unavailable as ex:
            print(f"# fa4 unavailable: {ex}")
            return None
        qs, ks, vs = (t.transpose(1, 2).detach().contiguous().requires_grad_() for t in leaves)
        out = f(qs, ks, vs, causal=causal)
        out = out[0] if isinstance(out, tuple) else out
        g = do.transpose(1, 2).contiguous()
        return lambda: torch.autograd.grad(out, (qs, ks, vs), g, retain_graph=True)
    backend = {"fa2": peers.SDPBackend.FLASH_ATTENTION, "cudnn": peers.SDPBackend.CUDNN_ATTENTION}[name]
    with peers.sdpa_kernel([backend]):
        out = peers.F.scaled_dot_product_attention(*leaves, is_causal=causal)
    return lambda: torch.autograd.grad(out, leaves, do, retain_graph=True)


def ours_backward(seq, q, k, v, do, causal):
    B, H, N, D = q.shape
    o, lse = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal)[:2]
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    sym = dict(batch=B, heads_q=H, heads_kv=H, seq_q=N, seq_k=N, head_dim=D, head_dim_v=D)
    return lambda: seq(do, q, k, v, o, lse, dq, dk, dv, sym)


# PEERS=fa4,cudnn,fa2 (the default), or fewer (empty: ours against ours_prev only, for an
# A/B measured in both orders without timing the peers twice).
PEERS = [n for n in os.environ.get("PEERS", "fa4,cudnn,fa2").split(",") if n]


def main():
    folder, csv_out = sys.argv[1], sys.argv[2]
    torch.zeros(1, device="cuda")
    def load(top):
        out = {}
        for causal in (False, True):
            for D in (64, 128):
                path = os.path.join(top, f"bf16_d{D}_bhsd" + ("_causal" if causal else ""))
                if os.path.isdir(path):
                    out[(causal, D)] = cb.Sequence(path)
        return out
    seqs = load(folder)
    prev = load(os.environ["PREV_BACKWARD"]) if os.environ.get("PREV_BACKWARD") else {}
    header = "impl,dtype,causal,hdim,seqlen,batch,heads,pass,ms,tflops,ratio_to_best_peer,status"
    fh = open(csv_out, "w")
    fh.write(f"# {environment()}; backward, bf16, bhsd, 16k tokens, hidden 2048, FLOPs 2.5 x "
             f"4BHN^2D (halved causal); median do_bench; ours: 3 kernels through libfa_runtime\n"
             f"{header}\n")
    print(header, flush=True)
    table = []
    for causal in (bool(c) for c in env_ints("CAUSAL", "0,1")):
        for D in env_ints("HDIMS", "64,128"):
            for N in env_ints("SEQLENS", "1024,2048,4096,8192,16384"):
                B, H = peers.shape(N, D)
                f = peers.flops(B, H, N, D, causal, mode="bwd")
                q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
                               for _ in range(4))
                res = {}
                calls = [(n, lambda n=n: peer_backward(n, q, k, v, do, causal))
                         for n in PEERS]
                if (causal, D) in prev:
                    calls.insert(0, ("ours_prev", lambda: ours_backward(prev[(causal, D)], q, k, v, do, causal)))
                if (causal, D) in seqs:
                    calls.insert(0, ("ours", lambda: ours_backward(seqs[(causal, D)], q, k, v, do, causal)))
                for name, make in calls:
                    ms, status = timed(name, make)
                    torch.cuda.empty_cache()
                    if ms or status != "ok":
                        res[name] = (ms, status)
                peer_ms = [r[0] for n, r in res.items() if not n.startswith("ours") and r[0]]
                best = min(peer_ms) if peer_ms else None
                for name, (ms, status) in res.items():
                    tf = f / ms / 1e9 if ms else None
                    ratio = f"{best / ms:.3f}" if ms and best and name == "ours" else ""
                    line = (f"{name},bf16,{int(causal)},{D},{N},{B},{H},bwd,"
                            + (f"{ms:.4f},{tf:.1f},{ratio},{status}" if ms else f",,,{status}"))
                    fh.write(line + "\n")
                    fh.flush()
                    print(line, flush=True)
                table.append((causal, D, N, {n: (f / r[0] / 1e9 if r[0] else None) for n, r in res.items()}))
                del q, k, v, do
    fh.close()
    names = ["ours", "ours_prev", "fa4", "cudnn", "fa2"]
    print(f"\nTFLOP/s, bf16 backward (16k tokens, hidden 2048); {environment()}")
    print("| causal | hdim | seqlen | " + " | ".join(names) + " | ours/best peer |")
    print("|" + "---|" * (len(names) + 4))
    for causal, D, N, tf in table:
        cells = " | ".join(f"{tf[n]:.0f}" if tf.get(n) else "-" for n in names)
        best = max([tf[n] for n in names[2:] if tf.get(n)], default=None)
        o = tf.get("ours")
        print(f"| {int(causal)} | {D} | {N} | {cells} | {o / best if o and best else float('nan'):.2f} |")


if __name__ == "__main__":
    main()

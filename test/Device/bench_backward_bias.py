"""The sm_90a backward with a bias (dBias included) next to SDPA's backends
that take a bias with a gradient (cuDNN, memory-efficient) and standard
attention, in one process: bf16, bhsd, non-causal, 16k total tokens,
hidden 2048, a bias [1, H, N, N] ("1H", broadcast over batch: dBias sums
the batch), [B, H, N, N] ("BH") or [1, 1, N, N] ("11": dBias sums B x H
planes, the longest turns of the ordered sum), bf16, requiring grad. Each
peer's backward alone (autograd.grad of an output computed once, dQ, dK, dV
and dBias); ours the kernel sequence through libfa_runtime
(check_backward.Sequence). FLOPs as the
backward without a bias (2.5 x 4BHN^2D): a bias adds bytes (read bias,
write dBias), not FLOPs, so TFLOP/s here says how close the bias path
comes to the plain one. Our plain backward (BUNDLES' bf16_d{64,128}_bhsd,
no bias) is timed at the same shape as "ours_nobias", and every row of ours
gets ratio_to_nobias = its TFLOP/s over that one's (issue 37's floor: >= 0.6).
Median of triton.testing.do_bench.

Usage: python3 test/Device/bench_backward_bias.py BUNDLES CSV_OUT
Env: SEQLENS (4096), HDIMS (64,128), BIASES (1H,BH,11), PREV_BACKWARD (a folder of an earlier
compiler's sequences, build_backward.sh's layout: its bias sequences timed as
"ours_prev" in the same process).
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import bench_backward  # noqa: E402
import check_backward as cb  # noqa: E402
import peers  # noqa: E402
from bench_attention import env_ints, environment, timed  # noqa: E402

# Our bench configurations (gen_backward_inputs.py) by head dim and bias
# shape: per (batch, head) "BH", per head "1H", one for all "11".
FOLDERS = {(d, kind): f"bf16_d{d}_bhsd_bias{kind}bf16" for d in (64, 128)
           for kind in ("BH", "1H", "11")}
# The bias's extents over batch and heads, by kind.
KINDS = {"1H": (False, True), "BH": (True, True), "11": (False, False)}


def bias_of_kind(kind, B, H, N):
    """The bench's ALiBi bias with the extents of `kind` over batch and heads (contiguous)."""
    per_batch, per_head = KINDS[kind]
    bias = peers.alibi_bias(H, N)[:, : H if per_head else 1]
    return bias.expand(B if per_batch else 1, H if per_head else 1, N, N).contiguous()


def peer_backward(name, q, k, v, do, bias):
    leaves = [t.detach().clone().requires_grad_() for t in (q, k, v, bias)]
    if name == "standard":
        s = (leaves[0] @ leaves[1].transpose(-1, -2)) * q.shape[-1] ** -0.5 + leaves[3]
        out = torch.softmax(s.float(), dim=-1).to(q.dtype) @ leaves[2]
    else:
        backend = {"cudnn": peers.SDPBackend.CUDNN_ATTENTION,
                   "efficient": peers.SDPBackend.EFFICIENT_ATTENTION}[name]
        with peers.sdpa_kernel([backend]):
            out = peers.F.scaled_dot_product_attention(*leaves[:3], attn_mask=leaves[3])
    return lambda: torch.autograd.grad(out, leaves, do, retain_graph=True)


def ours_backward(seq, q, k, v, do, bias):
    B, H, N, D = q.shape
    o, lse = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.0, False)[:2]
    dq, dk, dv, dbias = (torch.empty_like(t) for t in (q, k, v, bias))
    sym = dict(batch=B, heads_q=H, heads_kv=H, seq_q=N, seq_k=N, head_dim=D, head_dim_v=D)
    return lambda: seq(do, q, k, v, o, lse, dq, dk, dv, sym, bias, dbias)


def sequence(top, name):
    """The sequence in top/name, or None where that folder is missing."""
    if not top or not os.path.isdir(os.path.join(top, name)):
        return None
    return cb.Sequence(os.path.join(top, name))


def main():
    folder, csv_out = sys.argv[1], sys.argv[2]
    prev_folder = os.environ.get("PREV_BACKWARD")
    torch.zeros(1, device="cuda")
    header = ("impl,dtype,bias,hdim,seqlen,batch,heads,pass,ms,tflops,ratio_to_best_peer,status,"
              "ratio_to_nobias")
    fh = open(csv_out, "w")
    fh.write(f"# {environment()}; backward with a bf16 bias (dBias too), bhsd, non-causal, "
             f"16k tokens, hidden 2048; FLOPs 2.5 x 4BHN^2D\n{header}\n")
    print(header, flush=True)
    for D in env_ints("HDIMS", "64,128"):
        for N in env_ints("SEQLENS", "4096"):
            for tag in os.environ.get("BIASES", "1H,BH,11").split(","):
                B, H = peers.shape(N, D)
                f = peers.flops(B, H, N, D, False, mode="bwd")
                q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
                               for _ in range(4))
                bias = bias_of_kind(tag, B, H, N)
                res = {}
                name = FOLDERS[(D, tag)]
                calls = [("ours", lambda: ours_backward(sequence(folder, name), q, k, v, do, bias))]
                prev = sequence(prev_folder, name)
                if prev:
                    calls.append(("ours_prev", lambda: ours_backward(prev, q, k, v, do, bias)))
                plain = sequence(folder, f"bf16_d{D}_bhsd")
                if plain:
                    calls.append(("ours_nobias", lambda: bench_backward.ours_backward(
                        plain, q, k, v, do, False)))
                calls += [(n, lambda n=n: peer_backward(n, q, k, v, do, bias))
                          for n in ("cudnn", "efficient", "standard")]
                for impl, make in calls:
                    res[impl] = timed(impl, make)
                    torch.cuda.empty_cache()
                ours = ("ours", "ours_prev", "ours_nobias")
                peer_ms = [r[0] for n, r in res.items() if n not in ours and r[0]]
                best = min(peer_ms) if peer_ms else None
                nobias = res.get("ours_nobias", (None,))[0]
                for impl, (ms, status) in res.items():
                    biased = impl in ("ours", "ours_prev")
                    ratio = f"{best / ms:.3f}" if ms and best and biased else ""
                    to_plain = f"{nobias / ms:.3f}" if ms and nobias and biased else ""
                    line = (f"{impl},bf16,{tag},{D},{N},{B},{H},bwd,"
                            + (f"{ms:.4f},{f / ms / 1e9:.1f},{ratio},{status},{to_plain}" if ms
                               else f",,,{status},"))
                    fh.write(line + "\n")
                    fh.flush()
                    print(line, flush=True)
                q = k = v = do = bias = None  # freed before the next shape
    fh.close()


if __name__ == "__main__":
    main()

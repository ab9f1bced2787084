"""Our forward kernel, or a peer's, inside an NVTX range "measure" for ncu:
the forward's counterpart of profile_backward.py (same metric sets and
summary), to put our kernel's issue-stall reasons next to FA4's at one shape.

Usage: python3 test/Device/profile_forward.py BUNDLES causal hdim seqlen [batch heads]
(bf16, bhsd; default batch and heads: the benchmark's, 16k tokens and hidden 2048;
PEER=fa4|cudnn profiles that peer instead of ours), under
  ncu --nvtx --nvtx-include measure/ --clock-control none --csv --metrics METRICS
(METRICS: `profile_backward.py metrics stalls`), then `profile_backward.py summary NCU_CSV`.
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import fa_rt  # noqa: E402
import peers  # noqa: E402
from bench_attention import fa4_forward  # noqa: E402


def forward_call(folder, peer, causal, q, k, v):
    """A no-argument forward of ours (the overlapped kernel of `folder`) or of `peer`."""
    if peer == "fa4":
        fa4 = fa4_forward()
        if fa4 is None:
            sys.exit("profile: fa4 unavailable")
        return lambda: fa4(q, k, v, causal)
    if peer:
        fn = peers.impls(flex=False)[peer]
        return lambda: fn(q, k, v, causal)
    kern = fa_rt.find(fa_rt.load_all(folder), "bf16", q.shape[-1], "bhsd", causal, variant="s2o")
    B, H, N, _ = q.shape
    return kern.launcher(q, k, v, torch.empty_like(q), torch.empty(B, H, N, device="cuda"))


def main():
    folder, causal, D, N = sys.argv[1], bool(int(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4])
    B, H = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) > 6 else peers.shape(N, D)
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    peer = os.environ.get("PEER")
    with torch.no_grad():
        call = forward_call(folder, peer, causal, q, k, v)
        call()  # loads the module, makes FA4's bshd copies, warms the allocator
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("measure")
        call()
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
    print(f"profiled: {peer or 'ours'} forward causal={int(causal)} d{D} N{N} B{B} H{H}")


if __name__ == "__main__":
    main()

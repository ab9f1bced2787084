"""Ring attention on several GPUs (NCCL, bf16): each case's output, dQ, dK
and dV, gathered from every rank, against float64 attention of the whole
sequence with FlashAttention's criterion (our error <= 2x a plain bf16
implementation's + eps), next to the same attention on one GPU
(fa_mlir.torch.attention), whose error is printed beside ours.

Usage (a machine with >= 2 GPUs; FA_MLIR_BUNDLE_PATH holds the sm_90a
bundles: the GPU tests' forward/backward and fa.combine kernels):
    python3 test/Device/check_ring.py [OUT_CSV]
Env: RING_GPUS (default: every GPU, at most 4), RING_SEQ (local tokens per
rank, default 1536: tails against the 128-row tiles).
Prints one line per case and "N passed, M failed"; exit status 1 on a miss.
"""
import math
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.torch.distributed import (ring_attention, shard_sequence,  # noqa: E402
                                       unshard_sequence)

EPS = 2 ** -7  # bf16's FlashAttention-criterion epsilon (fa_mlir.testing)
# (layout, causal, sharding, heads_q, heads_kv, head_dim)
CASES = [("bhsd", False, "contiguous", 8, 8, 128),
         ("bhsd", True, "contiguous", 8, 2, 128),
         ("bhsd", True, "zigzag", 8, 2, 128),
         ("bshd", True, "zigzag", 8, 8, 64),
         ("bshd", False, "zigzag", 4, 1, 64)]


def plain(q, k, v, causal, layout, dtype):
    """Attention in `dtype` (float64: the reference), per head to bound the
    memory of the score matrix; bhsd out."""
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    g = q.shape[1] // k.shape[1]
    q, k, v = (t.to(dtype) for t in (q, k, v))
    outs = []
    for h in range(q.shape[1]):
        s = q[:, h] @ k[:, h // g].transpose(-1, -2) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool,
                                         device=s.device).triu(1),
                              float("-inf"))
        outs.append(torch.softmax(s, -1) @ v[:, h // g])
    out = torch.stack(outs, 1)
    return out if layout == "bhsd" else out.transpose(1, 2)


def grads(fn, inputs, do):
    xs = [t.detach().clone().requires_grad_() for t in inputs]
    out = fn(*xs)
    (out * do.to(out.dtype)).sum().backward()
    return [out.detach()] + [x.grad for x in xs]


def run_case(rank, world, case, seq):
    layout, causal, sharding, hq, hkv, d = case
    dim = 2 if layout == "bhsd" else 1
    total = seq * world
    g = torch.Generator(device="cuda").manual_seed(11)

    def rand(h):
        shape = (1, h, total, d) if layout == "bhsd" else (1, total, h, d)
        return torch.randn(shape, generator=g, device="cuda",
                           dtype=torch.bfloat16)
    q, k, v, do = rand(hq), rand(hkv), rand(hkv), rand(hq)

    def local(t):
        return shard_sequence(t, rank, world, sharding=sharding, dim=dim)
    ring = grads(lambda a, b, c: ring_attention(
        a, b, c, causal=causal, layout=layout, sharding=sharding),
        [local(t) for t in (q, k, v)], local(do))
    gathered = []
    for t in ring:
        parts = [torch.empty_like(t) for _ in range(world)]
        dist.all_gather(parts, t.contiguous())
        gathered.append(unshard_sequence(parts, sharding=sharding, dim=dim))
    if rank != 0:
        return None
    ref = grads(lambda a, b, c: plain(a, b, c, causal, layout, torch.float64),
                (q, k, v), do)
    base = grads(lambda a, b, c: plain(a, b, c, causal, layout,
                                       torch.bfloat16), (q, k, v), do)
    one = grads(lambda a, b, c: fat.attention(a, b, c, causal=causal,
                                              layout=layout), (q, k, v), do)
    rows = []
    for name, ours, r, b, o in zip(("out", "dq", "dk", "dv"), gathered, ref,
                                   base, one):
        err = (ours.double() - r).abs().max().item()
        plain_err = (b.double() - r).abs().max().item()
        one_err = (o.double() - r).abs().max().item()
        rows.append((name, err, plain_err, one_err,
                     err <= 2 * plain_err + EPS))
    return rows


def worker(rank, world, rendezvous, seq, results):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{rendezvous}",
                            rank=rank, world_size=world)
    try:
        for case in CASES:
            rows = run_case(rank, world, case, seq)
            if rank == 0:
                results.append((case, rows))
    finally:
        dist.destroy_process_group()


def main():
    world = min(torch.cuda.device_count(), int(os.environ.get("RING_GPUS",
                                                              "4")))
    if world < 2:
        print(f"check_ring: {torch.cuda.device_count()} GPU(s): needs 2 or "
              "more; skipped")
        return 0
    seq = int(os.environ.get("RING_SEQ", "1536"))
    with mp.Manager() as manager, tempfile.TemporaryDirectory() as tmp:
        results = manager.list()
        mp.spawn(worker, args=(world, os.path.join(tmp, "rdzv"), seq,
                               results), nprocs=world, join=True)
        results = list(results)
    lines, failed = [], 0
    for case, rows in results:
        for name, err, plain_err, one_err, ok in rows:
            failed += not ok
            lines.append(f"{world},{'/'.join(map(str, case))},{name},"
                         f"{err:.3e},{plain_err:.3e},{one_err:.3e},"
                         f"{'ok' if ok else 'MISS'}")
    header = "gpus,case,tensor,ring_err,plain_bf16_err,one_gpu_err,criterion"
    print(header, *lines, sep="\n")
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            print(header, *lines, sep="\n", file=f)
    print(f"{len(lines) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

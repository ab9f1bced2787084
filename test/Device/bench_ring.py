"""Ring attention's scaling from 1 GPU to 2 and 4 (NCCL, bf16, bhsd, d128,
hidden 2048, one sequence of 128k-1M tokens, forward + backward), next to
PyTorch's own context parallelism (torch.distributed.tensor.experimental.
context_parallel around SDPA, its cuDNN/flash backends) on the same shapes
in the same run.

Parallel efficiency at N GPUs = T(1 GPU) / (N * T(N GPUs)), T the slowest
rank's median time of one forward + backward.

Usage: python3 test/Device/bench_ring.py CSV_OUT
Env: RING_GPUS (1,2,4), RING_TOKENS (131072,262144), RING_CAUSAL (0,1),
RING_REPS (5), FA_MLIR_BUNDLE_PATH (our sm_90a bundles).
"""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from fa_mlir.torch.distributed import ring_attention, shard_sequence  # noqa: E402

HEADS, HEAD_DIM = 16, 128


def env_ints(name, default):
    return [int(x) for x in os.environ.get(name, default).split(",") if x]


def flops(tokens, causal):
    """Forward + backward (2.5x the forward's 4 S^2 D H), halved if causal."""
    f = 4 * tokens * tokens * HEAD_DIM * HEADS * 3.5
    return f / 2 if causal else f


def median_ms(step, reps):
    """The slowest rank's median time of `step` (ms), after one warm-up."""
    step()
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        dist.barrier()
        start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        step()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    mine = torch.tensor(sorted(times)[len(times) // 2], device="cuda")
    dist.all_reduce(mine, op=dist.ReduceOp.MAX)
    return mine.item()


def inputs(tokens, world, rank, sharding):
    g = torch.Generator(device="cuda").manual_seed(3)
    full = [torch.randn(1, HEADS, tokens, HEAD_DIM, generator=g,
                        device="cuda", dtype=torch.bfloat16)
            for _ in range(4)]
    return [shard_sequence(t, rank, world, sharding=sharding).contiguous()
            for t in full]


def ours(tokens, world, rank, causal, reps):
    sharding = "zigzag" if causal else "contiguous"
    q, k, v, do = inputs(tokens, world, rank, sharding)
    q, k, v = (t.requires_grad_() for t in (q, k, v))

    def step():
        out = ring_attention(q, k, v, causal=causal, sharding=sharding)
        torch.autograd.backward(out, do)
    return median_ms(step, reps)


def torch_cp(tokens, world, rank, causal, reps):
    """SDPA under context_parallel (it shards the buffers in place, with its
    own load balancing for causal)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.experimental import context_parallel
    mesh = init_device_mesh("cuda", (world,))
    g = torch.Generator(device="cuda").manual_seed(3)
    q, k, v, do = (torch.randn(1, HEADS, tokens, HEAD_DIM, generator=g,
                               device="cuda", dtype=torch.bfloat16)
                   for _ in range(4))
    with context_parallel(mesh, buffers=[q, k, v, do],
                          buffer_seq_dims=[2, 2, 2, 2],
                          no_restore_buffers={q, k, v, do}):
        q, k, v = (t.detach().requires_grad_() for t in (q, k, v))

        def step():
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.autograd.backward(out, do)
        return median_ms(step, reps)


def worker(rank, world, rendezvous, cases, reps, results):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{rendezvous}",
                            rank=rank, world_size=world)
    try:
        for tokens, causal in cases:
            for name, fn in (("ours", ours), ("torch_cp_sdpa", torch_cp)):
                try:
                    ms = fn(tokens, world, rank, causal, reps)
                    status = "ok"
                except Exception as ex:  # noqa: BLE001 - a row of the CSV
                    ms, status = None, f"fail {type(ex).__name__}: " \
                        f"{str(ex).splitlines()[0][:80] if str(ex) else ''}"
                if rank == 0:
                    results.append((name, world, tokens, causal, ms,
                                    status.replace(",", ";")))
                torch.cuda.empty_cache()
    finally:
        dist.destroy_process_group()


def main():
    csv_out = sys.argv[1]
    available = torch.cuda.device_count()
    worlds = [w for w in env_ints("RING_GPUS", "1,2,4") if w <= available]
    cases = [(t, bool(c)) for t in env_ints("RING_TOKENS", "131072,262144")
             for c in env_ints("RING_CAUSAL", "0,1")]
    reps = int(os.environ.get("RING_REPS", "5"))
    rows = []
    with mp.Manager() as manager:
        for world in worlds:
            results = manager.list()
            with tempfile.TemporaryDirectory() as tmp:
                mp.spawn(worker, args=(world, os.path.join(tmp, "rdzv"),
                                       cases, reps, results), nprocs=world,
                         join=True)
            rows += list(results)
    one = {(n, t, c): ms for n, w, t, c, ms, _ in rows if w == 1 and ms}
    with open(csv_out, "w") as f:
        print("# " + " ".join(sys.argv) + f"; GPUs {available}; torch "
              f"{torch.__version__}", file=f)
        print("impl,gpus,tokens,causal,ms,tflops_per_gpu,efficiency,"
              "ours_over_torch_cp,status", file=f)
        best = {(w, t, c): ms for n, w, t, c, ms, _ in rows
                if n == "torch_cp_sdpa" and ms}
        for name, world, tokens, causal, ms, status in rows:
            tf = eff = ratio = ""
            if ms:
                tf = f"{flops(tokens, causal) / world / ms / 1e9:.1f}"
                base = one.get((name, tokens, causal))
                eff = f"{base / (world * ms):.3f}" if base else ""
                peer = best.get((world, tokens, causal))
                ratio = (f"{peer / ms:.3f}" if name == "ours" and peer
                         else "")
            print(f"{name},{world},{tokens},{int(causal)},"
                  f"{'' if ms is None else f'{ms:.2f}'},{tf},{eff},{ratio},"
                  f"{status}", file=f)
    print(open(csv_out).read())


if __name__ == "__main__":
    main()

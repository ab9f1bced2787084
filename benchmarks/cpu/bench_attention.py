"""CPU benchmark: fa-tile-attention vs the reference decomposition vs
PyTorch's CPU scaled_dot_product_attention; time and peak memory.

Every measurement runs in a fresh child process. Peak memory is the growth
of the child's peak resident set during the timed call (Linux: VmHWM reset
through /proc/self/clear_refs once the inputs and outputs exist), so it
counts what the implementation allocates, not its inputs and outputs.

    benchmarks/cpu/setup_venv.sh
    FA_BUILD_DIR=build .venv-bench/bin/python benchmarks/cpu/bench_attention.py

Not a test: numbers depend on the machine and its load.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

IMPLS = {
    # name: (pipeline, extra clang flags)
    "tiled": ("fa-cpu-pipeline{tiled=true openmp=true}",
              ("-L/usr/lib/x86_64-linux-gnu", "-l:libiomp5.so")),
    "tiled-1t": ("fa-cpu-pipeline{tiled=true}", ()),
    "reference": ("fa-cpu-pipeline{tiled=false}", ()),
}
CLANG = ("-O3", "-march=native")


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _measure(call, min_time):
    """(seconds per call, peak bytes beyond the resident set before).

    The peak is taken over the first call: later calls may reuse memory the
    allocator kept from earlier ones, which would hide their footprint.
    """
    _reset_peak()
    before = _status("VmRSS")
    call()
    peak = _status("VmHWM") - before
    runs = []
    while sum(runs) < min_time and len(runs) < 5:
        start = time.perf_counter()
        call()
        runs.append(time.perf_counter() - start)
    return min(runs), peak


def child(impl, direction, seq, heads, head_dim, min_time, causal):
    import numpy as np
    rng = np.random.default_rng(0)
    shape = (1, heads, seq, head_dim)
    q, k, v, do = (rng.standard_normal(shape).astype(np.float32)
                   for _ in range(4))
    if impl == "torch":
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
        tq, tk, tv, tdo = (torch.from_numpy(x) for x in (q, k, v, do))
        if direction == "fwd":
            def call():
                with torch.no_grad():
                    torch.nn.functional.scaled_dot_product_attention(
                        tq, tk, tv, is_causal=causal)
        else:
            tq.requires_grad_(True), tk.requires_grad_(True), tv.requires_grad_(True)
            out = torch.nn.functional.scaled_dot_product_attention(
                tq, tk, tv, is_causal=causal)

            def call():
                tq.grad = tk.grad = tv.grad = None
                out.backward(tdo, retain_graph=True)
        return _measure(call, min_time)

    from fa_mlir.config import AttentionConfig, backward_mlir, forward_mlir
    from fa_mlir.cpu import compile_to_shared_library
    from fa_mlir.memref import CompiledFunction
    pipeline, flags = IMPLS[impl]
    cfg = AttentionConfig(batch=1, heads_q=heads, heads_kv=heads, seq_q=seq,
                          seq_k=seq, head_dim=head_dim, dtype="f32",
                          causal=causal)
    text = forward_mlir(cfg) if direction == "fwd" else backward_mlir(cfg)
    name = "attention" if direction == "fwd" else "attention_grad"
    fn = CompiledFunction(compile_to_shared_library(text, pipeline,
                                                    CLANG + flags), name)
    # np.ones touches every page: outputs are resident before measuring.
    o = np.ones(shape, np.float32)
    lse = np.ones(shape[:3], np.float32)
    if direction == "fwd":
        return _measure(lambda: fn(q, k, v, o, lse), min_time)
    # O and LSE only feed D = rowsum(dO * O) and exp(S - LSE): any finite
    # values time the same.
    grads = [np.ones(shape, np.float32) for _ in range(3)]
    return _measure(lambda: fn(do, q, k, v, o, lse, *grads), min_time)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seqs", default="512,1024,2048,4096,8192,16384")
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--impls", default="tiled,tiled-1t,reference,torch")
    ap.add_argument("--directions", default="fwd,bwd")
    ap.add_argument("--threads", type=int, default=2)
    # The reference materializes heads x seq^2 f32 several times over: cap it.
    ap.add_argument("--reference-max-seq", type=int, default=8192)
    ap.add_argument("--reference-max-seq-bwd", type=int, default=4096)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--child", nargs=3, metavar=("IMPL", "DIR", "SEQ"))
    args = ap.parse_args()
    if args.child:
        impl, direction, seq = args.child
        t, peak = child(impl, direction, int(seq), args.heads, args.head_dim,
                        args.min_time, args.causal)
        print(json.dumps({"time_s": t, "peak_bytes": peak}))
        return

    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    print(f"# f32, batch 1, heads {args.heads}, head_dim {args.head_dim}, "
          f"{'causal' if args.causal else 'non-causal'}; {args.threads} "
          f"threads where the implementation has them")
    print(f"| direction | seq | impl | time (ms) | GFLOP/s | peak extra memory (MiB) |")
    print(f"|---|---:|---|---:|---:|---:|")
    for direction in args.directions.split(","):
        for seq in map(int, args.seqs.split(",")):
            # Causal: the useful work is half (the hidden half is not counted).
            flops = 4.0 * args.heads * seq * seq * args.head_dim / (
                2 if args.causal else 1)
            if direction == "bwd":
                flops *= 2.5  # FlashAttention's convention
            for impl in args.impls.split(","):
                cap = (args.reference_max_seq if direction == "fwd"
                       else args.reference_max_seq_bwd)
                if impl == "reference" and seq > cap:
                    print(f"| {direction} | {seq} | {impl} | skipped (> {cap}: "
                          f"N^2 memory and time) | | |", flush=True)
                    continue
                cmd = [sys.executable, os.path.abspath(__file__), "--child",
                       impl, direction, str(seq), "--heads", str(args.heads),
                       "--head-dim", str(args.head_dim), "--min-time",
                       str(args.min_time)] + (["--causal"] if args.causal else [])
                proc = subprocess.run(cmd, capture_output=True, text=True,
                                      env=env)
                if proc.returncode != 0:
                    err = (proc.stderr.strip().splitlines() or ["?"])[-1]
                    print(f"| {direction} | {seq} | {impl} | failed: {err} | | |",
                          flush=True)
                    continue
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                print(f"| {direction} | {seq} | {impl} | "
                      f"{r['time_s'] * 1e3:.1f} | {flops / r['time_s'] / 1e9:.1f} "
                      f"| {r['peak_bytes'] / 2**20:.1f} |", flush=True)


if __name__ == "__main__":
    main()

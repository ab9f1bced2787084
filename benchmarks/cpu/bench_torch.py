"""The CPU path users get: fa_mlir.torch.attention next to torch's
scaled_dot_product_attention, forward and backward, in one process.

    FA_BUILD_DIR=build .venv/bin/python benchmarks/cpu/bench_torch.py
    # --seqs 512,2048 --dtypes f32 --causal 0,1 --shapes mha,gqa --threads 1,2
    # --directions fwd,bwd --csv results/cpu-torch.csv

Every row: one (shape, dtype, causal, seq, threads, direction); our median
time, SDPA's median time (same tensors, same process, same thread count
through torch.set_num_threads) and the ratio ours / SDPA. The first call of
each kernel configuration (dtype, causal, heads, head dim, direction: the
sequence length is dynamic, one kernel serves all) is timed separately in a
cache directory of its own (FA_MLIR_CACHE is pointed at a fresh temporary
directory unless --keep-cache), so it is the compile a new user waits for;
the CSV gives it in `first_call_s` on the first row of that configuration.

Not a test: the numbers depend on the machine and its load (the load
average is printed with each row).
"""
import argparse
import csv
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

# shape name: (batch, heads_q, heads_kv, head_dim)
SHAPES = {"mha": (1, 2, 2, 64), "gqa": (1, 4, 1, 64)}
DTYPES = {"f32": "float32", "bf16": "bfloat16"}


def _median_time(call, min_time, max_runs, min_runs=3):
    runs = []
    while len(runs) < min_runs or (sum(runs) < min_time and len(runs) < max_runs):
        start = time.perf_counter()
        call()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), len(runs)


def _inputs(torch, shape, seq, dtype):
    b, hq, hkv, d = shape
    g = torch.Generator().manual_seed(seq)
    q = torch.randn(b, hq, seq, d, generator=g).to(dtype)
    k = torch.randn(b, hkv, seq, d, generator=g).to(dtype)
    v = torch.randn(b, hkv, seq, d, generator=g).to(dtype)
    do = torch.randn(b, hq, seq, d, generator=g).to(dtype)
    return q, k, v, do


def _calls(torch, fat, shape, seq, dtype, causal, direction):
    """{impl: zero-argument callable} for one row."""
    F = torch.nn.functional
    q, k, v, do = _inputs(torch, shape, seq, dtype)
    gqa = shape[1] != shape[2]

    def sdpa(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                              enable_gqa=gqa)

    def ours(q, k, v):
        return fat.attention(q, k, v, causal=causal)

    calls = {}
    for name, fn in (("fa_mlir", ours), ("sdpa", sdpa)):
        if direction == "fwd":
            def call(fn=fn):
                with torch.no_grad():
                    fn(q, k, v)
        else:
            leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
            out = fn(*leaves)

            def call(out=out, leaves=leaves):
                for t in leaves:
                    t.grad = None
                out.backward(do, retain_graph=True)
        calls[name] = call
    return calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seqs", default="512,1024,2048,4096,8192,16384")
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--causal", default="0,1")
    ap.add_argument("--shapes", default="mha,gqa")
    ap.add_argument("--threads", default="2,1")
    ap.add_argument("--directions", default="fwd,bwd")
    ap.add_argument("--min-time", type=float, default=1.0,
                    help="time each entry for at least this long (s)")
    ap.add_argument("--max-runs", type=int, default=10)
    # 16k tokens of bf16 or GQA would take minutes per row: cap those.
    ap.add_argument("--max-seq-other", type=int, default=4096,
                    help="longest sequence for shapes other than mha f32")
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs", "bench",
                                                  "cpu-torch.csv"))
    ap.add_argument("--keep-cache", action="store_true",
                    help="use the normal kernel cache (first calls may hit)")
    args = ap.parse_args()
    fresh = None if args.keep_cache else tempfile.mkdtemp(prefix="fa-bench-")
    if fresh:
        os.environ["FA_MLIR_CACHE"] = fresh
    try:
        run(args)
    finally:
        if fresh:
            shutil.rmtree(fresh, ignore_errors=True)


def run(args):
    import torch
    import fa_mlir.torch as fat

    fields = ["shape", "batch", "heads_q", "heads_kv", "head_dim", "dtype",
              "causal", "seq", "threads", "direction", "fa_mlir_ms", "sdpa_ms",
              "ratio", "runs", "first_call_s", "load"]
    rows = []
    compiled = set()
    from fa_mlir import compiler
    print(f"torch {torch.__version__}; {os.cpu_count()} CPUs; "
          f"cache {os.environ.get('FA_MLIR_CACHE', '(default)')}; "
          f"pipeline {compiler.cpu_pipeline()}; flags "
          f"{' '.join(compiler.cpu_flags())}")
    print("| shape | dtype | causal | seq | thr | dir | fa_mlir ms | sdpa ms "
          "| ratio | first call s | load |")
    print("|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for threads in map(int, args.threads.split(",")):
        torch.set_num_threads(threads)
        for direction in args.directions.split(","):
            for shape_name in args.shapes.split(","):
                shape = SHAPES[shape_name]
                for dname in args.dtypes.split(","):
                    dtype = getattr(torch, DTYPES[dname])
                    for causal in (c == "1" for c in args.causal.split(",")):
                        for seq in map(int, args.seqs.split(",")):
                            if (shape_name, dname) != ("mha", "f32") and \
                                    seq > args.max_seq_other:
                                continue
                            calls = _calls(torch, fat, shape, seq, dtype,
                                           causal, direction)
                            kernel = (shape, dname, causal, direction)
                            first = ""
                            # The first call compiles (the backward's
                            # forward was compiled by _calls already).
                            start = time.perf_counter()
                            calls["fa_mlir"]()
                            if kernel not in compiled:
                                first = f"{time.perf_counter() - start:.2f}"
                                compiled.add(kernel)
                            calls["sdpa"]()
                            ours, n = _median_time(calls["fa_mlir"],
                                                   args.min_time, args.max_runs)
                            theirs, _ = _median_time(calls["sdpa"],
                                                     args.min_time, args.max_runs)
                            row = dict(
                                shape=shape_name, batch=shape[0],
                                heads_q=shape[1], heads_kv=shape[2],
                                head_dim=shape[3], dtype=dname,
                                causal=int(causal), seq=seq, threads=threads,
                                direction=direction,
                                fa_mlir_ms=f"{ours * 1e3:.2f}",
                                sdpa_ms=f"{theirs * 1e3:.2f}",
                                ratio=f"{ours / theirs:.2f}", runs=n,
                                first_call_s=first,
                                load=f"{os.getloadavg()[0]:.1f}")
                            rows.append(row)
                            print(f"| {shape_name} | {dname} | {int(causal)} | "
                                  f"{seq} | {threads} | {direction} | "
                                  f"{row['fa_mlir_ms']} | {row['sdpa_ms']} | "
                                  f"{row['ratio']} | {first} | {row['load']} |",
                                  flush=True)
    if args.csv:
        os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {args.csv}")


if __name__ == "__main__":
    main()

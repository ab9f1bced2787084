"""Our sm_90a forward kernel next to the peers (test/Device/peers.py: SDPA's
FlashAttention-2 and cuDNN backends, FlexAttention, standard attention), in
one process, on the peers' shapes and FLOP count: bf16, bhsd, 16k total
tokens, hidden 2048, forward. FlashAttention-4 (flash_attn.cute, from .anchors/
when the round unpacked it) is timed too, on bshd copies of the inputs (its
layout); ratio_to_best_peer is ours over the fastest of FA4, cuDNN and FA2. Our kernel is launched through libfa_runtime
(fa_bundle_launch per call, test/Device/fa_rt.py). Time: median of
triton.testing.do_bench(warmup=25 ms, rep=100 ms), which flushes L2 between
calls. Writes a CSV (TFLOP/s, ratio of ours to FA2, to cuDNN and to the
best peer).

Usage: python3 test/Device/bench_attention.py BUNDLE_DIR CSV_OUT
Env: SEQLENS (512,...,16384), HDIMS (64,128), FLEX_SEQLENS (4096,16384; the
compile per shape costs seconds), BENCH_COMMAND (for the CSV's comment line),
PREV_KERNELS (a bundle folder of an earlier compiler, timed as "ours_prev"),
DYN_KERNELS (the bench configurations compiled with --dynamic-tiles, timed as
"ours_dyn"; its maxdiff_vs_fa2 is its numerics check).
"""
import datetime
import os
import subprocess
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fa_rt  # noqa: E402
import peers  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False


def env_ints(name, default):
    return [int(x) for x in os.environ.get(name, default).split(",") if x]


def environment():
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; GPU {smi}; "
            f"torch {torch.__version__}; cuDNN {torch.backends.cudnn.version()}")


def median_ms(call):
    """The benchmarks' time of `call`: median ms of triton's do_bench (warmup 25
    ms, rep 100 ms; it flushes L2 between calls)."""
    return do_bench(call, warmup=25, rep=100, return_mode="median")


def timed(name, make):
    """(median ms, "ok") of the call `make()` returns, run once and
    synchronised first, by triton's do_bench; (None, "fail ...") when making
    or running it raises (a peer missing or refusing the shape is a row),
    (None, "ok") when `make` returns None (nothing to run)."""
    try:
        call = make()
        if call is None:
            return None, "ok"
        call()
        torch.cuda.synchronize()
        return median_ms(call), "ok"
    except Exception as ex:  # noqa: BLE001 - reported in the CSV
        text = f"{type(ex).__name__}: {str(ex).splitlines()[0][:70]}" if str(ex) \
            else type(ex).__name__
        return None, f"fail {text}".replace(",", ";")


def fa4_forward():
    """FA4's forward as fn(q, k, v, causal) on bhsd inputs, or None when its
    package is not importable here (reported on the CSV's first line). The
    bshd copies are made once per input set, outside the timed call."""
    try:
        f = peers.fa4_func()
    except peers.Unavailable as ex:
        print(f"# fa4 unavailable: {ex}")
        return None
    copies = {}

    def call(q, k, v, causal):
        # The originals are held with their copies, so that their memory
        # (the key) cannot pass to the next shape's inputs meanwhile.
        key = tuple((t.data_ptr(), tuple(t.shape)) for t in (q, k, v))
        if key not in copies:
            copies.clear()
            copies[key] = ((q, k, v), tuple(t.transpose(1, 2).contiguous() for t in (q, k, v)))
        out = f(*copies[key][1], causal=causal)
        return (out[0] if isinstance(out, tuple) else out).transpose(1, 2)
    return call


PEERS = ("fa4", "cudnn", "fa2")


def main():
    directory, csv_out = sys.argv[1], sys.argv[2]
    torch.zeros(1, device="cuda")
    kernels = fa_rt.load_all(directory)
    seqlens = env_ints("SEQLENS", "512,1024,2048,4096,8192,16384")
    hdims = env_ints("HDIMS", "64,128")
    flex_at = set(env_ints("FLEX_SEQLENS", "4096,16384"))
    impls = peers.impls(flex=bool(flex_at))
    fa4 = fa4_forward()
    if fa4 is not None:
        impls = {"fa4": fa4, **impls}
    ours = {"ours": "s2o", "ours_no_overlap": "s2"}
    # PREV_KERNELS: bundles of an earlier compiler (same configurations), timed
    # in the same process as "ours_prev" so a change's effect on speed is
    # measured against itself rather than against another run's numbers.
    prev = fa_rt.load_all(os.environ["PREV_KERNELS"]) if os.environ.get("PREV_KERNELS") else []
    dyn = fa_rt.load_all(os.environ["DYN_KERNELS"]) if os.environ.get("DYN_KERNELS") else []
    header = ("impl,dtype,causal,hdim,seqlen,batch,heads,pass,ms,tflops,"
              "ratio_to_fa2,ratio_to_cudnn,ratio_to_best_peer,maxdiff_vs_fa2,status")
    table = []
    fh = open(csv_out, "w")  # written as it goes: a timeout keeps the rows so far
    fh.write(f"# {environment()}; forward, bf16, bhsd, 16k tokens, hidden 2048, FLOPs 4BHN^2D "
             f"(halved causal); median do_bench; ours through libfa_runtime; command: "
             f"{os.environ.get('BENCH_COMMAND', ' '.join(sys.argv))}\n{header}\n")
    print(header, flush=True)
    for causal in (False, True):
        for D in hdims:
            for N in seqlens:
                B, H = peers.shape(N, D)
                f = peers.flops(B, H, N, D, causal)
                q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
                with torch.no_grad():
                    ref = impls["fa2"](q, k, v, causal).float()
                res = {}
                todo = [(n, fn, None) for n, fn in impls.items() if n != "flex" or N in flex_at]
                mine = [(name, kernels, var) for name, var in ours.items()]
                if prev:
                    mine.append(("ours_prev", prev, "s2o"))
                if dyn:
                    mine.append(("ours_dyn", dyn, "s2o"))
                for name, pool, var in mine:
                    try:
                        kern = fa_rt.find(pool, "bf16", D, "bhsd", causal, variant=var)
                    except KeyError:
                        continue
                    o, lse = torch.empty_like(q), torch.empty(B, H, N, device="cuda")
                    todo.append((name, kern.launcher(q, k, v, o, lse), o))
                for name, fn, out in todo:
                    status, ms, diff = "ok", None, float("nan")
                    try:
                        with torch.no_grad():
                            if out is None:
                                call = (lambda fn=fn: fn(q, k, v, causal))
                                got = call()
                            else:
                                call = fn
                                out.fill_(float("nan"))
                                call()
                                got = out
                            torch.cuda.synchronize()
                            diff = (got.float() - ref).abs().max().item()
                            got = None
                            ms = median_ms(call)
                    except Exception as ex:  # noqa: BLE001 - e.g. standard attention out of memory
                        status = f"fail {type(ex).__name__}: {str(ex).splitlines()[0][:60]}".replace(",", ";")
                    torch.cuda.empty_cache()
                    res[name] = (ms, diff, status)
                best = min((res[p][0] for p in PEERS if res.get(p, (None,))[0]), default=None)
                for name, (ms, diff, status) in res.items():
                    tf = f / ms / 1e9 if ms else None
                    r2 = lambda peer: (f"{res[peer][0] / ms:.3f}" if ms and res.get(peer, (None,))[0] else "")  # noqa: E731
                    rb = f"{best / ms:.3f}" if ms and best and name.startswith("ours") else ""
                    line = (f"{name},bf16,{int(causal)},{D},{N},{B},{H},fwd,"
                            f"{ms:.4f}," if ms else f"{name},bf16,{int(causal)},{D},{N},{B},{H},fwd,,")
                    line += (f"{tf:.1f},{r2('fa2')},{r2('cudnn')},{rb},{diff:.3g},{status}" if ms
                             else f",,,,,{status}")
                    fh.write(line + "\n")
                    fh.flush()
                    print(line, flush=True)
                table.append((causal, D, N, {n: (f / r[0] / 1e9 if r[0] else None) for n, r in res.items()}))
                del q, k, v, ref
    fh.close()
    names = ["ours", "ours_prev", "ours_dyn", "ours_no_overlap", "fa4", "fa2", "cudnn", "flex", "standard"]
    print(f"\nTFLOP/s, bf16 forward (16k tokens, hidden 2048); {environment()}")
    print("| causal | hdim | seqlen | " + " | ".join(names) + " | ours/FA4 | ours/cuDNN | ours/best peer |")
    print("|" + "---|" * (len(names) + 6))
    nan = float("nan")
    for causal, D, N, tf in table:
        cells = " | ".join(f"{tf[n]:.0f}" if tf.get(n) else "-" for n in names)
        o, a, c = tf.get("ours"), tf.get("fa4"), tf.get("cudnn")
        best = max([tf[n] for n in PEERS if tf.get(n)], default=None)
        print(f"| {int(causal)} | {D} | {N} | {cells} | {o / a if o and a else nan:.2f} | "
              f"{o / c if o and c else nan:.2f} | {o / best if o and best else nan:.2f} |")


if __name__ == "__main__":
    main()

"""16-bit forward A/B in one process: the bench configurations
(gen_attention_inputs.py `bench`: bf16 bhsd, d64 and d128, causal or not)
from two or more bundle folders (in each, the configuration's bundle
built with fa-compile's default options, else the overlapped one, else the
only one: fa_rt.find), each shape timed in the order A B ... B A
so that neither folder always runs first (bench_backward.py's 8k
first-position effect: docs/HopperBackward.md). No peers: what a compiler
change gains or costs against the kernels before it.

Per row: ms of each pass (median of triton.testing.do_bench, warmup 25 ms,
rep 100 ms, which flushes L2), TFLOP/s of the two passes' geometric mean,
and `over_a`: that mean over folder A's. Outputs are compared with folder
A's (`maxdiff_vs_a`; the same inputs, so a tile change shows as rounding).

Usage: python3 test/Device/bench_forward_ab.py DIR_A DIR_B [DIR_C ...] CSV_OUT
Env: SEQLENS (512,1024,2048,4096,8192,16384), HDIMS (64,128), CAUSAL (0,1),
BENCH_COMMAND (the CSV's comment).
"""
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fa_rt  # noqa: E402
import peers  # noqa: E402
from bench_attention import env_ints, environment, median_ms  # noqa: E402


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        raise SystemExit(__doc__)
    folders, csv_out = args[:-1], args[-1]
    pools = [fa_rt.load_all(f) for f in folders]
    names = [chr(ord("a") + i) for i in range(len(folders))]
    with open(csv_out, "w") as fh:
        fh.write(f"# {environment()}; forward A/B, bf16, bhsd, 16k tokens, hidden 2048; folders "
                 + " ".join(f"{n}={f}" for n, f in zip(names, folders))
                 + f"; command: {os.environ.get('BENCH_COMMAND', ' '.join(sys.argv))}\n"
                 "impl,causal,hdim,seqlen,batch,heads,ms_first,ms_second,tflops,over_a,"
                 "maxdiff_vs_a\n")
        for causal in [bool(c) for c in env_ints("CAUSAL", "0,1")]:
            for D in env_ints("HDIMS", "64,128"):
                for N in env_ints("SEQLENS", "512,1024,2048,4096,8192,16384"):
                    B, H = peers.shape(N, D)
                    f = peers.flops(B, H, N, D, causal)
                    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
                               for _ in range(3))
                    outs, calls = [], []
                    for pool in pools:
                        kern = fa_rt.find(pool, "bf16", D, "bhsd", causal)
                        o = torch.full_like(q, float("nan"))
                        lse = torch.empty(B, H, N, device="cuda")
                        calls.append(kern.launcher(q, k, v, o, lse))
                        outs.append(o)
                    for call in calls:
                        call()
                    torch.cuda.synchronize()
                    order = list(range(len(calls)))
                    ms = {i: [] for i in order}
                    for i in order + order[::-1]:
                        ms[i].append(median_ms(calls[i]))
                    mean = {i: math.sqrt(ms[i][0] * ms[i][1]) for i in order}
                    for i in order:
                        diff = (outs[i].float() - outs[0].float()).abs().max().item()
                        line = (f"ours_{names[i]},{int(causal)},{D},{N},{B},{H},"
                                f"{ms[i][0]:.4f},{ms[i][1]:.4f},{f / mean[i] / 1e9:.1f},"
                                f"{mean[0] / mean[i]:.3f},{diff:.3g}")
                        fh.write(line + "\n")
                        fh.flush()
                        print(line, flush=True)
                    del q, k, v, outs, calls
                    torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

"""FP8 kernel A/B in one process: the sequences check_fp8_sequences.py
compiles (its KERNELS, dynamic shapes), from one or more bundle folders,
next to cuDNN's FP8 attention, at d128 and 16k tokens, hidden 2048.

What it answers: what a tile-plan change costs or gains (folder A from one
compiler, B, C, ... from others: `ours_b` over `ours_a`), and what per-block
descales cost against the per-tensor kernel of the same mask (KERNELS
pairs of one head dim, layout and mask). The launch alone is timed
(operands prepared once), median of triton.testing.do_bench(warmup=25 ms,
rep=100 ms); inputs N(0, 1), unspread, bhsd, bf16 out.

Usage: python3 test/Device/bench_fp8_ab.py DIR_A [DIR_B ...] CSV_OUT
Env: SEQLENS (4096,8192,16384), BENCH_COMMAND (the CSV's comment).
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_fp8  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
import check_fp8_sequences as cs  # noqa: E402
import fp8_common as fc  # noqa: E402
import peers  # noqa: E402
from bench_attention import env_ints, environment, median_ms  # noqa: E402

D = 128
# KERNELS rows at d128 bhsd with bf16 out: per tensor and per block.
ROWS = [i for i, k in enumerate(cs.KERNELS) if k[0] == D and k[1] == "bhsd" and k[4] == "bf16"]


def warm_median_ms(call):
    """median_ms after one call (loads the module, fills the caches of the launch)."""
    call()
    torch.cuda.synchronize()
    return median_ms(call)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    folders, csv_out = args[:-1], args[-1]
    torch.zeros(1, device="cuda")
    with open(csv_out, "w") as fh:
        fh.write(f"# {environment()}; FP8 forward A/B, d{D}, bhsd, 16k tokens, hidden 2048, "
                 f"bf16 out; median do_bench of the launch; command: "
                 f"{os.environ.get('BENCH_COMMAND', ' '.join(sys.argv))}\n"
                 "impl,kernel,causal,descale_block,seqlen,batch,heads,ms,tflops,"
                 "over_a,over_cudnn\n")
        for N in env_ints("SEQLENS", "4096,8192,16384"):
            B, H = peers.shape(N, D)
            for ki in ROWS:
                k = cs.KERNELS[ki]
                causal, block = k[2], cs.descale_block(k)
                f = peers.flops(B, H, N, D, causal)
                torch.manual_seed(N + ki)
                x = fc.Inputs(B, H, H, N, N, D, "bhsd", False, block=block, spread=False)
                res = {}
                for tag, folder in zip("abcdefgh", folders):
                    try:  # folders B.. may leave a kernel out
                        path = cs.find_sequence(folder, k)
                    except FileNotFoundError:
                        continue
                    launch, _, _ = fc.Sequence(path).launcher(x, torch.bfloat16)
                    res[f"ours_{tag}"] = warm_median_ms(launch)
                if not block:  # cuDNN's FP8 takes per-tensor descales
                    fp8_inputs = fat.FP8Inputs(x.q8, x.k8, x.v8, *x.descales, None)
                    ms, status = bench_fp8.timed(
                        "cudnn_fp8", lambda: bench_fp8.cudnn_fp8(fp8_inputs, causal)[0])
                    if ms is None:  # cudnn-frontend missing or failing: no column
                        print(f"# cudnn_fp8 N={N} {cs.kernel_name(k)}: {status}", flush=True)
                    else:
                        res["cudnn_fp8"] = ms
                base, peer = res["ours_a"], res.get("cudnn_fp8")
                blk = "x".join(map(str, block)) if block else ""
                for name, ms in res.items():
                    line = (f"{name},{cs.kernel_name(k)},{int(causal)},{blk},{N},{B},{H},"
                            f"{ms:.4f},{f / ms / 1e9:.1f},{base / ms:.3f},"
                            + (f"{peer / ms:.3f}" if peer else ""))
                    fh.write(line + "\n")
                    print(line, flush=True)
                del x
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

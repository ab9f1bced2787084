"""Times our sm_90a forward kernels next to PyTorch SDPA's FlashAttention-2
and cuDNN backends, in one process, on the FlashAttention papers' shapes:
16k total tokens, hidden 2048 (heads = 2048 / head_dim), bf16, bhsd.
FLOPs: 4 * B * H * N * N * D forward, halved for causal (as
/work/shared/peers/bench_peers.py counts them).

Usage: python3 test/Device/bench_attention.py [bundle_dir]
Env: SEQLENS (default 1024,2048,4096,8192,16384), HDIMS (64,128), VARIANTS.
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cudrv  # noqa: E402
import fa_bundle  # noqa: E402

TOTAL_TOKENS = int(os.environ.get("TOTAL_TOKENS", 16384))
HIDDEN = 2048


def flops(B, H, N, D, causal):
    f = 4 * B * H * N * N * D
    return f // 2 if causal else f


def sdpa(backend):
    def f(q, k, v, causal):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return f


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else ".devbuild/kernels"
    torch.zeros(1, device="cuda")
    cudrv.init()
    bundles = fa_bundle.load_all(directory)
    seqlens = [int(x) for x in os.environ.get("SEQLENS", "1024,2048,4096,8192,16384").split(",")]
    hdims = [int(x) for x in os.environ.get("HDIMS", "64,128").split(",")]
    variants = os.environ.get("VARIANTS", "m128n128s2o,m128n128s2op,m128n128s2").split(",")
    peers = {"sdpa_flash(FA2)": sdpa(SDPBackend.FLASH_ATTENTION), "sdpa_cudnn": sdpa(SDPBackend.CUDNN_ATTENTION)}
    rows = []
    print("impl,causal,hdim,seqlen,batch,heads,ms,tflops,maxdiff_vs_fa2", flush=True)
    for causal in (False, True):
        for D in hdims:
            for N in seqlens:
                B, H = max(1, TOTAL_TOKENS // N), HIDDEN // D
                q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
                ref = peers["sdpa_flash(FA2)"](q, k, v, causal).float()
                res = {}
                for name, fn in peers.items():
                    try:
                        ms = do_bench(lambda: fn(q, k, v, causal), warmup=25, rep=100, return_mode="median")
                        res[name] = ms
                        print(f"{name},{int(causal)},{D},{N},{B},{H},{ms:.4f},{flops(B, H, N, D, causal) / ms / 1e9:.1f},", flush=True)
                    except Exception as ex:
                        print(f"{name},{int(causal)},{D},{N},{B},{H},,,fail {type(ex).__name__}", flush=True)
                for var in variants:
                    try:
                        bundle = fa_bundle.find(bundles, "bf16", D, "bhsd", causal, tag=var + "_")
                    except KeyError:
                        continue
                    o = torch.empty_like(q)
                    lse = torch.empty(B, H, N, device="cuda")
                    launch = bundle.prepare(q, k, v, o, lse)
                    stream = torch.cuda.current_stream().cuda_stream
                    launch(stream)
                    torch.cuda.synchronize()
                    diff = (o.float() - ref).abs().max().item()
                    ms = do_bench(lambda: launch(stream), warmup=25, rep=100, return_mode="median")
                    res["ours_" + var] = ms
                    print(f"ours_{var},{int(causal)},{D},{N},{B},{H},{ms:.4f},{flops(B, H, N, D, causal) / ms / 1e9:.1f},{diff:.3g}", flush=True)
                rows.append((causal, D, N, B, H, res))
                del q, k, v
    names = ["ours_" + v for v in variants] + list(peers)
    print("\nTFLOP/s (bf16 forward, 16k tokens, hidden 2048)")
    print("| causal | hdim | seqlen | " + " | ".join(names) + " | ours/FA2 | ours/cuDNN |")
    print("|" + "---|" * (len(names) + 5))
    for causal, D, N, B, H, res in rows:
        f = flops(B, H, N, D, causal)
        tf = {n: f / res[n] / 1e9 for n in res}
        best = max((tf[n] for n in tf if n.startswith("ours")), default=float("nan"))
        cells = " | ".join(f"{tf[n]:.0f}" if n in tf else "-" for n in names)
        fa2 = tf.get("sdpa_flash(FA2)", float("nan"))
        cud = tf.get("sdpa_cudnn", float("nan"))
        print(f"| {int(causal)} | {D} | {N} | {cells} | {best / fa2:.2f} | {best / cud:.2f} |")


if __name__ == "__main__":
    main()

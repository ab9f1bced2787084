"""Where fa_mlir.torch.attention's FP8 call spends its time beyond the
launch (bench_fp8.py's ours_api against ours): the CUDA kernels of each
form (torch.profiler, their GPU time per call) and the host time per call
(perf_counter over back-to-back calls, then one synchronize). Between the
launch on operands prepared once and the API call, the launch with one kind
of operand (output, LSE, value_t, the descales) made afresh per call, as
the API makes it: which of them costs the main kernel its time.

Usage: [REVERSE=1] python3 test/Device/profile_fp8_call.py BUNDLE_DIR [N] [causal]
(BUNDLE_DIR: the FP8 bench bundles, .devbuild/fp8; N 16384, d128, 16k
tokens, hidden 2048).
"""
import collections
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_fp8  # noqa: E402
import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
import peers  # noqa: E402

D, CALLS = 128, 20


def host_us(call):
    call()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(CALLS):
        call()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / CALLS * 1e6, (time.perf_counter() - t0) / CALLS * 1e6


def kernels(call):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            call()
        torch.cuda.synchronize()
    per = collections.defaultdict(float)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            per[e.name[:70]] += e.device_time_total / CALLS
    return per


def launch_with_fresh(x, causal, fresh):
    """The FP8 bundle's launch on operands prepared once, but for `fresh`
    (output, lse, value_t or the three descales), allocated anew per call
    (torch's caching allocator, as fa_mlir.torch.attention does)."""
    from fa_mlir.torch import _convert, fp8
    bundle, tensors, sizes = bench_fp8.ours_operands(x, causal)
    stream = torch.cuda.current_stream().cuda_stream
    roles = fp8.DESCALES if fresh == "descales" else (fresh,)

    def call():
        ops = dict(tensors)
        if fresh == "descales":
            ops.update(zip(fp8.DESCALES, fp8.descale_operands(
                x[3:6], sizes["batch"], sizes["heads_kv"])))
        else:
            ops[fresh] = torch.empty_like(tensors[fresh])
        bundle.launch({r: _convert.runtime_tensor(t) for r, t in ops.items()}, stream)
        return {r: ops[r] for r in roles}
    return call


def main():
    fa_mlir.add_bundle_dir(sys.argv[1])
    N = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    causal = len(sys.argv) > 3 and sys.argv[3] == "causal"
    B, H = peers.shape(N, D)
    q, k, v = (torch.randn(B, H, N, D, device="cuda") for _ in range(3))
    x = fat.quantize_fp8(q, k, v)
    launch, _ = bench_fp8.ours_launch(x, causal)
    forms = {"launch": launch}
    # The launch with one kind of operand made afresh per call, as the API
    # makes it: which one costs the main kernel its time.
    for fresh in ("output", "lse", "value_t", "descales"):
        forms[f"launch, fresh {fresh}"] = launch_with_fresh(x, causal, fresh)
    forms["api"] = bench_fp8.ours_api(x, causal)
    if os.environ.get("REVERSE"):  # the other order: the first form runs on a cooler GPU
        forms = dict(reversed(list(forms.items())))
    for name, call in forms.items():
        enqueue, total = host_us(call)
        print(f"{name}: host {enqueue:.1f} us per call to enqueue, {total:.1f} us per call "
              f"with the GPU (B{B} H{H} N{N} d{D} causal={int(causal)})")
        for kernel, us in sorted(kernels(call).items(), key=lambda kv: -kv[1]):
            print(f"    {us:9.1f} us  {kernel}")


if __name__ == "__main__":
    main()

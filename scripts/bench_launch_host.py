"""Host (CPU) time of one launch through fa_mlir.torch, without a GPU
(issue 37, item 5: "host overhead per call measured and cut").

  runtime   libfa_runtime's fa_bundle_check on packed operands: the
            planning a launch does before its driver calls (operand checks,
            workspace, grids, parameters of every kernel of the sequence).
            repeat: one shape again and again (the plan cache serves it);
            new: another shape every call (every call plans in full).
  python    fa_mlir.torch's own work per call: _ops.backward_impl and
            run_forward on CPU tensors posing as sm_90a ones (the target
            patched), up to the ctypes call, which does nothing ("python")
            or runs fa_bundle_check ("python+runtime").
  api       the public call end to end, the launch doing nothing:
            fa_mlir.torch.attention on inputs that require grad (the
            autograd Function's forward) and, for the backward,
            torch.autograd.grad through it minus the forward's time
            (autograd's engine, the Function's backward, backward_impl).

Shapes: the small GPT of test/Device/bench_train_gpt.py (bf16, bhsd, batch
8, 8 heads, 1024 tokens, head dim 64, causal). Prints CPU microseconds per
call (time.process_time over ITERS calls: the machine may be loaded, so
wall time is not used). Not a test: nothing here is asserted.

Usage: FA_BUILD_DIR=build python scripts/bench_launch_host.py [ITERS]
(MALLOC_MMAP_THRESHOLD_=33554432 keeps glibc from mapping and faulting in
each 8 MiB CPU tensor afresh, a cost torch's CUDA caching allocator does
not have.)
Bundles come from FA_MLIR_BUNDLE_PATH, the cache, or are compiled (fa-opt,
fa-compile in FA_BUILD_DIR).
"""
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import torch  # noqa: E402

from fa_mlir.gpu_runtime import pack  # noqa: E402
from fa_mlir.registry import get_bundle  # noqa: E402
from fa_mlir.torch import _ops  # noqa: E402

B, H, S, D = 8, 8, 1024, 64
OPTIONS = (True, None, -1, -1, None, "", "bhsd")  # causal, ..., layout


def cpu_us(fn, iters):
    fn()  # the first call plans, compiles, fills the memos
    start = time.process_time()
    for _ in range(iters):
        fn()
    return (time.process_time() - start) / iters * 1e6


def inputs(seq=S):
    q, k, v, out, grad = (torch.empty(B, H, seq, D, dtype=torch.bfloat16)
                          for _ in range(5))
    lse = torch.empty(B, H, seq, dtype=torch.float32)
    return q, k, v, out, grad, lse


def bundles():
    q = inputs()[0]
    return {op: get_bundle(_ops.kernel_config(op, q, q, q, None, *OPTIONS),
                           "sm_90a") for op in ("forward", "backward")}


def operands(op, seq, base=1 << 40):
    """{role: (address, dtype, sizes, strides)} of a launch, addresses
    1 GiB apart (the workspace is the runtime's to allocate)."""
    roles = ["query", "key", "value", "output", "lse"]
    if op == "backward":
        roles += ["grad_output", "grad_query", "grad_key", "grad_value"]
    out = {}
    for i, role in enumerate(roles):
        shape = (B, H, seq) if role == "lse" else (B, H, seq, D)
        strides = tuple(int(x) for x in torch.empty(shape, device="meta")
                        .stride())
        out[role] = (base + (i << 30), "f32" if role == "lse" else "bf16",
                     shape, strides)
    return out


def runtime_check(bundle):
    """fa_bundle_check of a packed array on `bundle`, as a callable."""
    rt = bundle.runtime
    grid = (ctypes.c_uint32 * 3)()

    def check(arr, stream=None):
        rc = rt.lib.fa_bundle_check(rt._handle, arr, len(arr), 132, grid)
        if rc:
            raise RuntimeError(rt.lib.fa_last_error().decode())
    return check


def bench_runtime(op, bundle, iters):
    check = runtime_check(bundle)
    same = pack(operands(op, S))
    repeat = cpu_us(lambda: check(same), iters)
    shapes = [pack(operands(op, 64 * (i + 1))) for i in range(80)]
    calls = iter(range(1 << 62))
    new = cpu_us(lambda: check(shapes[next(calls) % len(shapes)]), iters)
    return repeat, new


def bench_python(op, bundle, iters, launch):
    q, k, v, out, grad, lse = inputs()
    bundle.launch_packed = launch
    if op == "forward":
        def call():
            _ops.run_forward(q, k, v, None, *OPTIONS)
    else:
        def call():
            _ops.backward_impl(grad, q, k, v, out, lse, None, *OPTIONS)
    return cpu_us(call, iters)


def bench_api(iters, bundles):
    """CPU us of attention() with autograd, and of its backward."""
    import fa_mlir.torch as fat
    q, k, v, _, grad, _ = inputs()
    for t in (q, k, v):
        t.requires_grad_()
    for bundle in bundles.values():
        bundle.launch_packed = lambda arr, stream=None: None
    fwd = cpu_us(lambda: fat.attention(q, k, v, causal=True), iters)
    both = cpu_us(lambda: torch.autograd.grad(
        fat.attention(q, k, v, causal=True), (q, k, v), grad), iters)
    return fwd, both - fwd


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    found = bundles()
    _ops._target = lambda t: "sm_90a"
    _ops._launch = lambda b, tensors, device: _ops._launch_cuda(b, tensors, 0)
    _ops.prefetch_backward = lambda *args: None  # CPU tensors: no compile
    print(f"CPU us per call, {iters} calls (bf16 bhsd B{B} H{H} S{S} D{D} "
          "causal)")
    print(f"{'op':9s} {'runtime':>8s} {'runtime':>8s} {'python':>8s} "
          f"{'python+':>8s}")
    print(f"{'':9s} {'repeat':>8s} {'new':>8s} {'':>8s} {'runtime':>8s}")
    for op, bundle in found.items():
        repeat, new = bench_runtime(op, bundle, iters)
        py = bench_python(op, bundle, iters, lambda arr, stream=None: None)
        both = bench_python(op, bundle, iters, runtime_check(bundle))
        print(f"{op:9s} {repeat:8.1f} {new:8.1f} {py:8.1f} {both:8.1f}")
    api = bench_api(iters, found)
    print(f"api (attention with autograd): forward {api[0]:.1f}, backward "
          f"{api[1]:.1f}")


if __name__ == "__main__":
    main()

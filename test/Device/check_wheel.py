"""Run by test/Device/check_wheel.sh on the GPU machine, inside the venv the
wheel was installed into: fa_mlir.torch.attention's forward and backward on
CUDA from the AOT bundles, with no compiler (FA_BUILD_DIR points nowhere),
against float64. FlashAttention's criterion: our error at most twice that
of PyTorch's own bf16 attention (SDPA), plus a small absolute slack."""
import os
import sys

import torch
import torch.nn.functional as F

import fa_mlir
import fa_mlir.torch as fat

venv = sys.argv[1]
assert fa_mlir.__file__.startswith(os.path.realpath(venv)) or \
    fa_mlir.__file__.startswith(venv), fa_mlir.__file__
print(f"fa_mlir {fa_mlir.__version__} from {os.path.dirname(fa_mlir.__file__)}")


def inputs(seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shapes = [(2, 8, 512, 64), (2, 2, 512, 64), (2, 2, 512, 64)]
    return [torch.randn(s, device="cuda", generator=g, dtype=torch.float32)
            .to(torch.bfloat16).requires_grad_() for s in shapes]


def run(fn, q, k, v, dout):
    out = fn(q, k, v)
    grads = torch.autograd.grad(out, (q, k, v), dout)
    return [out.detach().double()] + [g.double() for g in grads]


def sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                          enable_gqa=True)


q, k, v = inputs()
dout = torch.randn_like(q)
ours = run(lambda *a: fat.attention(*a, causal=True), q, k, v, dout)
plain = run(sdpa, q, k, v, dout)
exact = run(sdpa, *[t.detach().double().requires_grad_() for t in (q, k, v)],
            dout.double())
failed = 0
for name, o, p, e in zip(("out", "dq", "dk", "dv"), ours, plain, exact):
    err, bound = (o - e).abs().max().item(), (p - e).abs().max().item()
    ok = err <= 2 * bound + 1e-5
    failed += not ok
    print(f"{name}: ours {err:.3g}, SDPA bf16 {bound:.3g} "
          f"{'ok' if ok else 'FAIL'}")
print("wheel on cuda: " + ("ok" if not failed else f"{failed} FAILED"))
sys.exit(1 if failed else 0)

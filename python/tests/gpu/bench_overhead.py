"""Host cost of one fa_mlir.torch.attention call on the GPU (a tiny shape, so
the kernel time is negligible): python -m ... on the device, prints µs/call."""
import time

import torch

import fa_mlir.torch as fat

q = torch.randn(1, 1, 1, 64, device="cuda", dtype=torch.bfloat16)
for _ in range(20):
    fat.attention(q, q, q)
torch.cuda.synchronize()
n = 2000
t = time.perf_counter()
for _ in range(n):
    fat.attention(q, q, q)
torch.cuda.synchronize()
print(f"fa_mlir.torch.attention: {(time.perf_counter() - t) / n * 1e6:.1f} us/call")
t = time.perf_counter()
for _ in range(n):
    torch.nn.functional.scaled_dot_product_attention(q, q, q)
torch.cuda.synchronize()
print(f"torch SDPA:              {(time.perf_counter() - t) / n * 1e6:.1f} us/call")

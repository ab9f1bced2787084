# fa-fp8-quantize's f32 -> f8E4M3FN rounding, value by value: with one key,
# attention returns that key's (dequantized) value row, and with amax 448
# the scale is 1, so the output is exactly decode(encode(v)). Checked
# against torch's float8_e4m3fn conversion (round to nearest even) on every
# code, every midpoint between neighbouring codes (ties: to even), the
# floats just beside each midpoint, subnormals and their ties, and random
# values, of both signs.
# RUN: %python %s | FileCheck %s
# CHECK: values, 0 failed
import numpy as np
import torch

from fa_mlir.config import AttentionConfig, forward_mlir
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.memref import CompiledFunction

codes = torch.arange(0x7F, dtype=torch.uint8).view(torch.float8_e4m3fn)
values = codes.float().numpy().astype(np.float32)  # 0 .. 448, increasing
mid = ((values[:-1].astype(np.float64) + values[1:]) / 2).astype(np.float32)
rng = np.random.default_rng(0)
v = np.concatenate([values, mid, np.nextafter(mid, np.float32(0)),
                    np.nextafter(mid, np.float32(np.inf)),
                    rng.uniform(0, 448, 600).astype(np.float32),
                    rng.uniform(0, 2.0 ** -6, 200).astype(np.float32)])
v = np.concatenate([v, -v]).astype(np.float32)
assert np.abs(v).max() == 448  # so the per-tensor scale is exactly 1

cfg = AttentionConfig(seq_q=1, seq_k=1, head_dim=8, head_dim_v=v.size,
                      return_lse=False)
fn = CompiledFunction(compile_to_shared_library(
    forward_mlir(cfg), "fa-fp8-quantize,fa-cpu-pipeline{tiled=true}"),
    "attention")
out = np.zeros(cfg.shape("output"), np.float32)
zeros = np.zeros(cfg.shape("query"), np.float32)
fn(zeros, zeros, v.reshape(cfg.shape("value")), out)

want = torch.from_numpy(v).to(torch.float8_e4m3fn).float().numpy()
bad = np.flatnonzero(out.ravel() != want)
for i in bad[:10]:
    print(f"FAIL {v[i]!r}: got {out.ravel()[i]!r}, expected {want[i]!r}")
print(f"{v.size} values, {len(bad)} failed")

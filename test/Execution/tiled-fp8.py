# FP8 (f8E4M3FN) inputs with descales through fa-tile-attention on the CPU:
# the tiles are decoded to f32 and multiplied by their descale on
# conversion, per tensor or per (batch, kv head). Compared with the float64
# reference on the dequantized values (FlashAttention's criterion against a
# plain f32 implementation of the same values, for outputs f32 and bf16),
# also with split-KV.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import numpy as np

from fa_mlir.config import AttentionConfig
from fa_mlir.cpu import compile_to_shared_library
from fa_mlir.dtypes import from_storage
from fa_mlir.memref import CompiledFunction
from fa_mlir import reference

PIPELINE = "fa-cpu-pipeline{tiled=true}"


def e4m3fn_values():
    """The value of each of the 256 f8E4M3FN codes (NaN for 0x7F, 0xFF)."""
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp = (codes >> 3) & 0xF
    man = codes & 0x7
    value = np.where(exp == 0, man / 8.0 * 2.0 ** -6,
                     (1 + man / 8.0) * 2.0 ** (exp - 7.0))
    value = sign * value
    value[(codes & 0x7F) == 0x7F] = np.nan
    return value


VALUES = e4m3fn_values()


def random_codes(rng, shape):
    """Codes of values in about [-4, 4], no NaN."""
    codes = rng.integers(0, 256, size=shape)
    mag = np.abs(VALUES[codes])
    bad = ~np.isfinite(mag) | (mag > 4)
    codes[bad] = rng.integers(0, 0x48, size=int(bad.sum()))
    return codes.astype(np.uint8)


def mlir(cfg, per_head, out_elem):
    t = lambda role, elem, kind="tensor": cfg.type_of(role, elem, kind)
    desc_shape = f"{cfg.batch}x{cfg.heads_kv}x" if per_head else ""
    d = lambda kind: f"{kind}<{desc_shape}f32>"
    dpt = lambda kind: f"{kind}<f32>"
    args = [("q", t("query", "f8E4M3FN", "memref")),
            ("k", t("key", "f8E4M3FN", "memref")),
            ("v", t("value", "f8E4M3FN", "memref")),
            ("dq", dpt("memref")), ("dk", d("memref")), ("dv", dpt("memref")),
            ("o", t("output", out_elem, "memref")),
            ("lse", t("lse", "f32", "memref"))]
    tensor = {"q": t("query", "f8E4M3FN"), "k": t("key", "f8E4M3FN"),
              "v": t("value", "f8E4M3FN"), "dq": dpt("tensor"),
              "dk": d("tensor"), "dv": dpt("tensor"),
              "o": t("output", out_elem), "lse": t("lse", "f32")}
    params = ", ".join(f"%{n}: {ty}" for n, ty in args)
    body = "".join(f"  %{n}_t = bufferization.to_tensor %{n} restrict : "
                   f"{ty} to {tensor[n]}\n" for n, ty in args[:6])
    body += (f"  %o_r, %lse_r = fa.attention %q_t, %k_t, %v_t : {tensor['q']}, "
             f"{tensor['k']}, {tensor['v']} descale(%dq_t, %dk_t, %dv_t : "
             f"{tensor['dq']}, {tensor['dk']}, {tensor['dv']}) "
             f"{cfg.attributes()} -> {tensor['o']}, {tensor['lse']}\n")
    for n in ("o", "lse"):
        body += (f"  bufferization.materialize_in_destination %{n}_r in "
                 f"restrict writable %{n} : ({tensor[n]}, {dict(args)[n]}) -> ()\n")
    return (f"func.func @attention({params}) attributes "
            f"{{llvm.emit_c_interface}} {{\n{body}  return\n}}\n")


failed = 0
CASES = [
    ("per-tensor causal gqa f32-out", dict(heads_q=4, heads_kv=2, causal=True),
     False, "f32"),
    ("per-head window bf16-out", dict(heads_q=2, heads_kv=2, window=(40, 8)),
     True, "bf16"),
    ("per-head bshd f16-out", dict(heads_q=2, heads_kv=1, layout="bshd",
                                   seq_q=70, seq_k=130), True, "f16"),
    # Split-KV: the V descale is applied to each split's partial output.
    ("per-head split-kv decode bf16-out",
     dict(heads_q=4, heads_kv=2, seq_q=3, seq_k=300, causal=True,
          mask_alignment="bottom_right", num_splits=3), True, "bf16"),
]
for name, overrides, per_head, out_elem in CASES:
    cfg = AttentionConfig(**{**dict(batch=2, seq_q=150, seq_k=150,
                                    head_dim=32, dtype="f32"), **overrides})
    rng = np.random.default_rng(len(name))
    codes = {r: random_codes(rng, cfg.shape(r)) for r in ("query", "key", "value")}
    dq = np.array(rng.uniform(0.5, 2.0), np.float32)
    dk = (rng.uniform(0.5, 2.0, (cfg.batch, cfg.heads_kv)) if per_head
          else np.array(rng.uniform(0.5, 2.0))).astype(np.float32)
    dv = np.array(rng.uniform(0.5, 2.0), np.float32)

    def logical(role, scale):
        x = VALUES[codes[role]]
        if cfg.layout == "bshd":
            x = x.transpose(0, 2, 1, 3)
        s = np.asarray(scale, np.float64)
        return x * (s[:, :, None, None] if s.ndim == 2 else s)

    q, k, v = logical("query", dq), logical("key", dk), logical("value", dv)
    ref_o, ref_lse = reference.forward(cfg, q, k, v)
    base_o = reference.forward_lowp(cfg, q, k, v, dtype=out_elem)

    fn = CompiledFunction(compile_to_shared_library(
        mlir(cfg, per_head, out_elem), PIPELINE), "attention")
    storage = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[out_elem]
    o = np.zeros(cfg.shape("output"), storage)
    lse = np.zeros(cfg.shape("lse"), np.float32)
    fn(codes["query"], codes["key"], codes["value"], dq, dk, dv, o, lse)
    o = from_storage(o, out_elem).astype(np.float64)
    if cfg.layout == "bshd":
        o = o.transpose(0, 2, 1, 3)
    err = reference.max_error(o, ref_o)
    base = reference.max_error(base_o, ref_o)
    lse_err = reference.max_error(lse, ref_lse)
    ok = err <= 2 * base + 1e-5 and lse_err < 1e-4 * max(1, np.abs(ref_lse).max())
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} fp8 {name}: err {err:.3g} baseline "
          f"{base:.3g} lse_err {lse_err:.3g}")

print(f"{failed} failed")

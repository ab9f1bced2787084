"""The sm_90a FP8 forward (fa_fwd_f8e4m3fn_*) on the GPU, through
libfa_runtime, against float64 attention on the dequantized inputs.

  gen           one fa.attention per kernel configuration (KERNELS), MLIR on
                stdout, for fa-compile (scripts/device-round.sh prepare)
  run DIR       every case of CASES on the sequences in DIR; exit 1 on a miss

The criterion is FlashAttention's, for FP8: our error (max and mean abs
against float64 on the dequantized inputs) at most twice that of a plain
low-precision implementation of the same quantized computation (fp32 S and
softmax, P rounded to e4m3 after scaling by 2^8 as the kernel does, fp32 P V,
then the output type), plus 1e-3 of slack for outputs of ~1e-2. LSE within
2e-3 (natural log) of float64; rows that see no key give O = 0, LSE = -inf.
"""
import json
import math
import os
import sys

# (head dim, layout, causal, alignment, out dtype[, descale_block]): one
# kernel each; with descale_block every descale is per block.
KERNELS = [
    (64, "bhsd", False, None, "bf16"),
    (64, "bhsd", True, "top_left", "bf16"),
    (128, "bhsd", False, None, "bf16"),
    (128, "bhsd", True, "top_left", "bf16"),
    (128, "bshd", True, "bottom_right", "f16"),
    (256, "bhsd", False, None, "bf16"),
    (256, "bhsd", True, "top_left", "bf16"),
    # Per block: 192-key tiles in 192-key blocks; 128-key tiles at d128;
    # d64's three consumers under a causal mask (slabs that start before
    # row 0); d256 bshd bottom-right in 256-key blocks.
    (128, "bhsd", True, "top_left", "bf16", (128, 192)),
    (128, "bhsd", False, None, "bf16", (64, 128)),
    (64, "bhsd", True, "top_left", "bf16", (128, 128)),
    (256, "bshd", True, "bottom_right", "f16", (96, 256)),
]

# (kernel index, B, Hq, Hkv, Sq, Sk, per-(batch, kv head) descales)
CASES = [
    (0, 2, 4, 4, 256, 256, False),
    (0, 1, 8, 2, 1000, 1000, True),
    (1, 2, 4, 2, 77, 77, False),
    (1, 1, 4, 4, 1024, 1024, True),
    (2, 2, 8, 2, 1000, 1000, False),
    (2, 1, 4, 4, 130, 513, True),
    (2, 1, 2, 2, 4096, 4096, False),
    (3, 2, 8, 2, 1000, 1000, True),
    (3, 1, 4, 4, 2048, 2048, False),
    (4, 2, 8, 2, 300, 200, True),    # bottom-right: the first 100 rows see no key
    (4, 1, 4, 1, 129, 1031, False),
    (5, 1, 4, 2, 1000, 1000, True),
    (5, 2, 2, 2, 64, 300, False),
    (6, 1, 4, 4, 1000, 1000, False),
    (6, 1, 2, 1, 2048, 2048, True),
    (7, 2, 8, 2, 1000, 1000, False),
    (7, 1, 4, 4, 2100, 2100, False),
    (8, 2, 4, 2, 777, 1500, False),
    (8, 1, 2, 2, 4096, 4096, False),
    (9, 2, 4, 2, 77, 77, False),
    (9, 1, 8, 8, 1000, 1000, False),
    (10, 2, 8, 2, 300, 200, False),  # bottom-right: the first 100 rows see no key
    (10, 1, 4, 1, 1000, 1000, False),
]


def descale_block(k):
    return k[5] if len(k) > 5 else None


def kernel_name(k):
    d, layout, causal, align, out = k[:5]
    n = f"fa_fwd_f8e4m3fn_d{d}_{layout}"
    if causal:
        n += "_causal_br" if align == "bottom_right" else "_causal"
    n += f"_o{out}"
    if descale_block(k):
        n += "_dblk{}x{}".format(*descale_block(k))
    return n + "_lse"


def gen():
    for i, k in enumerate(KERNELS):
        d, layout, causal, align, out = k[:5]
        t = f"tensor<?x?x?x{d}xf8E4M3FN>"
        to = f"tensor<?x?x?x{d}x{out}>"
        s = "tensor<?x?x?xf32>" if descale_block(k) else "tensor<f32>"
        attrs = [f"layout = #fa<layout {layout}>"]
        if causal:
            attrs += ["causal", f"mask_alignment = #fa<mask_alignment {align}>"]
        if descale_block(k):
            attrs.append("descale_block = array<i64: {}, {}>".format(*descale_block(k)))
        print(f"func.func @fp8_{i}(%q: {t}, %k: {t}, %v: {t}, %dq: {s}, %dk: {s}, %dv: {s}) "
              f"-> ({to}, tensor<?x?x?xf32>) {{\n"
              f"  %o, %lse = fa.attention %q, %k, %v : {t}, {t}, {t} descale(%dq, %dk, %dv : "
              f"{s}, {s}, {s}) {{{', '.join(attrs)}}} -> {to}, tensor<?x?x?xf32>\n"
              f"  return %o, %lse : {to}, tensor<?x?x?xf32>\n}}\n")


def find_sequence(folder, k):
    prefix = kernel_name(k) + "_m"
    for f in sorted(os.listdir(folder)):
        if f.startswith(prefix) and f.endswith(".json"):
            with open(os.path.join(folder, f)) as fh:
                if json.load(fh).get("format") == "fa-kernel-sequence":
                    return os.path.join(folder, f)
    raise FileNotFoundError(f"{folder}: no sequence {prefix}*")


def run_dir(folder):
    import torch
    import fp8_common as fc

    misses = 0
    for ki, B, Hq, Hkv, Sq, Sk, per_head in CASES:
        d, layout, causal, align, out = KERNELS[ki][:5]
        block = descale_block(KERNELS[ki])
        seq = fc.Sequence(find_sequence(folder, KERNELS[ki]))
        torch.manual_seed(1000 + ki * 31 + Sq)
        x = fc.Inputs(B, Hq, Hkv, Sq, Sk, d, layout, per_head, block=block)
        o, lse = seq(x, getattr(torch, {"bf16": "bfloat16", "f16": "float16"}[out]))
        torch.cuda.synchronize()
        keep = fc.visible(Sq, Sk, causal, align, x.q8.device)
        ref_o, ref_lse = fc.reference(x, causal, align)
        base_o = fc.plain_fp8(x, causal, align, o.dtype)
        err = fc.errors(fc.bhsd(o, layout).double(), ref_o)
        base = fc.errors(fc.bhsd(base_o, layout).double(), ref_o)
        hidden = ~keep.any(dim=1)  # [Sq]
        finite = torch.isfinite(ref_lse)
        lse_err = (lse[..., ~hidden] - ref_lse[..., ~hidden]).abs().max().item() if (~hidden).any() else 0.0
        hidden_ok = bool((lse[..., hidden] == -math.inf).all() and
                         (fc.bhsd(o, layout)[:, :, hidden] == 0).all()) if hidden.any() else True
        ok = (err[0] <= 2 * base[0] + 1e-3 and err[1] <= 2 * base[1] + 1e-4 and lse_err < 2e-3
              and hidden_ok and bool(torch.isfinite(o).all()) and bool(finite[..., ~hidden].all()))
        misses += not ok
        form = ("per block {}x{}".format(*block) if block
                else "per-head" if per_head else "per-tensor")
        print(f"{'ok  ' if ok else 'MISS'} {os.path.basename(seq.path)} B{B} H{Hq}/{Hkv} "
              f"Sq{Sq} Sk{Sk} {form}: max {err[0]:.2e} "
              f"(plain {base[0]:.2e}) mean {err[1]:.2e} (plain {base[1]:.2e}) lse {lse_err:.1e}"
              f"{' hidden rows ok' if hidden.any() and hidden_ok else ''}", flush=True)
    print(f"fp8 check: {len(CASES) - misses}/{len(CASES)} passed")
    return 1 if misses else 0


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    mode = sys.argv[1] if len(sys.argv) > 1 else "gen"
    if mode == "gen":
        gen()
        return 0
    if mode == "run":
        return run_dir(sys.argv[2])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main())

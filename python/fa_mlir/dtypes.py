"""Element types: MLIR names, numpy storage, and rounding to low precision."""
import numpy as np

# MLIR element type -> numpy dtype used to hold its bits.
STORAGE = {
    "f32": np.float32,
    "f16": np.float16,
    "bf16": np.uint16,
    "f8E4M3FN": np.uint8,
}


def round_bf16(x):
    """Rounds float values to the nearest bf16 (ties to even); float32 out."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    bits = bits.astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


def round_to(x, dtype):
    """Values of `x` after rounding to `dtype`, as float32 (float64 for f64)."""
    if dtype == "f32":
        return np.asarray(x, dtype=np.float32)
    if dtype == "f16":
        return np.asarray(x, dtype=np.float16).astype(np.float32)
    if dtype == "bf16":
        return round_bf16(np.asarray(x, dtype=np.float32))
    if dtype == "f64":
        return np.asarray(x, dtype=np.float64)
    raise ValueError(f"no rounding for {dtype}")


def to_storage(x, dtype):
    """Encodes float values as the bits `dtype` stores (after rounding)."""
    if dtype == "bf16":
        return (round_bf16(x).view(np.uint32) >> 16).astype(np.uint16)
    if dtype in ("f32", "f16"):
        return np.ascontiguousarray(x, dtype=STORAGE[dtype])
    raise ValueError(f"cannot encode {dtype}")


def from_storage(x, dtype):
    """Decodes stored bits of `dtype` into float64 values."""
    if dtype == "bf16":
        return (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dtype in ("f32", "f16"):
        return x.astype(np.float64)
    raise ValueError(f"cannot decode {dtype}")

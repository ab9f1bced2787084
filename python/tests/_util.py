"""Helpers of the CPU tests: inputs, encoding and FlashAttention's criterion."""
import numpy as np

from fa_mlir import reference
from fa_mlir.dtypes import from_storage, to_storage
from fa_mlir.testing import EPSILON, random_inputs  # noqa: F401


def to_layout(x, layout):
    return x if layout == "bhsd" else np.ascontiguousarray(x.transpose(0, 2, 1, 3))


def encode(x, dtype, layout=None):
    if layout is not None:
        x = to_layout(x, layout)
    return to_storage(x, dtype)


def decode(x, dtype, layout=None):
    y = from_storage(x, dtype)
    return y if layout is None else to_layout(y, layout)


def within_criterion(ours, ref, baseline, dtype):
    """ours - ref <= 2 * (baseline - ref) + eps (FlashAttention's criterion)."""
    err = reference.max_error(ours, ref)
    base = reference.max_error(baseline, ref)
    return err <= 2 * base + EPSILON[dtype], (err, base)

"""Inputs of the frontend corpus (test/Frontends/corpus), reproducible from a
few numbers.

The weights of a corpus model are function arguments of its IR; committing
them would make the corpus megabytes of random numbers. Instead each weight
is described by (seed, scale, offset) in the corpus manifest and computed
here with a counter-based hash (splitmix64), which gives the same bits with
any numpy on any machine: the generator feeds these values to PyTorch, the
tests feed the same values to the compiled IR.
"""
import json
import os

import numpy as np

from fa_mlir import dtypes

CORPUS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "Frontends", "corpus")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _splitmix64(seed, n):
    """n pseudo-random uint64s: splitmix64 of the counters seed*n.. (wrapping
    uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        z = (np.arange(n, dtype=np.uint64) +
             np.uint64(seed) * np.uint64(0x100000000)) * _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def uniform(seed, shape, scale=1.0, offset=0.0):
    """float64 values offset + scale * U(-sqrt(3), sqrt(3)) (unit variance
    before scaling)."""
    n = int(np.prod(shape, dtype=np.int64))
    u = (_splitmix64(seed, n) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return (offset + scale * np.sqrt(3.0) * (2.0 * u - 1.0)).reshape(shape)


def manifest():
    with open(os.path.join(CORPUS_DIR, "manifest.json")) as f:
        return json.load(f)


def argument_values(spec, saved):
    """float64 (or integer / boolean) values of one argument: a hashed weight
    or an array saved in the model's .npz (`saved`)."""
    if "saved" in spec:
        return saved[spec["saved"]]
    return uniform(spec["seed"], spec["shape"], spec["scale"], spec["offset"])


def argument_storage(spec, saved):
    """The argument as the compiled function takes it (bf16 as its bits)."""
    x = argument_values(spec, saved)
    elt = spec["dtype"]
    if elt in ("i64", "i32", "i1"):
        return np.ascontiguousarray(x)
    return dtypes.to_storage(x, elt)

"""Argument checks of the inference API (varlen_attention,
attention_with_kvcache): every bad input raises ArgumentError naming the
tensor and what was expected.

Checks of a tensor's values (cu_seqlens, cache_seqlens, block_table) read
it back to the host: free for CPU tensors, a device->host sync for CUDA
ones, which would stall every call and make it impossible to capture in a
CUDA graph. So on CUDA they run only with FA_MLIR_DEBUG_CHECKS=1; without
it the kernels trust the values, as FlashAttention's do (an out-of-range
page or length reads or writes out of bounds there). Every check of
types, dtypes, devices and shapes always runs.
"""
import os

import torch

from ..arguments import is_int
from ..errors import ArgumentError
from ..gpu_runtime import self_overlap
from . import _convert


def tensor(where, name, t, rank, dtype=None, device=None):
    """`t` is a torch.Tensor of `rank`, with `dtype` and on `device` when
    given."""
    if not isinstance(t, torch.Tensor):
        raise ArgumentError(f"{where}: {name} must be a torch.Tensor, got "
                            f"{type(t).__name__}")
    if t.dim() != rank:
        raise ArgumentError(f"{where}: {name} must have rank {rank}, got "
                            f"shape {tuple(t.shape)}")
    if dtype is not None and t.dtype != dtype:
        raise ArgumentError(f"{where}: {name} has dtype {t.dtype}, expected "
                            f"{dtype}")
    if device is not None and t.device != device:
        raise ArgumentError(f"{where}: {name} is on {t.device}, expected "
                            f"{device} (the device of q)")
    return t


def query(where, q, rank):
    """q's dtype is one the kernels take and its device is the CPU or CUDA
    (where the sm_90a kernels check the rest)."""
    tensor(where, "q", q, rank)
    _convert.fa_dtype(q, "q", where)
    if q.device.type not in ("cpu", "cuda"):
        raise ArgumentError(f"{where}: tensors on {q.device.type} are not "
                            "supported (cpu or cuda)")


def same_dims(where, name, t, dims, expected, expected_name):
    """t.shape[d] == expected.shape[d] for each d in dims."""
    for d in dims:
        if t.shape[d] != expected.shape[d]:
            raise ArgumentError(
                f"{where}: {name} dimension {d} is {t.shape[d]}, expected "
                f"{expected.shape[d]} (from {expected_name})")


def heads(where, hq, hkv, kv_name):
    if hkv == 0 or hq % hkv:
        raise ArgumentError(
            f"{where}: q has {hq} heads, not a multiple of {kv_name}'s {hkv} "
            "(grouped-query attention needs heads_q % heads_kv == 0)")


DEBUG_CHECKS = "FA_MLIR_DEBUG_CHECKS"


def reads_values(t):
    """Whether the checks may read `t`'s values: CPU tensors always, CUDA
    ones (a sync) only with FA_MLIR_DEBUG_CHECKS=1."""
    return t.device.type == "cpu" or os.environ.get(DEBUG_CHECKS, "") not in (
        "", "0")


def cu_seqlens(where, name, cu, total, max_seqlen, device):
    """cu: int32 [B+1], starting at 0, non-decreasing, ending at `total`,
    with every length <= max_seqlen. Returns the lengths as a list, or None
    where the values are not read (reads_values)."""
    tensor(where, name, cu, 1, torch.int32, device)
    if cu.shape[0] < 1:
        raise ArgumentError(f"{where}: {name} must have B+1 >= 1 entries")
    if not reads_values(cu):
        return None
    values = cu.tolist()
    if values[0] != 0:
        raise ArgumentError(f"{where}: {name}[0] must be 0, got {values[0]}")
    lengths = [b - a for a, b in zip(values, values[1:])]
    for i, n in enumerate(lengths):
        if n < 0:
            raise ArgumentError(
                f"{where}: {name} must be non-decreasing; {name}[{i + 1}] = "
                f"{values[i + 1]} < {name}[{i}] = {values[i]}")
        if n > max_seqlen:
            raise ArgumentError(
                f"{where}: sequence {i} of {name} has length {n}, more than "
                f"max_seqlen ({max_seqlen})")
    if values[-1] != total:
        raise ArgumentError(f"{where}: {name}[-1] is {values[-1]}, expected "
                            f"{total} (the tokens of the packed tensor)")
    return lengths


def per_sequence(where, name, t, rank, batch, device, rows):
    """An int32 tensor of `rank` with one row (its first dim) per sequence."""
    tensor(where, name, t, rank, torch.int32, device)
    if t.shape[0] != batch:
        raise ArgumentError(f"{where}: {name} has {t.shape[0]} {rows}, "
                            f"expected {batch} (the batch of q)")


def cache_lengths(where, cache_seqlens, batch, device):
    """cache_seqlens: int32 [B] of values >= 0 (an int means all equal).
    Returns (the int32 [B] tensor on `device`, its values as a list, or
    None where they are not read: reads_values)."""
    if is_int(cache_seqlens):
        cache_seqlens = int(cache_seqlens)
        if cache_seqlens < 0:
            raise ArgumentError(f"{where}: cache_seqlens is {cache_seqlens}, "
                                "must be >= 0")
        # Lengths of a few billion keys fit no cache: refused below, once
        # the capacity is known (the int32 tensor would overflow first).
        values = [cache_seqlens] * batch
        cache_seqlens = torch.full((batch,), min(cache_seqlens, 2**31 - 1),
                                   dtype=torch.int32, device=device)
        return cache_seqlens, values
    per_sequence(where, "cache_seqlens", cache_seqlens, 1, batch, device,
                 "entries")
    if not reads_values(cache_seqlens):
        return cache_seqlens, None
    values = cache_seqlens.tolist()
    for i, n in enumerate(values):
        if n < 0:
            raise ArgumentError(f"{where}: cache_seqlens[{i}] is {n}, must "
                                "be >= 0")
    return cache_seqlens, values


def own_memory(where, name, cache):
    """A cache an append writes into must not place two of its slots at
    one address (an expanded tensor, stride 0): one new key would land in
    several sequences' slots."""
    if self_overlap(cache.shape, cache.stride()):
        raise ArgumentError(
            f"{where}: {name} is appended into, but its strides "
            f"{cache.stride()} (shape {tuple(cache.shape)}) place several "
            "slots at one address (an expanded tensor?); pass a cache with "
            "memory of its own")


def in_place(where, name, cache):
    """A cache the CUDA append writes into must be passed as it is: into a
    contiguous copy the write would be lost."""
    if not cache.is_contiguous():
        raise ArgumentError(
            f"{where}: {name} must be contiguous to append into it on CUDA "
            f"(shape {tuple(cache.shape)}, strides {cache.stride()}): the "
            "kernel writes the new keys and values into the cache in place, "
            "and into a contiguous copy the write would be lost; pass a "
            "contiguous cache, or append yourself and call without k/v")


def block_table(where, table, batch, num_pages, lengths, page_size, device):
    """table: int32 [B, max_pages]; the pages that hold a sequence's
    lengths[b] keys lie in [0, num_pages) (not read where lengths is None
    or reads_values says no)."""
    per_sequence(where, "block_table", table, 2, batch, device, "rows")
    if lengths is None:
        return
    for b, n in enumerate(lengths):
        used = -(-n // page_size)
        if used > table.shape[1]:
            raise ArgumentError(
                f"{where}: sequence {b} needs {used} pages for {n} keys, "
                f"block_table has {table.shape[1]} per sequence")
    if not reads_values(table):
        return
    rows = table.tolist()
    for b, n in enumerate(lengths):
        used = -(-n // page_size)
        for j, page in enumerate(rows[b][:used]):
            if not 0 <= page < num_pages:
                raise ArgumentError(
                    f"{where}: block_table[{b}, {j}] is {page}, outside the "
                    f"cache's {num_pages} pages")

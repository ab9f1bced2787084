"""Laying a whole sequence out over the ranks, and back: the layouts
ring_attention takes (see _plan for why zigzag)."""
import torch

from ...arguments import check_int
from ...errors import ArgumentError
from . import _plan

WHERE = "fa_mlir.torch.distributed.shard_sequence"


def shard_sequence(x, rank, world_size, *, sharding="contiguous", dim=2):
    """Rank `rank`'s chunk of `x` along `dim` (2 for bhsd tensors, 1 for
    bshd, 2 for an LSE [B, H, S]): chunk `rank` of `world_size` equal
    chunks ("contiguous"), or chunks rank and 2W-1-rank of 2W, concatenated
    ("zigzag"). A view for "contiguous", a new tensor for "zigzag"."""
    world_size = check_int(WHERE, "world_size", world_size, 1)
    rank = check_int(WHERE, "rank", rank, 0, world_size - 1)
    total = _length(x, world_size, sharding, dim)
    pieces = [x.narrow(dim, a, b - a) for a, b in
              _plan.chunk_bounds(rank, world_size, total, sharding)]
    return pieces[0] if len(pieces) == 1 else torch.cat(pieces, dim)


def unshard_sequence(chunks, *, sharding="contiguous", dim=2):
    """The whole sequence from every rank's chunk (`chunks[r]` from rank
    r), the inverse of shard_sequence."""
    world = len(chunks)
    if world == 0:
        raise ArgumentError(f"{WHERE}: unshard_sequence needs the chunks of "
                            "at least one rank")
    if sharding == "contiguous":
        return torch.cat(list(chunks), dim)
    _length(chunks[0], 1, sharding, dim)  # checks sharding and evenness
    half = chunks[0].shape[dim] // 2
    fronts = [c.narrow(dim, 0, half) for c in chunks]
    backs = [c.narrow(dim, half, half) for c in reversed(chunks)]
    return torch.cat(fronts + backs, dim)


def _length(x, world, sharding, dim):
    """x's length along dim, checked to divide into the layout's chunks."""
    if not isinstance(x, torch.Tensor):
        raise ArgumentError(f"{WHERE}: expected a torch.Tensor, got "
                            f"{type(x).__name__}")
    problem = _plan.unknown_sharding(WHERE, sharding)
    if problem:
        raise ArgumentError(problem)
    if not -x.dim() <= dim < x.dim():
        raise ArgumentError(f"{WHERE}: dim {dim} is out of range for a "
                            f"tensor of rank {x.dim()}")
    total = x.shape[dim]
    pieces = _plan.chunks_per_sequence(world, sharding)
    if total % pieces:
        raise ArgumentError(
            f"{WHERE}: a sequence of {total} along dim {dim} does not split "
            f"into {pieces} equal chunks ({sharding} over {world} ranks)")
    return total

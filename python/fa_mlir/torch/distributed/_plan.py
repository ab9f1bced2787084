"""Which keys each query of a rank sees at each step of the ring, for the
two ways of laying a sequence over the ranks of a group.

- "contiguous": rank r holds chunk r of the sequence (W equal chunks).
- "zigzag": the sequence is cut into 2W chunks and rank r holds chunks r and
  2W-1-r, in that order. Under a causal mask every rank then has the same
  amount of work at every step (with "contiguous", rank r sees r + 1 of the
  W key chunks and the last rank works W times as long as the first).

At step s rank r holds the keys of rank (r - s) mod W. Both layouts keep a
rank's positions increasing, so the global causal mask restricted to one
rank's queries and one rank's keys is always one of: nothing, everything,
top-left causal over equal lengths (the rank's own keys), or, for zigzag,
everything for half of the queries or half of the keys. Each step is thus
one ordinary fa.attention call on whole tensors or halves of them.
"""
from typing import NamedTuple

SHARDINGS = ("contiguous", "zigzag")


class Block(NamedTuple):
    """One step's attention: queries rows [q_start, q_start + q_len) of the
    local chunk against keys rows [k_start, k_start + k_len) of the chunk
    that arrived, causal (top-left) or not."""
    q_start: int
    q_len: int
    k_start: int
    k_len: int
    causal: bool

    def q_rows(self, dim):
        """(dim, start, length) of the queries, as Tensor.narrow takes it."""
        return dim, self.q_start, self.q_len

    def k_rows(self, dim):
        """(dim, start, length) of the keys, as Tensor.narrow takes it."""
        return dim, self.k_start, self.k_len


def step_source(rank, step, world):
    """The rank whose keys `rank` holds at `step`."""
    return (rank - step) % world


def block(rank, source, seq_q, seq_k, causal, sharding):
    """The Block of `rank`'s queries against `source`'s keys, or None where
    the mask hides all of them. seq_q, seq_k: the local chunk lengths."""
    if not causal:
        return Block(0, seq_q, 0, seq_k, False)
    if source == rank:
        return Block(0, seq_q, 0, seq_k, True)
    if sharding == "contiguous":
        return Block(0, seq_q, 0, seq_k, False) if source < rank else None
    half_q, half_k = seq_q // 2, seq_k // 2
    if source < rank:  # both query halves see the source's front half
        return Block(0, seq_q, 0, half_k, False)
    return Block(half_q, seq_q - half_q, 0, seq_k, False)  # back half sees all


def positions(rank, world, seq, sharding):
    """The global positions of `rank`'s `seq` local tokens."""
    total = seq * world
    return [p for a, b in chunk_bounds(rank, world, total, sharding)
            for p in range(a, b)]


def unknown_sharding(where, sharding):
    """The message for a sharding that is not one of SHARDINGS, or None."""
    if sharding not in SHARDINGS:
        return f"{where}: sharding must be one of {SHARDINGS}, got {sharding!r}"
    return None


def check_sharding(where, sharding, causal, seq_q, seq_k):
    """The errors a layout's chunk lengths can have, as a message, or None."""
    problem = unknown_sharding(where, sharding)
    if problem:
        return problem
    if causal and seq_q != seq_k:
        return (f"{where}: causal ring attention needs equal local query and "
                f"key lengths (chunks of one sequence), got seq_q {seq_q} and "
                f"seq_k {seq_k}")
    if sharding == "zigzag" and (seq_q % 2 or seq_k % 2):
        return (f"{where}: sharding 'zigzag' holds two equal chunks per rank, "
                f"so the local sequence lengths must be even, got seq_q "
                f"{seq_q} and seq_k {seq_k}")
    return None


def chunk_bounds(rank, world, total, sharding):
    """[(start, stop)] of the global rows `rank` holds of a `total`-row
    sequence (which must divide into chunks_per_sequence equal chunks)."""
    n = total // chunks_per_sequence(world, sharding)
    ids = [rank] if sharding == "contiguous" else [rank, 2 * world - 1 - rank]
    return [(c * n, (c + 1) * n) for c in ids]


def chunks_per_sequence(world, sharding):
    return world * (2 if sharding == "zigzag" else 1)


"""fa_mlir.torch.distributed.ring_attention on CPU processes with gloo:
the ring's plan against the global mask, the layouts, and 2 and 4 ranks
running the compiled kernels, output, LSE, dQ, dK and dV against one
process's float64 attention with FlashAttention's criterion."""
import math

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import fa_mlir.torch as fat  # noqa: E402
from fa_mlir.errors import ArgumentError  # noqa: E402
from fa_mlir.testing import EPSILON  # noqa: E402
from fa_mlir.torch.distributed import (SHARDINGS, ring_attention,  # noqa: E402
                                       shard_sequence, unshard_sequence)
from fa_mlir.torch.distributed import _plan  # noqa: E402

pytestmark = pytest.mark.skipif(not dist.is_available(),
                                reason="torch.distributed is not built in")


# -- the plan ------------------------------------------------------------------
def covered_pairs(world, seq, causal, sharding):
    """How often each (query, key) pair of the global sequence is attended
    over all ranks and steps of the plan."""
    total = world * seq
    seen = torch.zeros(total, total, dtype=torch.int64)
    pos = [_plan.positions(r, world, seq, sharding) for r in range(world)]
    for rank in range(world):
        for step in range(world):
            src = _plan.step_source(rank, step, world)
            blk = _plan.block(rank, src, seq, seq, causal, sharding)
            if blk is None:
                continue
            for i in range(blk.q_start, blk.q_start + blk.q_len):
                for j in range(blk.k_len):
                    if not (blk.causal and j > i - blk.q_start):
                        seen[pos[rank][i], pos[src][blk.k_start + j]] += 1
    return seen


@pytest.mark.parametrize("world", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("sharding", SHARDINGS)
@pytest.mark.parametrize("causal", [False, True])
def test_plan_attends_each_visible_pair_once(world, sharding, causal):
    seq = 6
    seen = covered_pairs(world, seq, causal, sharding)
    want = torch.ones_like(seen)
    if causal:
        want = want.tril()
    assert torch.equal(seen, want)


@pytest.mark.parametrize("world", [2, 3, 4, 8])
def test_zigzag_gives_every_rank_equal_causal_work(world):
    seq = 8
    for step in range(1, world):
        work = set()
        for rank in range(world):
            blk = _plan.block(rank, _plan.step_source(rank, step, world), seq,
                              seq, True, "zigzag")
            work.add(blk.q_len * blk.k_len)
        assert work == {seq * seq // 2}


@pytest.mark.parametrize("sharding", SHARDINGS)
def test_shard_and_unshard_are_inverse(sharding):
    x = torch.arange(2 * 3 * 24 * 5).reshape(2, 3, 24, 5)
    chunks = [shard_sequence(x, r, 4, sharding=sharding) for r in range(4)]
    assert all(c.shape == (2, 3, 6, 5) for c in chunks)
    assert torch.equal(unshard_sequence(chunks, sharding=sharding), x)
    pos = _plan.positions(1, 4, 6, sharding)
    assert torch.equal(chunks[1][0, 0, :, 0], x[0, 0, pos, 0])


@pytest.mark.parametrize("args,kw,match", [
    ((torch.zeros(1, 1, 10, 2), 0, 4), {}, "does not split into 4 equal"),
    ((torch.zeros(1, 1, 12, 2), 0, 4), dict(sharding="zigzag"),
     "does not split into 8 equal"),
    ((torch.zeros(1, 1, 8, 2), 4, 4), {}, "rank must be an int in"),
    ((torch.zeros(1, 1, 8, 2), 0, 2), dict(sharding="rows"),
     "sharding must be one of"),
    ((torch.zeros(1, 1, 8, 2), 0, 2), dict(dim=4), "dim 4 is out of range"),
])
def test_shard_sequence_errors(args, kw, match):
    with pytest.raises(ArgumentError, match=match):
        shard_sequence(*args, **kw)


def test_needs_an_initialized_process_group():
    q = torch.zeros(1, 1, 4, 8)
    with pytest.raises(ArgumentError, match="not initialized"):
        ring_attention(q, q, q)


# -- ranks in processes ---------------------------------------------------------
def _spawn(world, tmp_path, fn, *args):
    mp.spawn(_entry, args=(world, str(tmp_path / "rendezvous"), fn, args),
             nprocs=world, join=True)


def _entry(rank, world, rendezvous, fn, args):
    torch.set_num_threads(1)  # the ranks share this machine's cores
    dist.init_process_group("gloo", init_method=f"file://{rendezvous}",
                            rank=rank, world_size=world)
    try:
        fn(rank, world, *args)
    finally:
        dist.destroy_process_group()


def attention64(q, k, v, causal, layout, scale=None):
    """Plain attention in q's dtype (float64: the reference)."""
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    s = (q @ k.transpose(-1, -2)) * (scale or 1 / math.sqrt(q.shape[-1]))
    if causal:
        hidden = torch.ones(s.shape[-2:], dtype=torch.bool).triu(1)
        s = s.masked_fill(hidden, float("-inf"))
    out, lse = torch.softmax(s, -1) @ v, torch.logsumexp(s.float(), -1)
    return (out if layout == "bhsd" else out.transpose(1, 2)), lse


# (dtype, layout, causal, sharding, heads_q, heads_kv, scale)
CASES = {
    2: [(torch.float32, "bhsd", False, "contiguous", 4, 2, None),
        (torch.float32, "bhsd", True, "contiguous", 4, 2, None),
        (torch.float32, "bhsd", True, "zigzag", 4, 2, None),
        (torch.float32, "bshd", True, "zigzag", 4, 2, None),
        (torch.float32, "bhsd", True, "zigzag", 4, 4, 0.3),
        (torch.bfloat16, "bhsd", True, "zigzag", 4, 2, None)],
    4: [(torch.float32, "bhsd", False, "zigzag", 4, 2, None),
        (torch.float32, "bhsd", True, "contiguous", 4, 2, None),
        (torch.float32, "bhsd", True, "zigzag", 4, 2, None),
        (torch.bfloat16, "bhsd", True, "zigzag", 4, 2, None)],
}
LOCAL_SEQ, HEAD_DIM, BATCH = 6, 16, 2


def _shape(layout, heads, seq):
    return ((BATCH, heads, seq, HEAD_DIM) if layout == "bhsd"
            else (BATCH, seq, heads, HEAD_DIM))


def _compare(rank, world, case, group=None):
    """One case on this rank (of `group`): ours against float64 attention
    of the whole sequence, next to the plain implementation in the case's
    dtype."""
    dtype, layout, causal, sharding, hq, hkv, scale = case
    dim = 2 if layout == "bhsd" else 1
    total = LOCAL_SEQ * world
    g = torch.Generator().manual_seed(7)  # the same whole tensors everywhere
    # In the case's dtype: the reference sees the same (rounded) inputs.
    q, k, v, do = (torch.randn(_shape(layout, h, total), generator=g).to(dtype)
                   for h in (hq, hkv, hkv, hq))

    def local(t):
        return shard_sequence(t, rank, world, sharding=sharding, dim=dim)
    mine = [local(t).requires_grad_() for t in (q, k, v)]
    out, lse = ring_attention(*mine, causal=causal, layout=layout,
                              sharding=sharding, scale=scale,
                              group=group, return_lse=True)
    (out * local(do)).sum().backward()

    results = {}
    for kind, cast in (("ref", torch.float64), ("plain", dtype)):
        full = [t.to(cast).requires_grad_() for t in (q, k, v)]
        o, lse_full = attention64(*full, causal, layout, scale)
        (o * do.to(cast)).sum().backward()
        results[kind] = [local(o.detach())] + [local(t.grad) for t in full]
        if kind == "ref":
            ref_lse = shard_sequence(lse_full.detach(), rank, world,
                                     sharding=sharding, dim=2)
    ours = [out.detach()] + [t.grad for t in mine]
    eps = EPSILON["bf16" if dtype == torch.bfloat16 else "f32"]
    for name, a, ref, plain in zip(("out", "dq", "dk", "dv"), ours,
                                   results["ref"], results["plain"]):
        err = (a.double() - ref).abs().max().item()
        base = (plain.double() - ref).abs().max().item()
        assert err <= 2 * base + eps, (case, rank, name, err, base)
    assert (lse.double() - ref_lse).abs().max().item() < 1e-4, (case, rank)


def _run_cases(rank, world):
    for case in CASES[world]:
        _compare(rank, world, case)


def _compile_kernels(cases):
    """Compiles the cases' kernels in this process, so that the ranks find
    them in the shared cache instead of all compiling at once."""
    for dtype, layout, causal, sharding, hq, hkv, scale in cases:
        q = torch.randn(_shape(layout, hq, 2), dtype=dtype,
                        requires_grad=True)
        k, v = (torch.randn(_shape(layout, hkv, 2), dtype=dtype,
                            requires_grad=True) for _ in range(2))
        for c in {causal, False}:
            fat.attention(q, k, v, causal=c, layout=layout,
                          scale=scale).sum().backward()
    fat.combine(torch.zeros(2, 1, 1), torch.zeros(2, 1))


@pytest.mark.parametrize("world", sorted(CASES))
def test_ring_matches_float64_attention(world, tmp_path):
    _compile_kernels(CASES[world])
    _spawn(world, tmp_path, _run_cases)


def _pairs(rank, world):
    """Two rings of two in a world of four: ranks 0, 2 and ranks 1, 3 (the
    group's ranks are not the global ones)."""
    groups = [dist.new_group([0, 2]), dist.new_group([1, 3])]
    mine = groups[rank % 2]
    for case in CASES[2][1:3]:
        _compare(dist.get_rank(mine), 2, case, group=mine)


def test_ring_on_subgroups(tmp_path):
    _compile_kernels(CASES[2][1:3])
    _spawn(4, tmp_path, _pairs)


def _disagree(rank, world):
    q = torch.randn(1, 2, 4, 8)
    with pytest.raises(ArgumentError, match="ranks disagree on causal"):
        ring_attention(q, q, q, causal=rank == 1)
    bad = torch.randn(1, 2, 3 if rank == 0 else 4, 8)  # rank 0: odd length
    match = ("local sequence lengths must be even" if rank == 0
             else r"rank\(s\) \[0\] rejected their arguments")
    with pytest.raises(ArgumentError, match=match):
        ring_attention(bad, bad, bad, sharding="zigzag")


def test_every_rank_raises_when_one_rank_is_wrong(tmp_path):
    _spawn(2, tmp_path, _disagree)


def _outsider(rank, world):
    group = dist.new_group([0])  # every rank takes part in creating it
    if rank == 1:
        q = torch.randn(1, 2, 4, 8)
        with pytest.raises(ArgumentError, match="not a member of group"):
            ring_attention(q, q, q, group=group)


def test_a_process_outside_the_group_is_refused(tmp_path):
    _spawn(2, tmp_path, _outsider)

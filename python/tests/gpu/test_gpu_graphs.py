"""fa_mlir.torch's calls captured in a torch.cuda.CUDAGraph (what
vLLM-style servers and make_graphed_callables do) on an sm_90a GPU: each
call is captured once, new inputs are copied into the captured (static)
tensors, the graph is replayed, and its outputs must equal the eager
call's on the same new inputs: bit for bit where the kernels are
deterministic (forwards, the decode), within the atomics' rounding for the
backward's dQ. A replay that read the capture's inputs (a stale tensor
map, a length read back at capture) would give the old inputs' results.

- attention forward and backward (bf16 d64 causal bhsd: autograd.grad
  inside the capture, as make_graphed_callables runs it);
- a decode step over a contiguous and a paged KV cache (GQA 32/8, d128,
  page size 64, split-KV: its partials' workspace sized with the device's
  SM count) replayed with new queries, cache_seqlens and block table;
- a ragged batch (varlen forward) replayed with new bounds of the same
  token count.

Each eager call also runs under torch.cuda.set_sync_debug_mode("error"):
no device->host sync. Kernels: configs.json (the same configurations as
test_gpu_attention/backward/kvcache/varlen)."""
import pytest

torch = pytest.importorskip("torch")

import fa_mlir.torch as fat  # noqa: E402


def captured(fn):
    """(graph, outputs of fn captured in it); fn warms up twice on a side
    stream first (modules loaded, memos filled), as torch asks."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = fn()
    return graph, outs


def no_sync(fn):
    """fn() with every device->host sync an error."""
    torch.cuda.set_sync_debug_mode("error")
    try:
        return fn()
    finally:
        torch.cuda.set_sync_debug_mode("default")


def refill(static, new):
    with torch.no_grad():
        for s, n in zip(static, new):
            s.copy_(n)


def randn(*shape, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(*shape, generator=g, device="cuda").bfloat16()


def test_attention_forward_and_backward_replay():
    shape = (2, 4, 300, 64)  # bhsd; 300: a partial last tile
    q, k, v = (randn(*shape, seed=i).requires_grad_() for i in range(3))
    grad = randn(*shape, seed=3)

    def step():
        out = fat.attention(q, k, v, causal=True)
        return (out,) + torch.autograd.grad(out, (q, k, v), grad)

    graph, static_outs = captured(step)
    refill((q, k, v, grad), [randn(*shape, seed=10 + i) for i in range(4)])
    graph.replay()
    torch.cuda.synchronize()
    eager = no_sync(step)
    torch.cuda.synchronize()
    assert torch.equal(static_outs[0], eager[0])  # the forward
    for name, got, want in zip(("dq", "dk", "dv"), static_outs[1:], eager[1:]):
        # dK, dV are written once; dQ sums f32 atomics in any order.
        torch.testing.assert_close(got, want, rtol=1e-2, atol=1e-2,
                                   msg=name)
    # The replay computed the new inputs, not the captured ones.
    assert not torch.equal(static_outs[0], captured_eager(q, shape))


def captured_eager(q, shape):
    """The forward of the inputs the graph was captured with."""
    old = [randn(*shape, seed=i) for i in range(3)]
    with torch.no_grad():
        return fat.attention(*old, causal=True)


HQ, HKV, D, CAPACITY = 32, 8, 128, 1024


def pages(b, seed, num_pages=64, per_seq=16):
    """A block table [b, per_seq] of distinct pages out of num_pages."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(num_pages, generator=g)[:b * per_seq]
    return perm.reshape(b, per_seq).to(torch.int32).cuda()


@pytest.mark.parametrize("page_size", [None, 64], ids=["contiguous", "paged"])
def test_decode_step_replays_with_new_lengths(page_size):
    """New queries and cache_seqlens (and, paged, a new block table: what a
    serving loop changes between steps) in the captured tensors."""
    b = 4
    q = randn(b, 1, HQ, D, seed=0)
    rows = (b, CAPACITY) if page_size is None else (64, page_size)
    kc, vc = (randn(*rows, HKV, D, seed=s) for s in (1, 2))
    lens = torch.tensor([1000, 517, 0, 1], dtype=torch.int32, device="cuda")
    table = None if page_size is None else pages(b, seed=3)

    def step():
        return fat.attention_with_kvcache(q, kc, vc, cache_seqlens=lens,
                                          block_table=table, causal=True,
                                          return_lse=True)

    graph, (out, lse) = captured(step)
    new_lens = torch.tensor([3, 1024, 700, 0], dtype=torch.int32,
                            device="cuda")
    refill((q, lens), (randn(b, 1, HQ, D, seed=5), new_lens))
    if table is not None:
        refill((table,), (pages(b, seed=4),))
    graph.replay()
    want_out, want_lse = no_sync(step)
    torch.cuda.synchronize()
    assert torch.equal(out, want_out) and torch.equal(lse, want_lse)
    assert torch.isneginf(lse[3]).all() and not torch.isneginf(lse[1]).any()


def test_varlen_forward_replays_with_new_bounds():
    total, hq = 1000, 8
    q, k, v = (randn(total, hq, 128, seed=i) for i in range(3))
    cu = torch.tensor([0, 100, 600, 600, 1000], dtype=torch.int32,
                      device="cuda")

    def step():
        return fat.varlen_attention(q, k, v, cu, cu, 500, 500, causal=True,
                                    return_lse=True)

    graph, (out, lse) = captured(step)
    refill((q, cu), (randn(total, hq, 128, seed=7),
                     torch.tensor([0, 400, 401, 900, 1000],
                                  dtype=torch.int32, device="cuda")))
    graph.replay()
    want_out, want_lse = no_sync(step)
    torch.cuda.synchronize()
    assert torch.equal(out, want_out) and torch.equal(lse, want_lse)

"""fa_mlir.torch.create_block_mask and attention(..., block_mask=...)
without a GPU: argument errors, and the CUDA route on CPU tensors posing as
sm_90a ones, every launch libfa_runtime's host check. The block-sparse
forward is test/Runtime/Inputs/fwd_bsparse.json over the stub cubin: a
map kernel whose two buffers are "written_by" it, then the forward
(docs/BundleFormat.md, *Buffers a caller may keep*).

- Without a block mask every call builds the map (the map kernel launched
  alone into torch buffers) and passes it to the sequence, which then skips
  its own map kernel;
- with one, the first call builds it and later calls pass the same
  tensors: the map kernel runs once.

The backward's sequence (test/Runtime/Inputs/bwd_bsparse.json) starts with
its own map kernel the same way. The GPU half (results and the map itself)
is stage 12 of scripts/device-round.sh (test/Device/check_modifiers.py) and
python/tests/gpu/test_gpu_modifiers.py (stage 5)."""
import os

import pytest
import torch

import fa_mlir
import fa_mlir.torch as fat
from fa_mlir.errors import ArgumentError
from fa_mlir.torch import _ops
from fa_mlir.torch._convert import runtime_tensor

from _fake_compiler import INPUTS

B, S, H, D = 2, 70, 4, 128  # the stub bundles' bf16 bshd d128


def _stripes(b, h, q_idx, kv_idx):
    """Not a band: keys in the first 48 of every 64 (a block-sparse
    forward on sm_90a)."""
    return (kv_idx % 64) < 48


def _other(b, h, q_idx, kv_idx):
    return kv_idx <= q_idx + 5


class _SparseRoute:
    """The eager CUDA route with the stub block-sparse forward and backward
    (bwd_bsparse.json: the backward's map kernel first); records each
    launch (bundle, tensors) after the runtime's host check."""

    def __init__(self, monkeypatch):
        self.bundles = {op: fa_mlir.load_bundle(os.path.join(INPUTS, name))
                        for op, name in (("forward", "fwd_bsparse.json"),
                                         ("backward", "bwd_bsparse.json"))}
        self.forward = self.bundles["forward"]
        self.launched = []
        monkeypatch.setattr(_ops, "_target", lambda t: "sm_90a")
        monkeypatch.setattr(_ops, "get_bundle",
                            lambda kcfg, target: self.bundles[kcfg.op])
        monkeypatch.setattr(_ops, "_launch", self._launch)

    def _launch(self, bundle, tensors, device):
        bundle.check({r: runtime_tensor(t) for r, t in tensors.items()})
        self.launched.append((bundle, tensors))

    def kernels(self):
        """'map', 'sequence' (the forward) or 'backward' per launch (the
        backward's map kernel is 'backward map')."""
        names = {id(self.forward): "sequence", id(self.bundles["backward"]): "backward",
                 id(self.bundles["backward"].kernel_bundle(0)): "backward map"}
        return [names.get(id(b), "map") for b, _ in self.launched]


def _inputs(seed=0, batch=B, seq=S):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(batch, seq, H, D, generator=g).bfloat16() for _ in range(3)]


def test_written_by_buffers_in_pythons_reader():
    fwd = fa_mlir.load_bundle(os.path.join(INPUTS, "fwd_bsparse.json"))
    assert fwd.written_by == {0: ["kv_num_blocks", "kv_indices"]}
    assert fwd.kernel_bundle(0).runtime.kernel_name == "helper_kernel"
    # The others' workspace (the backward's) is unchanged.
    bwd = fa_mlir.load_bundle(os.path.join(INPUTS, "bwd.json"))
    assert bwd.written_by == {}


def test_without_block_mask_every_call_builds_the_map(monkeypatch):
    route = _SparseRoute(monkeypatch)
    q, k, v = _inputs()
    for _ in range(2):
        fat.attention(q, k, v, layout="bshd", mask_mod=_stripes)
    assert route.kernels() == ["map", "sequence"] * 2
    (_, built), (_, call) = route.launched[:2]
    # The map the kernel wrote is what the sequence gets (so it skips its
    # own map kernel); torch allocated it: [batch, 1, query blocks(, key
    # tiles)] of the stub's 128 x 128 tiles.
    assert call["kv_num_blocks"] is built["kv_num_blocks"]
    assert call["kv_indices"] is built["kv_indices"]
    assert tuple(built["kv_indices"].shape) == (B, 1, 1, 1)
    assert built["kv_num_blocks"].dtype == torch.int32
    assert set(built) == {"query", "key", "value", "kv_num_blocks", "kv_indices"}
    assert route.launched[2][1]["kv_indices"] is not built["kv_indices"]


def test_block_mask_builds_the_map_once(monkeypatch):
    route = _SparseRoute(monkeypatch)
    bm = fat.create_block_mask(_stripes, B, None, S, S, device="cpu")
    q, k, v = _inputs()
    outs = [fat.attention(q, k, v, layout="bshd", block_mask=bm) for _ in range(3)]
    assert route.kernels() == ["map", "sequence", "sequence", "sequence"]
    maps = [t["kv_indices"] for b, t in route.launched if b is route.forward]
    assert maps[0] is maps[1] is maps[2]
    assert all(o.shape == q.shape for o in outs)
    # Passing the same mask_mod with it is the same call.
    fat.attention(q, k, v, layout="bshd", block_mask=bm, mask_mod=_stripes)
    assert route.kernels()[-1] == "sequence" and len(route.launched) == 5


def test_block_mask_in_training(monkeypatch):
    """The autograd Function's forward and backward reuse it too: each
    direction's map (the backward's is transposed: query tiles per key
    block) is built by the first step, and later steps launch the
    sequences alone; without it each step builds both."""
    route = _SparseRoute(monkeypatch)
    bm = fat.create_block_mask(_stripes, None, None, S, S, device="cpu")
    q, k, v = (t.requires_grad_() for t in _inputs())
    grad = torch.randn(B, S, H, D).bfloat16()
    for _ in range(2):
        out = fat.attention(q, k, v, layout="bshd", block_mask=bm)
        torch.autograd.grad(out, (q, k, v), grad)
    assert route.kernels() == ["map", "sequence", "backward map", "backward",
                               "sequence", "backward"]
    backward_maps = [t["q_indices"] for b, t in route.launched
                     if b is route.bundles["backward"]]
    assert backward_maps[0] is backward_maps[1]
    assert tuple(backward_maps[0].shape) == (B, 1, 1, 2)  # 70 keys, 64-row tiles
    route.launched.clear()
    out = fat.attention(q, k, v, layout="bshd", mask_mod=_stripes)
    torch.autograd.grad(out, (q, k, v), grad)
    assert route.kernels() == ["map", "sequence", "backward map", "backward"]


def test_one_map_per_sizes(monkeypatch):
    """B=None serves every batch; each batch size gets its own map."""
    route = _SparseRoute(monkeypatch)
    bm = fat.create_block_mask(_stripes, None, H, S, S, device="cpu")
    for batch in (2, 3, 2):
        q, k, v = _inputs(batch=batch)
        fat.attention(q, k, v, layout="bshd", block_mask=bm)
    assert route.kernels() == ["map", "sequence", "map", "sequence", "sequence"]


@pytest.mark.parametrize("args, message", [
    (("not a function", 1, 1, 8, 8), "mask_mod must be a function"),
    ((_stripes, 0, 1, 8, 8), "B must be None or an int"),
    ((_stripes, 1, 1.5, 8, 8), "H must be None or an int"),
    ((_stripes, 1, 1, None, 8), "Q_LEN must be an int"),
    ((_stripes, 1, 1, 8, -3), "KV_LEN must be an int"),
])
def test_create_block_mask_errors(args, message):
    with pytest.raises(ArgumentError, match="create_block_mask: " + message):
        fat.create_block_mask(*args, device="cpu")


def test_create_block_mask_traces_now():
    def reads_item(b, h, q_idx, kv_idx):
        return kv_idx < int(q_idx)  # Python control flow on a traced value
    with pytest.raises(ArgumentError, match="create_block_mask"):
        fat.create_block_mask(reads_item, 1, 1, 8, 8, device="cpu")


@pytest.mark.parametrize("make, kwargs, message", [
    (lambda: "bm", {}, "block_mask must be a BlockMask from "
                       "fa_mlir.torch.create_block_mask, got str"),
    (lambda: fat.create_block_mask(_stripes, 3, None, S, S, device="cpu"), {},
     "block_mask was made for B=3, but this call's batch is 2"),
    (lambda: fat.create_block_mask(_stripes, None, 8, S, S, device="cpu"), {},
     "block_mask was made for H=8, but this call's heads_q is 4"),
    (lambda: fat.create_block_mask(_stripes, None, None, 64, S, device="cpu"), {},
     "block_mask was made for Q_LEN=64, but this call's seq_q is 70"),
    (lambda: fat.create_block_mask(_stripes, None, None, S, 71, device="cpu"), {},
     "block_mask was made for KV_LEN=71, but this call's seq_k is 70"),
    (lambda: fat.create_block_mask(_stripes, None, None, S, S, device="cuda"), {},
     "block_mask was made for device cuda, but q is on cpu"),
    (lambda: fat.create_block_mask(_stripes, None, None, S, S, device="cpu"),
     {"mask_mod": _other}, "mask_mod differs from block_mask's"),
])
def test_attention_block_mask_errors(make, kwargs, message):
    q, k, v = _inputs()
    with pytest.raises(ArgumentError, match="attention: " + message):
        fat.attention(q, k, v, layout="bshd", block_mask=make(), **kwargs)


def test_block_mask_refused_with_fp8():
    q = torch.zeros(1, 2, 16, 64).to(torch.float8_e4m3fn)
    one = torch.ones(())
    bm = fat.create_block_mask(_stripes, None, None, 16, 16, device="cpu")
    with pytest.raises(ArgumentError, match="block_mask is not supported with "
                       "float8_e4m3fn"):
        fat.attention(q, q, q, block_mask=bm, q_descale=one, k_descale=one,
                      v_descale=one)

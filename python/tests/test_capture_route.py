"""What CUDA graph capture and a low host cost per call need of
fa_mlir.torch's CUDA route, checked without a GPU (plain CPU tensors posing
as sm_90a ones, the launch replaced by libfa_runtime's host check):

- `attention` forward and backward (the eager path: plain tensors, the
  autograd Function) read no tensor's values back on the host (a
  device->host sync, which no graph can capture);
- the backward gets no gradient tensor for the LSE (autograd would
  allocate and fill zeros on every call);
- a repeated signature skips check_inputs, a changed one meets it;
- workspace whose shape reads num_sms (the decode's split count) is
  sized in Python with the device's SM count, so that torch allocates it;
  where Python cannot size a buffer, capture is refused (libfa_runtime
  would allocate it outside torch's graph pool).

The GPU half (a captured forward, backward and decode step replayed with
new inputs) is python/tests/gpu/test_gpu_graphs.py."""
import json
import os

import pytest
import torch

import fa_mlir
import fa_mlir.torch as fat
from fa_mlir import compiler
from fa_mlir.errors import ArgumentError, UnsupportedError
from fa_mlir.spec import KernelConfig
from fa_mlir.torch import _convert, _ops
from fa_mlir.torch._convert import runtime_tensor

from _cuda_route import Routed
from _fake_compiler import INPUTS, fake_fa_compile
from _fake_cuda import HostSync, fake_cuda

from fa_mlir.torch.attention import AttentionFunction

B, S, H, D = 2, 70, 4, 128  # the stub bundles' bf16 bshd d128


class _PlainRoute:
    """The eager CUDA route on plain CPU tensors: sm_90a bundles by op (the
    runtime's stub forward and backward sequence), every launch libfa_runtime's
    host check of the tensors' real addresses."""

    def __init__(self, monkeypatch):
        self.bundles = {
            "forward": fa_mlir.load_bundle(os.path.join(INPUTS,
                                                        "attention_fwd.json")),
            "backward": fa_mlir.load_bundle(os.path.join(INPUTS, "bwd.json"))}
        self.launched = []
        monkeypatch.setattr(_ops, "_target", lambda t: "sm_90a")
        monkeypatch.setattr(_ops, "get_bundle",
                            lambda kcfg, target: self.bundles[kcfg.op])
        monkeypatch.setattr(_ops, "_launch", self._launch)

    def _launch(self, bundle, tensors, device):
        self.launched.append((bundle, tensors))
        bundle.check({r: runtime_tensor(t) for r, t in tensors.items()})


def _inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(B, S, H, D, generator=g).bfloat16().requires_grad_()
            for _ in range(3)]


def _trap_reads(monkeypatch):
    """Every Tensor method that reads values back to the host raises, on
    any tensor (on CUDA each is a device->host sync)."""
    def trap(name):
        def read(self, *args, **kwargs):
            raise HostSync(f"Tensor.{name}: a device->host read")
        return read
    for name in ("item", "tolist", "cpu", "numpy", "__bool__", "__int__",
                 "__float__", "__index__"):
        monkeypatch.setattr(torch.Tensor, name, trap(name))


def test_attention_forward_and_backward_read_nothing_back(monkeypatch):
    route = _PlainRoute(monkeypatch)
    q, k, v = _inputs()
    grad = torch.randn(B, S, H, D).bfloat16()
    fat.attention(q, k, v, causal=True, layout="bshd")  # fills the memos
    with monkeypatch.context() as m:
        _trap_reads(m)
        for _ in range(2):  # the first call of a signature, then a repeat
            out = fat.attention(q, k, v, causal=True, layout="bshd")
            dq, dk, dv = torch.autograd.grad(out, (q, k, v), grad)
    fwd, bwd = route.bundles["forward"], route.bundles["backward"]
    assert [b for b, _ in route.launched] == [fwd, fwd, bwd, fwd, bwd]
    assert dq.shape == q.shape and dv.shape == v.shape
    # The backward's workspace came from torch (no runtime allocation).
    assert {"dq_accum", "lse_log2", "dq_semaphore"} <= set(route.launched[2][1])


def test_the_trap_catches_a_read(monkeypatch):
    """The trap above sees what a sync would be (so its test can fail)."""
    _PlainRoute(monkeypatch)
    q, k, v = _inputs()
    monkeypatch.setattr(_ops, "_dense", lambda t: t if t is None or
                        t.sum().item() is None else t)
    _trap_reads(monkeypatch)
    with pytest.raises(HostSync, match="item"):
        fat.attention(q, k, v, causal=True, layout="bshd")


def test_backward_gets_no_lse_gradient(monkeypatch):
    """The LSE is not differentiable: its gradient reaches the backward as
    None, not as a zeros tensor autograd fills on every call."""
    _PlainRoute(monkeypatch)
    seen = []
    backward = AttentionFunction.backward

    def spy(ctx, grad_out, grad_lse):
        seen.append(grad_lse)
        return backward(ctx, grad_out, grad_lse)
    monkeypatch.setattr(AttentionFunction, "backward", staticmethod(spy))
    q, k, v = _inputs()
    out, lse = fat.attention(q, k, v, causal=True, layout="bshd",
                             return_lse=True)
    out.float().sum().backward()
    assert seen == [None] and q.grad is not None


def test_no_output_gradient_is_zero_gradients():
    """Without materialized gradients a backward may get None for the
    output (no gradient reached it): every input's gradient is then zero,
    returned as None, and nothing runs."""
    import inspect
    from fa_mlir.torch.inference import _VarlenFunction
    for fn in (AttentionFunction, _VarlenFunction):
        inputs = len(inspect.signature(fn.forward).parameters) - 1  # ctx
        assert fn.backward(None, None, None) == (None,) * inputs


def test_changed_inputs_after_a_remembered_call_are_checked(monkeypatch):
    _PlainRoute(monkeypatch)
    q, k, v = _inputs()
    calls = []
    check = _convert.check_inputs
    monkeypatch.setattr(_convert, "check_inputs", lambda *a, **kw:
                        calls.append(1) or check(*a, **kw))
    monkeypatch.setattr(_convert, "_checked", {})
    with torch.no_grad():
        fat.attention(q, k, v, layout="bshd")
        fat.attention(q, k, v, layout="bshd")
        assert len(calls) == 1  # the repeat is remembered
        for bad, message in ((k[:, :, :3], "value dimension 2"),
                             (k[:1], "batch"),
                             (k.to(torch.float16), "dtype"),
                             (k[..., :64], "head dim")):
            with pytest.raises(ArgumentError, match=message):
                fat.attention(q, bad, v, layout="bshd")
    assert len(calls) == 5  # each changed input checked anew


# -- workspace sized in Python: num_sms ---------------------------------------

KVCACHE = KernelConfig(op="kvcache", dtype="bf16", head_dim=128, layout="bshd",
                       causal=True, page_size=64)
SPLIT = "ceildiv(max_pages * page_size, 1024)"  # the stub's split count
SPLIT_BY_SMS = "max(1, num_sms / 33)"           # the compiler's reads num_sms


@pytest.fixture
def decode_by_sms(monkeypatch, tmp_path):
    """The stub paged decode sequence with its split count read off
    num_sms (as the compiler's heuristic, num_splits=0, does), routed."""
    names = ["kvcache_paged.json", "kvcache_paged_partial.json",
             "kvcache_combine.json"]
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        with open(os.path.join(INPUTS, name)) as f:
            (src / name).write_text(f.read().replace(SPLIT, SPLIT_BY_SMS))
    fake_fa_compile(monkeypatch, [str(src / n) for n in names] +
                    ["stub_kernels.cubin"])
    out = str(tmp_path / "bundle")
    compiler.build_bundle(KVCACHE, "sm_90a", out, version={"fa-compile": "x"})
    bundle = fa_mlir.load_bundle(out)
    assert "num_sms" in json.dumps(bundle.workspace)
    return Routed(monkeypatch, bundle)


def _decode():
    g = torch.Generator().manual_seed(0)
    q = fake_cuda(torch.randn(3, 2, 8, 128, generator=g).bfloat16())
    kc, vc = (fake_cuda(torch.randn(16, 64, 2, 128, generator=g).bfloat16())
              for _ in range(2))
    table = fake_cuda(torch.randperm(16, generator=g)[:15].reshape(3, 5)
                      .to(torch.int32).contiguous())
    lens = fake_cuda(torch.tensor([100, 0, 250], dtype=torch.int32))
    return fat.attention_with_kvcache(q, kc, vc, cache_seqlens=lens,
                                      block_table=table, causal=True)


def test_split_workspace_is_sized_with_the_devices_sms(monkeypatch,
                                                      decode_by_sms):
    monkeypatch.setattr(_ops, "_num_sms", lambda device: 132)
    _decode()
    (tensors,) = decode_by_sms.launched
    # 132 / 33 splits, torch's buffers, which the runtime's check (num_sms
    # 132) accepts as its own shapes.
    assert tensors["o_partial"].shape == (4, 3, 8, 2, 128)
    assert tensors["lse_partial"].shape == (4, 3, 8, 2)


def test_capture_refuses_workspace_python_cannot_size(monkeypatch,
                                                      decode_by_sms):
    monkeypatch.setattr(_ops, "_num_sms", lambda device: None)
    _decode()  # not capturing: the runtime allocates the partials
    assert "o_partial" not in decode_by_sms.launched[0]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing",
                        lambda: True)
    with pytest.raises(UnsupportedError, match=r"capture.*o_partial"):
        _decode()

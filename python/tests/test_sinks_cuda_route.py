"""Attention sinks on the sm_90a route, on the host: the forward bundle and
the backward sequence fa-compile writes for a KernelConfig with sinks pass
both readers (the bundle schemas, fa_mlir's manifest view, libfa_runtime's
operand check: sinks and grad_sinks required, [heads_q] f32, the
dsinks_partial workspace Python sizes as the runtime does), and
fa_mlir.torch.attention(..., sinks=) on CPU tensors posing as CUDA launches
them with the sinks and returns grad_sinks as their gradient. Skipped
without fa-compile; the launch on a GPU is stage 13 of the device round.
"""
import json
import os
import shutil

import pytest

torch = pytest.importorskip("torch")

from fa_mlir import compiler, manifest as fa_manifest  # noqa: E402
from fa_mlir.bundle import load_bundle  # noqa: E402
from fa_mlir.errors import (BundleError, RuntimeLibraryError,  # noqa: E402
                            UnsupportedError)
from fa_mlir.spec import KernelConfig  # noqa: E402

from _cuda_route import Routed, runtime_operands  # noqa: E402
from _fake_cuda import fake_cuda  # noqa: E402

B, HQ, HKV, SQ, SK, D = 2, 4, 2, 100, 70, 64
CONFIG = KernelConfig(dtype="bf16", head_dim=D, layout="bshd", causal=True,
                      mask_alignment="bottom_right", sinks=True, heads_q=HQ,
                      heads_kv=HKV)
SIZES = dict(batch=B, heads_q=HQ, heads_kv=HKV, seq_q=SQ, seq_k=SK,
             head_dim=D, head_dim_v=D)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{op: bundle directory} of the sinks forward and backward."""
    try:
        compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    root = tmp_path_factory.mktemp("sinks")
    out = {}
    for op in ("forward", "backward"):
        path = str(root / op)
        compiler.build_bundle(CONFIG.with_(op=op), "sm_90a", path)
        out[op] = path
    return out


def _documents(bundle):
    """The bundle's JSON and, for a sequence, its kernels' JSON."""
    with open(bundle.json_path) as f:
        doc = json.load(f)
    docs = [(doc, "kernel-sequence.schema.json" if bundle.is_sequence else
             "kernel-bundle.schema.json")]
    for name in doc.get("kernels", []):
        with open(os.path.join(os.path.dirname(bundle.json_path), name)) as f:
            docs.append((json.load(f), "kernel-bundle.schema.json"))
    return docs


@pytest.mark.parametrize("op, required", [
    ("forward", ["sinks"]), ("backward", ["sinks", "grad_sinks"])])
def test_bundles_pass_both_readers(built, op, required):
    bundle = load_bundle(built[op])
    kcfg = CONFIG.with_(op=op)
    assert bundle.config == kcfg
    for doc, schema in _documents(bundle):
        assert fa_manifest.schema_errors(doc, schema) == []
        assert doc["config"]["sinks"] is True
    assert bundle.runtime.required[-len(required):] == required
    ops = runtime_operands(kcfg, SIZES)
    assert bundle.check(ops)
    bad = runtime_operands(kcfg, SIZES, sinks=("f32", (HQ + 1,)))
    with pytest.raises(RuntimeLibraryError, match="operand 'sinks': dimension "
                       r"0 \(head\) is 5, expected 4"):
        bundle.check(bad)


def test_backward_workspace_has_the_sinks_partials(built):
    bundle = load_bundle(built["backward"])
    assert bundle.runtime.num_kernels == 4  # pre, main, post, dsinks
    shapes = bundle.workspace_shapes(SIZES)
    # one per consumer warp (8) of each 128-key block of the main kernel
    assert shapes["dsinks_partial"] == ((B, HQ, -(-SK // 128) * 8), "f32")
    ops = runtime_operands(CONFIG.with_(op="backward"), SIZES)
    want = sum(4 * n for n in (
        s[0][0] * s[0][1] * s[0][2] * (s[0][3] if len(s[0]) > 3 else 1)
        for s in shapes.values()))
    assert bundle.runtime.workspace_bytes(ops) == want


def test_a_bundle_without_sinks_does_not_pass_for_one_with(built, tmp_path):
    """The manifest says sinks; a kernel JSON without them (a plain kernel
    would compute attention without the sink) is refused."""
    path = tmp_path / "fwd"
    shutil.copytree(built["forward"], path)
    bundle = load_bundle(str(path))
    with open(bundle.json_path) as f:
        doc = json.load(f)
    del doc["config"]["sinks"]
    with open(bundle.json_path, "w") as f:
        json.dump(doc, f)
    with pytest.raises(BundleError, match="sinks"):
        load_bundle(str(path))


def test_attention_with_sinks_launches_them(monkeypatch, built):
    import fa_mlir.torch as fat
    routed = Routed(monkeypatch, {op: load_bundle(p) for op, p in built.items()})
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, SQ, HQ, D, generator=g).to(torch.bfloat16)
    k, v = (torch.randn(B, SK, HKV, D, generator=g).to(torch.bfloat16)
            for _ in range(2))
    sinks = torch.randn(HQ, generator=g)
    q, k, v, sinks = (fake_cuda(t).requires_grad_() for t in (q, k, v, sinks))
    out = fat.attention(q, k, v, sinks=sinks, causal=True, layout="bshd",
                        mask_alignment="bottom_right")
    (dsinks,) = torch.autograd.grad(out.float().sum(), (sinks,))
    fwd, bwd = routed.asked
    assert fwd == CONFIG and bwd == CONFIG.with_(op="backward")
    assert routed.launched[0]["sinks"].data_ptr() == sinks.data_ptr()
    launched = routed.launched[1]
    assert launched["sinks"].data_ptr() == sinks.data_ptr()
    assert launched["grad_sinks"].shape == (HQ,)
    assert launched["dsinks_partial"].shape == (B, HQ, -(-SK // 128) * 8)
    assert dsinks.data_ptr() == launched["grad_sinks"].data_ptr()
    # libfa_runtime's check passed for both (the forward's grid, the pre
    # kernel's).
    assert len(routed.grids) == 2 and routed.grids[1] == (2, HQ, B)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_both_readers_refuse_a_config_sinks_that_is_not_a_boolean(built, tmp_path,
                                                                  value):
    path = tmp_path / "fwd"
    shutil.copytree(built["forward"], path)
    bundle = load_bundle(str(path))
    with open(bundle.json_path) as f:
        doc = json.load(f)
    doc["config"]["sinks"] = value
    assert fa_manifest.schema_errors(doc, "kernel-bundle.schema.json")
    with open(bundle.json_path, "w") as f:
        json.dump(doc, f)
    from fa_mlir import gpu_runtime
    with pytest.raises(RuntimeLibraryError, match="config.sinks"):
        gpu_runtime.RuntimeBundle(bundle.json_path)

"""Every error path says what is wrong: configurations, targets, missing
tools, and the checks a CPU bundle runs on its arguments."""
import json
import os

import numpy as np
import pytest

import fa_mlir
from fa_mlir import registry
from fa_mlir.errors import (ArgumentError, BundleError, CompileError,
                            UnsupportedError)
from fa_mlir.spec import KernelConfig


@pytest.mark.parametrize("fields, message", [
    (dict(dtype="f64"), "dtype must be one of"),
    (dict(layout="sbhd"), "layout must be one of"),
    (dict(window=(-1, 2)), r"window left must be an int in \[0, "),
    (dict(mask_alignment="bottom_right"), "mask_alignment needs causal"),
    (dict(heads_q=3, heads_kv=2), r"heads_q \(3\) must be a multiple"),
    (dict(softcap=0.0), "softcap must be > 0"),
    (dict(op="sideways"), "op must be one of"),
    (dict(head_dim=0), r"head_dim must be an int in \[1, "),
    (dict(bias=(True, True), bias_dtype="f16"), "bias_dtype must be f32 or"),
])
def test_config_errors(fields, message):
    with pytest.raises(ArgumentError, match=message):
        KernelConfig(**fields)


def test_unknown_config_field():
    with pytest.raises(ArgumentError, match="unknown field"):
        KernelConfig.from_dict({"dtype": "f32", "head_size": 64})


def test_unknown_target():
    with pytest.raises(UnsupportedError, match="unknown target 'sm_75'"):
        fa_mlir.compile(dtype="f32", head_dim=8, target="sm_75")


def test_sm90a_without_the_hopper_compiler(tmp_path, monkeypatch):
    from fa_mlir import compiler
    build = tmp_path / "build"
    (build / "bin").mkdir(parents=True)
    os.symlink(compiler.find_fa_opt(), build / "bin" / "fa-opt")
    monkeypatch.setenv("FA_BUILD_DIR", str(build))
    with pytest.raises(UnsupportedError, match="never falls back to the CPU"):
        fa_mlir.compile(dtype="bf16", head_dim=64, target="sm_90a")


def test_sm90a_backward_unsupported_says_why(tmp_path):
    # With the real fa-compile: either it builds the backward (a kernel
    # sequence, once the sm_90a backward exists) or it refuses it, and that
    # refusal is an UnsupportedError carrying the compiler's message.
    from fa_mlir import compiler
    try:
        compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    try:
        gpu = compiler._build_sm90a(KernelConfig(dtype="bf16", head_dim=64,
                                                 op="backward"), str(tmp_path))
    except UnsupportedError as e:
        assert "fa-compile failed for sm_90a" in str(e) and "backward" in str(e)
        return
    assert set(gpu) == {"sequence", "source"}


def test_cpu_dynamic_heads_work_or_say_why():
    # The reference decomposition's lowering crashes on dynamic head counts;
    # that must surface as UnsupportedError, and once fixed, the kernel must
    # serve several head counts.
    try:
        b = fa_mlir.compile(dtype="f32", head_dim=8)
    except UnsupportedError as e:
        assert "give heads_q and heads_kv" in str(e)
        return
    for hq, hk in ((2, 1), (3, 3)):
        q = np.ones((1, hq, 2, 8), np.float32)
        kv = np.ones((1, hk, 3, 8), np.float32)
        o, _ = b(query=q, key=kv, value=kv)
        assert np.allclose(o, 1.0)


def test_missing_fa_opt(tmp_path, monkeypatch):
    monkeypatch.setenv("FA_BUILD_DIR", str(tmp_path))
    with pytest.raises(CompileError, match="fa-opt not found.*FA_BUILD_DIR"):
        fa_mlir.compile(dtype="f32", head_dim=8, heads_q=1, heads_kv=1)


def test_no_bundle_and_no_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("FA_BUILD_DIR", str(tmp_path))
    registry.forget()
    with pytest.raises(BundleError, match="python -m fa_mlir.aot"):
        registry.get_bundle(KernelConfig(dtype="f32", head_dim=8, heads_q=1,
                                         heads_kv=1), "cpu")


@pytest.fixture(scope="module")
def bundle():
    return fa_mlir.compile(dtype="bf16", head_dim=8, heads_q=4, heads_kv=2)


def arrays(b=2, sq=3, sk=5, hq=4, hk=2, d=8, dtype=np.uint16):
    z = lambda *s: np.zeros(s, dtype)  # noqa: E731
    return dict(query=z(b, hq, sq, d), key=z(b, hk, sk, d), value=z(b, hk, sk, d),
                output=z(b, hq, sq, d), lse=np.zeros((b, hq, sq), np.float32))


@pytest.mark.parametrize("change, message", [
    (dict(query=np.zeros((2, 4, 3, 8), np.float32)),
     "'query' has numpy dtype float32, expected bf16 stored as uint16 or int16"),
    (dict(key=np.zeros((2, 2, 5, 16), np.uint16)),
     r"'key' dimension 3 is 16, expected 8"),
    (dict(value=np.zeros((2, 2, 6, 8), np.uint16)),
     r"'value' dimension 2 \(seq_k\) is 6, expected 5 \(seq_k, from 'key'\)"),
    (dict(key=np.zeros((3, 2, 5, 8), np.uint16)),
     r"'key' dimension 0 \(batch\) is 3, expected 2 \(batch, from 'query'\)"),
    (dict(query=np.zeros((2, 3, 8), np.uint16)), "'query' has rank 3"),
    (dict(query=np.zeros((2, 4, 8, 3), np.uint16).transpose(0, 1, 3, 2)),
     "'query' must be C-contiguous"),
    (dict(lse=None), "missing operand 'lse'"),
    (dict(bias=np.zeros((1, 1, 3, 5), np.float32)), r"unknown operand\(s\) \['bias'\]"),
    (dict(query=[[0]]), "'query' must be a numpy array"),
])
def test_cpu_argument_errors(bundle, change, message):
    args = arrays()
    args.update(change)
    args = {k: v for k, v in args.items() if v is not None}
    with pytest.raises(ArgumentError, match=message):
        bundle.launch(args)


def test_read_only_output(bundle):
    args = arrays()
    args["output"].flags.writeable = False
    with pytest.raises(ArgumentError, match="output 'output' is read-only"):
        bundle.launch(args)


def test_bundle_load_errors(tmp_path, bundle):
    with pytest.raises(BundleError, match="no kernel bundle"):
        fa_mlir.load_bundle(tmp_path / "missing")
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(BundleError, match="not JSON"):
        fa_mlir.load_bundle(tmp_path)
    m = json.load(open(os.path.join(bundle.path, "manifest.json")))
    (tmp_path / "manifest.json").write_text(json.dumps(dict(m, version=9)))
    with pytest.raises(BundleError, match="unsupported manifest version 9"):
        fa_mlir.load_bundle(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(BundleError, match="missing kernel.so"):
        fa_mlir.load_bundle(tmp_path)


torch = pytest.importorskip("torch")


def _t(*shape, dtype=None):
    return torch.zeros(*shape, dtype=dtype or torch.float32)


@pytest.mark.parametrize("args, kwargs, message", [
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8, dtype=torch.float16), _t(2, 2, 5, 8)), {},
     "key has dtype torch.float16, expected torch.float32"),
    ((_t(2, 4, 3, 8), _t(2, 3, 5, 8), _t(2, 3, 5, 8)), {},
     "not a multiple of key/value's 3"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 4), _t(2, 2, 5, 8)), {},
     "key head dim is 4, query's is 8"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 6, 8)), {},
     r"value dimension 2 \(seq\) is 6, expected 5"),
    ((_t(4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 5, 8)), {}, "query must have rank 4"),
    ((_t(2, 4, 3, 8), _t(1, 2, 5, 8), _t(1, 2, 5, 8)), {},
     "key has batch 1, query has 2"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 5, 8)),
     dict(bias=_t(3, 4, 3, 5)), r"bias dimension 0 is 3, expected 1"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 5, 8)),
     dict(bias=_t(3, 4)), r"bias has shape \(3, 4\)"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 5, 8)),
     dict(window=(1, -5)), r"window right must be an int in \[0, 2147483647\]"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 5, 8)),
     dict(layout="sbhd"), "layout must be"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 5, 8)),
     dict(softcap=-1.0), "softcap must be > 0"),
    ((_t(2, 4, 3, 8), _t(2, 2, 5, 8), _t(2, 2, 5, 8).to("meta")), {},
     "value is on meta, expected cpu"),
])
def test_torch_argument_errors(args, kwargs, message):
    import fa_mlir.torch as fat
    with pytest.raises(ArgumentError, match=message):
        fat.attention(*args, **kwargs)

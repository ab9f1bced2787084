"""The public functions refuse arguments of the wrong type or range with an
ArgumentError naming the argument (nothing is coerced: bool("no") is True,
int(1.7) is 1), and every float they accept reaches MLIR in a form that
parses."""
import math
import struct

import numpy as np
import pytest

import fa_mlir
from fa_mlir import arguments
from fa_mlir.config import AttentionConfig, forward_mlir
from fa_mlir.cpu import find_fa_opt
from fa_mlir.errors import ArgumentError, UnsupportedError
from fa_mlir import reference
from fa_mlir.spec import KernelConfig

STATIC = dict(dtype="f32", head_dim=8, heads_q=1, heads_kv=1)


@pytest.mark.parametrize("fields, message", [
    (dict(causal="no"), r"causal must be True or False, got 'no'"),
    (dict(causal=1), r"causal must be True or False, got 1"),
    (dict(return_lse="yes"), r"return_lse must be True or False"),
    (dict(window=(1.7, 0.2)), r"window left must be an int in \[0, "),
    (dict(window=(3, True)), r"window right must be an int"),
    (dict(window=5), r"window must be \(left, right\)"),
    (dict(window="ab"), r"window must be \(left, right\)"),
    (dict(window=(1, 2, 3)), r"window must be \(left, right\)"),
    (dict(softcap=math.inf), r"softcap must be finite"),
    (dict(softcap=math.nan), r"softcap must be finite"),
    (dict(softcap="30"), r"softcap must be a real number"),
    (dict(softcap=1e39), r"softcap must be within float32's range"),
    (dict(scale=1e-50), r"scale must be non-zero in float32"),
    (dict(scale=-3.5e38), r"scale must be within float32's range"),
    (dict(scale=True), r"scale must be a real number"),
    (dict(head_dim=8.0), r"head_dim must be an int"),
    (dict(head_dim=True), r"head_dim must be an int"),
    (dict(head_dim_v=0), r"head_dim_v must be an int in \[1, "),
    (dict(heads_q=2.0, heads_kv=1), r"heads_q must be an int"),
    (dict(seq_q=1 << 40), r"seq_q must be an int in \[1, 2147483647\]"),
    (dict(batch=-1), r"batch must be an int"),
    (dict(bias="yes"), r"bias must be \(per_batch, per_head\)"),
    (dict(bias=(1, 0)), r"bias per_batch must be True or False"),
    (dict(dtype=["f32"]), r"dtype must be one of"),
    (dict(mask_alignment=1, causal=True), r"mask_alignment must be one of"),
    (dict(bias=(True, True), bias_dtype="f64"), r"bias_dtype must be one of"),
])
def test_kernel_config_refuses(fields, message):
    with pytest.raises(ArgumentError, match=message):
        KernelConfig(**dict(STATIC, **fields))


@pytest.mark.parametrize("fields, message", [
    (dict(causal="no"), "AttentionConfig: causal must be True or False"),
    (dict(window=(1.7, 0.2)), "AttentionConfig: window left must be an int"),
    (dict(softcap=math.inf), "AttentionConfig: softcap must be finite"),
    (dict(seq_q=-1), "AttentionConfig: seq_q must be an int in \\[0, "),
    (dict(bias=(1, 1)), "AttentionConfig: bias per_batch must be True"),
])
def test_attention_config_refuses(fields, message):
    with pytest.raises(ArgumentError, match=message):
        AttentionConfig(**fields)


def test_compile_refuses_before_any_tool_runs(tmp_path, monkeypatch):
    # No build at all: the argument check must come first.
    monkeypatch.setenv("FA_BUILD_DIR", str(tmp_path))
    with pytest.raises(ArgumentError, match="causal must be True or False"):
        fa_mlir.compile(causal="no", **STATIC)
    with pytest.raises(ArgumentError, match=r"unknown field\(s\) \['head_size'\]"):
        fa_mlir.compile(head_size=8)
    with pytest.raises(ArgumentError, match="cache must be True or False"):
        fa_mlir.compile(cache="no", **STATIC)
    with pytest.raises(ArgumentError, match="cache_dir must be a path"):
        fa_mlir.compile(cache_dir=3, **STATIC)
    with pytest.raises(UnsupportedError, match="unknown target"):
        fa_mlir.compile(target=["cpu"], **STATIC)
    with pytest.raises(ArgumentError, match="config must be a KernelConfig"):
        fa_mlir.compile(["f32"])
    with pytest.raises(ArgumentError, match="a config must be a dict"):
        KernelConfig.from_dict([("dtype", "f32")])


def test_canonical_values_are_kept():
    c = KernelConfig(**STATIC, window=[3, np.int64(0)], bias=[True, False],
                     scale=np.float32(0.25), causal=np.bool_(True))
    assert c.window == (3, 0) and type(c.window[1]) is int
    assert c.bias == (True, False)
    assert c.scale == 0.25 and type(c.scale) is float
    assert c.causal is True


@pytest.mark.parametrize("value", [
    1e-5, 1e30, 3e38, 3.4028234e38, -2.5e-7, 1.4e-45, 0.125, 1 / 3, 7.0, 1e-40])
def test_mlir_f32_is_the_float32_bit_pattern(value):
    text = arguments.mlir_f32(value)
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    assert text == f"0x{bits:08X} : f32"


FLOATS = [("scale", 1e-5), ("scale", 1e30), ("scale", 3e38),
          ("scale", -0.0625), ("softcap", 1e-5), ("softcap", 3e38),
          ("softcap", 1e30)]


@pytest.mark.parametrize("attr, value", FLOATS)
def test_floats_parse_in_fa_opt(attr, value):
    """The attribute fa-opt prints back is the float32 the caller asked for
    (before: '1e-05' did not parse)."""
    import subprocess
    cfg = AttentionConfig(seq_q=2, seq_k=3, head_dim=4, **{attr: value})
    proc = subprocess.run(
        [find_fa_opt(), "--mlir-print-op-generic"], input=forward_mlir(cfg),
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    want = arguments.f32(value)
    found = [line for line in proc.stdout.splitlines() if f"{attr} =" in line]
    assert found, proc.stdout
    printed = found[0].split(f"{attr} = ")[1].split(" : f32")[0]
    printed = (struct.unpack("<f", struct.pack("<I", int(printed, 16)))[0]
               if printed.startswith("0x") else arguments.f32(float(printed)))
    assert printed == want


@pytest.mark.parametrize("scale", [1e-5, 3e4])
def test_extreme_scale_computes(scale):
    """Small and large scales compile and agree with the float64 reference
    (with 3e4 the softmax is a hard max: the row's largest score wins)."""
    b = fa_mlir.compile(scale=scale, **STATIC)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 1, s, 8)).astype(np.float32)
               for s in (3, 5, 5))
    o, lse = b(query=q, key=k, value=v)
    cfg = AttentionConfig(seq_q=3, seq_k=5, head_dim=8,
                          scale=arguments.f32(scale))
    ro, rlse = reference.forward(cfg, q, k, v)
    assert np.allclose(o, ro, atol=1e-4), np.abs(o - ro).max()
    assert np.allclose(lse, rlse, rtol=1e-5, atol=1e-4)


torch = pytest.importorskip("torch")


def _qkv():
    return (torch.zeros(1, 2, 3, 8), torch.zeros(1, 2, 5, 8),
            torch.zeros(1, 2, 5, 8))


@pytest.mark.parametrize("kwargs, message", [
    (dict(causal="no"), "causal must be True or False"),
    (dict(return_lse="yes"), "return_lse must be True or False"),
    (dict(window=(1.7, 0.2)), r"window left must be an int in \[0, "),
    (dict(window=(True, 2)), r"window left must be an int in \[0, "),
    (dict(window=7), r"window must be \(left, right\)"),
    (dict(scale="0.5"), "scale must be a real number"),
    (dict(scale=1e39), "scale must be within float32's range"),
    (dict(softcap=math.inf), "softcap must be finite"),
    (dict(layout=["bhsd"]), "layout must be 'bhsd' or 'bshd'"),
    (dict(mask_alignment=0, causal=True), "mask_alignment must be None"),
])
def test_torch_attention_refuses(kwargs, message):
    import fa_mlir.torch as fat
    with pytest.raises(ArgumentError, match=message):
        fat.attention(*_qkv(), **kwargs)


def test_torch_launch_refuses_a_non_bundle():
    import fa_mlir.torch as fat
    with pytest.raises(ArgumentError, match="bundle must be a loaded bundle"):
        fat.launch("bundle", query=torch.zeros(1))

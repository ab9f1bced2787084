"""The GPU runtime half without a GPU: libfa_runtime through ctypes loads a
bundle, checks operands, and reports a missing driver as an exception."""
import os

import pytest

import fa_mlir
from fa_mlir import gpu_runtime
from fa_mlir.errors import ArgumentError, RuntimeLibraryError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLE = os.path.join(REPO, "test", "Runtime", "Inputs", "attention_fwd.json")
B, S, H, D = 2, 300, 4, 128


def operands(seq_k=S, dtype="bf16", addr=0x1000000):
    bshd = lambda s: ((B, s, H, D), (s * H * D, H * D, D, 1))  # noqa: E731
    ops = {}
    for i, (role, seq) in enumerate([("query", S), ("key", seq_k),
                                     ("value", seq_k), ("output", S)]):
        ops[role] = (addr * (i + 1), dtype, *bshd(seq))
    ops["lse"] = (addr * 9, "f32", (B, H, S), (H * S, S, 1))
    return ops


@pytest.fixture(scope="module")
def bundle():
    return fa_mlir.load_bundle(BUNDLE)


def test_load_without_gpu(bundle):
    assert bundle.target == "sm_90a"
    rt = bundle.runtime
    assert rt.kernel_name == "fa_fwd_bf16_d128" and rt.op == "attention_fwd"
    assert set(rt.required) >= {"query", "key", "value", "output", "lse"}
    assert '"head_dim"' in rt.config_json


def test_check_returns_grid(bundle):
    assert bundle.check(operands()) == (3, H, B)  # ceildiv(300, 128)


def test_operand_errors_name_the_operand(bundle):
    with pytest.raises(RuntimeLibraryError, match="operand 'key'") as e:
        bundle.check(operands(dtype="f16"))
    assert e.value.status == "FA_ERROR_TENSOR"
    ops = operands()
    del ops["value"]
    with pytest.raises(RuntimeLibraryError, match="missing operand 'value'"):
        bundle.check(ops)
    with pytest.raises(RuntimeLibraryError, match="not 16-byte aligned"):
        bundle.check(operands(addr=0x1000008))


def test_missing_driver_is_an_exception(bundle, monkeypatch):
    monkeypatch.setenv("FA_RUNTIME_LIBCUDA", "/nonexistent/libcuda.so.1")
    with pytest.raises(RuntimeLibraryError, match="cannot load the CUDA driver") as e:
        bundle.launch(operands())
    assert e.value.status == "FA_ERROR_NO_DRIVER"


def test_bad_bundle_file(tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text('{"format": "fa-kernel-bundle", "version": 1,}')
    with pytest.raises(RuntimeLibraryError) as e:
        gpu_runtime.RuntimeBundle(str(bad))
    assert e.value.status == "FA_ERROR_PARSE"


def test_runtime_half_imports_without_compiler_or_torch():
    # A fresh interpreter that cannot import torch or find fa-opt still loads
    # and checks GPU bundles.
    import subprocess
    import sys
    code = ("import sys; sys.modules['torch'] = None\n"
            "import fa_mlir\n"
            f"b = fa_mlir.load_bundle({BUNDLE!r})\n"
            "print(b.runtime.kernel_name)\n"
            "assert 'fa_mlir.compiler' not in sys.modules\n")
    lib = os.path.join(os.environ["FA_BUILD_DIR"], "lib", "libfa_runtime.so")
    env = dict(os.environ, FA_BUILD_DIR="/nonexistent", FA_RUNTIME_LIB=lib,
               PYTHONPATH=os.path.join(REPO, "python"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "fa_fwd_bf16_d128" in proc.stdout


BIAS_BUNDLE = os.path.join(REPO, "test", "Runtime", "Inputs",
                           "attention_fwd_bias.json")


def test_bias_strides_come_from_the_passed_strides():
    # The bundle takes stride(bias, batch|head|seq_q) params: libfa_runtime
    # evaluates them from the strides Python passes (size-1 dims are
    # broadcast), and bias becomes a required operand.
    bundle = fa_mlir.load_bundle(BIAS_BUNDLE)
    assert "bias" in bundle.runtime.required
    ops = operands()
    with pytest.raises(RuntimeLibraryError, match="missing operand 'bias'"):
        bundle.check(ops)
    for shape in [(B, H, S, S), (1, H, S, S), (B, 1, S, S), (1, 1, S, S)]:
        strides = (H * S * S, S * S, S, 1)
        if shape[0] == 1:
            strides = (0,) + strides[1:]  # what torch's expand leaves
        ops["bias"] = (0x90000, "f32", shape, strides)
        assert bundle.check(ops) == (3, H, B)


@pytest.mark.parametrize("edit, message", [
    (lambda ops: ops.update(query=(0x10000, "bf16", (B, S, H, D))), r"must be \(address"),
    (lambda ops: ops.update(query=(0x10000, "bf16", (B, S, H, D), (1, 1, 1))),
     "4 sizes but 3 strides"),
    (lambda ops: ops.update(query=(0x10000, "bf16", (B, S, H, 2 ** 64 + D),
                                   (S * H * D, H * D, D, 1))), "does not fit in int64"),
    (lambda ops: ops.update(query=(0x10000, "bf16", (B, S, H, 1.5), (1, 1, 1, 1))),
     "sizes must be integers"),
    (lambda ops: ops.update(query=(-16, "bf16", (B, S, H, D), (1, 1, 1, 1))),
     "negative address"),
    (lambda ops: ops.update(query=(0x10000, None, (B, S, H, D), (1, 1, 1, 1))),
     "dtype must be a name"),
    (lambda ops: ops.update({7: ops["query"]}), "roles must be strings"),
    (lambda ops: ops.update({"query\0x": ops["query"]}), "without NUL"),
])
def test_malformed_operands_are_argument_errors(bundle, edit, message):
    # ctypes would silently wrap, truncate or zero these; they must be
    # refused with the operand named before anything reaches the runtime.
    ops = operands()
    edit(ops)
    with pytest.raises(ArgumentError, match=message):
        bundle.check(ops)


def test_bad_num_sms_and_tensors_are_argument_errors(bundle):
    with pytest.raises(ArgumentError, match="num_sms must be in"):
        bundle.check(operands(), num_sms=0)
    with pytest.raises(ArgumentError, match="num_sms"):
        bundle.check(operands(), num_sms="many")
    with pytest.raises(ArgumentError, match="tensors must be a dict"):
        bundle.check([1, 2])


def test_pack_fills_what_the_checked_array_does():
    """fa_mlir.torch's launches use pack() (no per-operand Python checks):
    field for field the array the public launch builds."""
    def fields(arr):
        return [(t.role, t.data, t.dtype, t.rank, list(t.sizes),
                 list(t.strides)) for t in arr]
    ops = operands()
    ops["lse"] = (0x9000000, "f32", (B, H, S), (H * S, S, 1))
    assert fields(gpu_runtime.pack(ops)) == fields(
        gpu_runtime.tensor_array(ops))


def test_repack_is_pack_at_other_addresses():
    """gpu_runtime.repack (a remembered signature's template, only the
    data pointers written) gives pack()'s bytes for the moved operands."""
    ops = operands()
    moved = operands(addr=0x7000000)
    template = bytes(gpu_runtime.pack(ops))
    got = gpu_runtime.repack(template, [a for a, *_ in moved.values()])
    assert bytes(got) == bytes(gpu_runtime.pack(moved))
    assert bytes(gpu_runtime.pack(ops)) == template  # the template is intact

"""fa.combine's standalone sm_90a kernel on the host: KernelConfig op
"combine", the MLIR handed to fa-compile (verified by fa-opt, compiled by
the real fa-compile where the build has it, its bundle read by both
readers), the compile-and-cache route through the registry, and
combine_cuda (fa_mlir.torch._combine_cuda) on CPU tensors posing as CUDA up
to libfa_runtime's check of the operands it launches.

The launched kernel is test/Runtime/Inputs/combine.json (the compiler's
parameters over the stub cubin), which a mocked fa-compile "writes"; the
GPU check is python/tests/gpu/test_gpu_combine.py.
"""
import importlib.util
import json
import os

import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
from fa_mlir import aot, compiler, gpu_runtime  # noqa: E402
from fa_mlir import manifest as fa_manifest  # noqa: E402
from fa_mlir import registry as fa_registry  # noqa: E402
from fa_mlir.errors import (ArgumentError, RuntimeLibraryError,  # noqa: E402
                            UnsupportedError)
from fa_mlir.spec import KernelConfig  # noqa: E402
from fa_mlir.torch import _combine_cuda  # noqa: E402

from _cuda_route import (Routed, _strides, fa_opt_output,  # noqa: E402
                         needs_fa_opt)
from _fake_compiler import INPUTS, fake_fa_compile  # noqa: E402
from _fake_cuda import fake_cuda  # noqa: E402

# What the stub bundle was "compiled" for: bf16 rows of 128.
KCFG = KernelConfig(op="combine", dtype="bf16", head_dim=128)
N, ROWS, DIM = 4, 1001, 128
FA_COMPILE = os.path.join(compiler.build_dir(), "bin", "fa-compile")
needs_fa_compile = pytest.mark.skipif(not os.path.exists(FA_COMPILE),
                                      reason="no fa-compile in this build")


def operands(**changes):
    """{role: (address, dtype, sizes, strides)} of a valid launch of the
    stub bundle; `changes` replaces roles by (dtype, shape)."""
    shapes = {"partial_output": ("f32", (N, ROWS, DIM)),
              "partial_lse": ("f32", (N, ROWS)),
              "output": ("bf16", (ROWS, DIM)), "lse": ("f32", (ROWS,))}
    shapes.update(changes)
    return {r: (0x10000000 * (i + 1), dtype, shape, _strides(shape))
            for i, (r, (dtype, shape)) in enumerate(shapes.items())}


# -- KernelConfig -----------------------------------------------------------

def test_config_round_trips_and_keeps_other_keys():
    assert KernelConfig.from_dict(KCFG.to_dict()) == KCFG
    assert KCFG.to_dict()["op"] == "combine"
    # No new field: every other configuration keeps its key.
    assert set(KCFG.to_dict()) == set(KernelConfig().to_dict())
    assert KernelConfig(dtype="bf16", head_dim=128, op="kvcache",
                        layout="bshd").key() == (
        '{"batch": null, "bias": null, "bias_dtype": null, "causal": false, '
        '"deterministic": false, "dtype": "bf16", "head_dim": 128, '
        '"head_dim_v": null, "heads_kv": null, "heads_q": null, "layout": '
        '"bshd", "mask_alignment": null, "num_splits": 0, "op": "kvcache", '
        '"return_lse": true, "scale": null, "seq_k": null, "seq_q": null, '
        '"softcap": null, "window": null}')


@pytest.mark.parametrize("change, extra", [
    (dict(causal=True), "causal"), (dict(layout="bshd"), "layout"),
    (dict(num_splits=2), "num_splits"), (dict(return_lse=False), "return_lse"),
    (dict(heads_q=8, heads_kv=8), "heads_kv, heads_q"),
    (dict(head_dim_v=64), "head_dim_v"), (dict(scale=0.5), "scale"),
])
def test_config_refuses_attention_fields(change, extra):
    with pytest.raises(ArgumentError, match="op combine takes only dtype "
                       r"\(the output's\) and head_dim \(the row length\); "
                       f"got {extra}$"):
        KCFG.with_(**change)


def test_sm90a_refuses_rows_longer_than_512():
    KCFG.with_(head_dim=512).check_target("sm_90a")
    with pytest.raises(UnsupportedError, match="the combine kernel takes "
                       "head_dim .the row length. up to 512, got 520"):
        KCFG.with_(head_dim=520).check_target("sm_90a")


def test_manifest_schema_takes_op_combine():
    doc = {"format": "fa-mlir-bundle", "version": 2, "target": "sm_90a",
           "op": "combine", "config": KCFG.to_dict(), "compiler": {},
           "files": {"a.json": "0" * 64}, "digest": "0" * 64,
           "gpu": {"bundle": "a.json", "source": "kernel.mlir"}}
    assert fa_manifest.schema_errors(doc, "manifest.schema.json") == []


def test_bundle_schema_and_runtime_agree_on_combine():
    # No layout for op combine; f32 partials; any other op needs a layout.
    stub = fa_manifest.read_json(os.path.join(INPUTS, "combine.json"),
                                 "bundle")
    assert fa_manifest.schema_errors(stub, "kernel-bundle.schema.json") == []
    bf16 = dict(stub, config=dict(stub["config"], dtype="bf16"))
    assert fa_manifest.schema_errors(bf16, "kernel-bundle.schema.json")
    other = dict(stub, op="attention_fwd")
    assert fa_manifest.schema_errors(other, "kernel-bundle.schema.json")
    assert gpu_runtime.RuntimeBundle(
        os.path.join(INPUTS, "combine.json")).op == "combine"


# -- the MLIR fa-compile gets -------------------------------------------------

def test_combine_mlir():
    assert compiler.sm90a_combine_mlir(KCFG) == (
        "func.func @combine(%partial_output: tensor<?x?x128xf32>, "
        "%partial_lse: tensor<?x?xf32>) -> (tensor<?x128xbf16>, "
        "tensor<?xf32>) {\n"
        "  %output_r, %lse_r = fa.combine %partial_output, %partial_lse : "
        "tensor<?x?x128xf32>, tensor<?x?xf32> -> tensor<?x128xbf16>, "
        "tensor<?xf32>\n"
        "  return %output_r, %lse_r : tensor<?x128xbf16>, tensor<?xf32>\n}\n")


@needs_fa_opt
@pytest.mark.parametrize("dtype, dim", [("f32", 1), ("f16", 72),
                                        ("bf16", 512)])
def test_mlir_verifies(dtype, dim, tmp_path):
    text = compiler.sm90a_combine_mlir(KCFG.with_(dtype=dtype, head_dim=dim))
    assert "fa.combine" in fa_opt_output(text, tmp_path)


def test_cpu_target_refuses_combine(tmp_path):
    with pytest.raises(UnsupportedError, match="target cpu has no combine "
                       "kernel .fa.combine lowers for sm_90a.; on the CPU "
                       "fa_mlir.torch.combine compiles"):
        compiler._build_cpu(KCFG, str(tmp_path))


def _bundle_doc(path):
    bundle = fa_mlir.load_bundle(path)
    return bundle, fa_manifest.read_json(bundle.json_path, "bundle")


@needs_fa_compile
@pytest.mark.parametrize("kcfg", [KCFG, KCFG.with_(dtype="f32", head_dim=72)],
                         ids=["bf16_d128", "f32_d72"])
def test_compiler_bundle_passes_both_readers(kcfg, tmp_path):
    # The real fa-compile (and ptxas) on the MLIR above.
    compiler.build_bundle(kcfg, "sm_90a", str(tmp_path / "b"))
    bundle, doc = _bundle_doc(str(tmp_path / "b"))
    assert bundle.config == kcfg and not bundle.is_sequence
    assert doc["kernel"] == f"fa_combine_d{kcfg.head_dim}_{kcfg.dtype}"
    assert bundle.runtime.op == "combine"
    ops = operands(partial_output=("f32", (N, ROWS, kcfg.head_dim)),
                   output=(kcfg.dtype, (ROWS, kcfg.head_dim)))
    assert bundle.runtime.check(ops) == (251, 1, 1)
    with open(os.path.join(str(tmp_path / "b"), "kernel.mlir")) as f:
        assert f.read() == compiler.sm90a_combine_mlir(kcfg)


@needs_fa_compile
def test_stub_bundle_has_the_compilers_parameters(tmp_path):
    # test/Runtime/Inputs/combine.json stands for fa-compile's bundle in the
    # runtime's tests and here: it must launch what the compiler writes.
    compiler.build_bundle(KCFG, "sm_90a", str(tmp_path / "b"))
    _, doc = _bundle_doc(str(tmp_path / "b"))
    stub = fa_manifest.read_json(os.path.join(INPUTS, "combine.json"),
                                 "bundle")
    for key in ("op", "config", "block", "grid", "params",
                "shared_memory_bytes"):
        assert doc[key] == stub[key], key


# -- combine_cuda ---------------------------------------------------------------

@pytest.fixture
def built(monkeypatch, tmp_path):
    """The bundle compile() would make, with the stub bundle as
    fa-compile's output."""
    fake_fa_compile(monkeypatch, ["combine.json", "stub_kernels.cubin"])
    out = str(tmp_path / "combine")
    compiler.build_bundle(KCFG, "sm_90a", out, version={"fa-compile": "x"})
    return fa_mlir.load_bundle(out)


def routed(monkeypatch, bundle):
    route = Routed(monkeypatch, bundle)
    monkeypatch.setattr(_combine_cuda, "get_bundle", route._get)
    return route


def partials(n=N, rows=ROWS, dim=DIM):
    return (fake_cuda(torch.randn(n, rows, dim)),
            fake_cuda(torch.randn(n, rows)))


def test_combine_cuda_launches_the_bundle(monkeypatch, built):
    route = routed(monkeypatch, built)
    po, pl = partials()
    out, lse = _combine_cuda.combine_cuda(po, pl, torch.bfloat16)
    assert route.asked == [KCFG]
    assert out.shape == (ROWS, DIM) and out.dtype == torch.bfloat16
    assert lse.shape == (ROWS,) and lse.dtype == torch.float32
    assert out.device.type == "cuda" and lse.device.type == "cuda"
    # One launch of these tensors (the partials as given), which
    # libfa_runtime accepts: a warp per row, four rows per CTA.
    [launched] = route.launched
    assert launched["partial_output"] is po and launched["partial_lse"] is pl
    assert launched["output"] is out and launched["lse"] is lse
    assert route.grids == [(251, 1, 1)]


@pytest.mark.parametrize("dtype, name", [(torch.float32, "f32"),
                                         (torch.float16, "f16"),
                                         (torch.bfloat16, "bf16")])
def test_combine_cuda_config_per_row_and_dtype(monkeypatch, dtype, name):
    route = routed(monkeypatch, None)  # no bundle: stops at the lookup
    with pytest.raises(LookupError):
        _combine_cuda.combine_cuda(*partials(dim=72), dtype)
    assert route.asked == [KernelConfig(op="combine", dtype=name,
                                        head_dim=72)]


def test_runtime_refuses_operands_of_another_kernel(built):
    # A caller past combine.py's checks still meets the runtime's, naming
    # the operand.
    for change, message in [
            (dict(partial_output=("bf16", (N, ROWS, DIM))),
             "operand 'partial_output': dtype is bf16, expected f32"),
            (dict(output=("f16", (ROWS, DIM))),
             "operand 'output': dtype is f16, expected bf16"),
            (dict(partial_output=("f32", (N, ROWS, 64))),
             r"operand 'partial_output': dimension 2 \(dim\) is 64, "
             r"expected 128"),
            (dict(partial_lse=("f32", (N - 1, ROWS))),
             r"operand 'partial_lse': dimension 0 \(split\) is 3, "
             r"expected 4 \(splits, from 'partial_output'\)")]:
        with pytest.raises(RuntimeLibraryError, match=message):
            built.check(operands(**change))


def test_compiled_once_then_cached(monkeypatch, tmp_path):
    # The registry's route for a GPU config: compile with fa-compile (here
    # the mock, given the MLIR above), publish into the cache, and load
    # from the cache after the in-process memo is dropped.
    fa_registry.forget()
    monkeypatch.setattr(compiler, "target_version", lambda t: {"t": t})
    monkeypatch.setenv("FA_MLIR_BUNDLE_PATH", "")
    monkeypatch.setenv("FA_MLIR_CACHE", str(tmp_path))
    monkeypatch.setattr(compiler, "find_fa_opt", lambda: "fa-opt")
    calls = fake_fa_compile(monkeypatch, ["combine.json",
                                          "stub_kernels.cubin"])
    bundle = fa_registry.get_bundle(KCFG, "sm_90a")
    assert len(calls) == 1 and bundle.config == KCFG
    with open(os.path.join(bundle.path, "kernel.mlir")) as f:
        assert f.read() == compiler.sm90a_combine_mlir(KCFG)
    fa_registry.forget()
    assert fa_registry.get_bundle(KCFG, "sm_90a").path == bundle.path
    assert len(calls) == 1
    fa_registry.forget()


def test_compiler_refusal_is_unsupported(monkeypatch, tmp_path):
    fake_fa_compile(monkeypatch, rc=1, stderr=(
        "error: 'fa.combine' op convert-fa-to-nvvm: 'partial_output' dim "
        "(its last dimension) must be static and in [1, 512]"))
    with pytest.raises(UnsupportedError, match="fa-compile failed for "
                       "sm_90a(.|\n)*must be static"):
        compiler._build_sm90a(KCFG, str(tmp_path))


# -- the GPU test's kernels -----------------------------------------------------

def test_gpu_test_kernels_are_built_ahead_of_time():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu")
    spec = importlib.util.spec_from_file_location(
        "fa_test_gpu_combine", os.path.join(path, "test_gpu_combine.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(os.path.join(path, "configs.json")) as f:
        built_ahead = {k for k, t in aot.expand(json.load(f), "sm_90a")
                       if t == "sm_90a"}
    dtypes = {torch.float32: "f32", torch.float16: "f16",
              torch.bfloat16: "bf16"}
    for n, rows, dim, dtype in module.CASES:
        kcfg = KernelConfig(op="combine", dtype=dtypes[dtype], head_dim=dim)
        assert kcfg in built_ahead, kcfg.key()

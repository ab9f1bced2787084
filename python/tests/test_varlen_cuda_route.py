"""Ragged batches (fa.attention_varlen) on sm_90a, on the host: the roles
cu_seqlens_q/cu_seqlens_k and the symbol num_seqs as both readers
(libfa_runtime's BundleSpec and fa_mlir's signature/config) know them, the
KernelConfig and the MLIR it generates, and varlen_attention's CUDA route
(on CPU tensors posing as CUDA) up to libfa_runtime's check of the operands
it launches, forward and backward (one fa.attention_varlen_grad call for
the whole batch).

The kernel is test/Runtime/Inputs/varlen.json (a bundle over the stub
cubin, docs/BundleFormat.md *Ragged batches (varlen)*), which a mocked
fa-compile "writes"; the launch itself is python/tests/gpu/test_gpu_varlen.py.
"""
import os

import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import compiler, config as fa_config, gpu_runtime  # noqa: E402
from fa_mlir import manifest as fa_manifest  # noqa: E402
from fa_mlir import registry as fa_registry  # noqa: E402
from fa_mlir.errors import (ArgumentError, RuntimeLibraryError,  # noqa: E402
                            UnsupportedError)
from fa_mlir.signature import bind, signature, symbols_of  # noqa: E402
from fa_mlir.spec import KernelConfig  # noqa: E402
from fa_mlir.torch import _ops  # noqa: E402

from _cuda_route import (Routed, fa_opt_output, needs_fa_opt,  # noqa: E402
                         refusing_compiler, runtime_operands)
from _fake_compiler import INPUTS, fake_fa_compile  # noqa: E402
from _fake_cuda import fake_cuda, sync_trap  # noqa: E402

# What the stub bundle was "compiled" for (its config: bf16, d128, causal).
KCFG = KernelConfig(op="varlen", dtype="bf16", head_dim=128, layout="bshd",
                    causal=True, mask_alignment="bottom_right")
# Distinct sizes, so that a dim read in the wrong place shows: 4 sequences.
SIZES = dict(batch=1, seq_q=300, seq_k=170, heads_q=8, heads_kv=2,
             head_dim=128, head_dim_v=128, seq_bound=5)
LENGTHS_Q = [100, 0, 130, 70]   # one with no query
LENGTHS_K = [50, 20, 0, 100]    # one with no key


def runtime_bundle():
    return gpu_runtime.RuntimeBundle(os.path.join(INPUTS, "varlen.json"))


def ops(**changes):
    return runtime_operands(KCFG, SIZES, **changes)


# -- KernelConfig -----------------------------------------------------------

def test_config_round_trips_and_keeps_other_keys():
    assert KernelConfig.from_dict(KCFG.to_dict()) == KCFG
    assert KCFG.to_dict()["op"] == "varlen"
    # No new field: every other configuration keeps its key.
    assert set(KCFG.to_dict()) == set(KernelConfig().to_dict())
    assert KCFG.with_(heads_q=8, heads_kv=2).dynamic == ("batch", "seq")


@pytest.mark.parametrize("change, message", [
    (dict(layout="bhsd"), "op varlen takes layout bshd, got 'bhsd'"),
    (dict(bias=(True, True)), "op varlen takes no bias"),
    (dict(return_lse=False), r"op varlen always returns the LSE"),
    (dict(num_splits=2), "op varlen takes no num_splits"),
    (dict(batch=4), "op varlen takes no batch/seq_q/seq_k"),
    (dict(seq_q=128, seq_k=128), "op varlen takes no batch/seq_q/seq_k"),
    (dict(page_size=64), "page_size and append are op kvcache options"),
    (dict(causal=False), "mask_alignment needs causal or window"),
])
def test_config_refuses(change, message):
    with pytest.raises(ArgumentError, match=message):
        KCFG.with_(**change)


def test_kvcache_still_refuses_as_before():
    # The checks the serving ops share keep their messages.
    base = KernelConfig(op="kvcache", dtype="bf16", head_dim=128,
                        layout="bshd")
    with pytest.raises(ArgumentError, match="op kvcache takes layout bshd"):
        base.with_(layout="bhsd")
    with pytest.raises(ArgumentError, match="op kvcache always returns"):
        base.with_(return_lse=False)


def test_manifest_schema_takes_op_varlen():
    doc = {"format": "fa-mlir-bundle", "version": 2, "target": "sm_90a",
           "op": "varlen", "config": KCFG.to_dict(), "compiler": {},
           "files": {"a.json": "0" * 64}, "digest": "0" * 64,
           "gpu": {"bundle": "a.json", "source": "kernel.mlir"}}
    assert fa_manifest.schema_errors(doc, "manifest.schema.json") == []
    doc["op"] = "ragged"
    assert fa_manifest.schema_errors(doc, "manifest.schema.json")


# -- the readers --------------------------------------------------------------

def test_signature():
    sig = {a["role"]: a for a in signature(KCFG.with_(heads_q=8, heads_kv=2))}
    assert list(sig) == ["query", "key", "value", "cu_seqlens_q",
                         "cu_seqlens_k", "output", "lse"]
    # The packed tensors are bshd with batch 1 (static).
    assert sig["query"]["shape"] == [1, "seq_q", 8, 128]
    assert sig["value"]["shape"] == [1, "seq_k", 2, 128]
    assert sig["lse"] == {"role": "lse", "dtype": "f32",
                          "shape": [1, 8, "seq_q"], "output": True}
    assert sig["cu_seqlens_k"] == {"role": "cu_seqlens_k", "dtype": "i32",
                                   "shape": ["seq_bound"], "output": False}


def test_both_readers_require_the_same_operands():
    ins, outs = fa_config.op_roles("varlen", KCFG.attention_config())
    rt = runtime_bundle()
    assert rt.op == "attention_varlen"
    assert set(rt.required) == set(ins + outs)
    for role in ("cu_seqlens_q", "cu_seqlens_k"):
        missing = {r: v for r, v in ops().items() if r != role}
        with pytest.raises(RuntimeLibraryError,
                           match=f"missing operand '{role}'"):
            rt.check(missing)
        with pytest.raises(ArgumentError, match=f"missing operand '{role}'"):
            bind(signature(KCFG), {r: v[2] for r, v in missing.items()})


def test_both_readers_agree_on_shapes_symbols_and_grid():
    # Python shapes every operand from its reader; the runtime accepts them,
    # and its grid is Python's evaluation of the bundle's grid with
    # Python's symbols (num_seqs included).
    rt = runtime_bundle()
    shapes = {r: v[2] for r, v in ops().items()}
    symbols = symbols_of(KCFG, shapes)
    assert symbols["num_seqs"] == 4 and "seq_bound" not in symbols
    assert bind(signature(KCFG), shapes)["num_seqs"] == 4
    grid = fa_manifest.read_json(os.path.join(INPUTS, "varlen.json"),
                                 "bundle")["grid"]
    want = tuple(gpu_runtime.eval_int_expr(e, symbols) for e in grid)
    assert want == (3 + 4, 8, 1)  # ceildiv(300, 128) + num_seqs
    assert rt.check(ops()) == want


# Each rejected operand: the runtime's message and Python's (bind), both
# naming the operand.
BAD = [
    (dict(cu_seqlens_k=("i32", (6,))),
     r"operand 'cu_seqlens_k': has 6 entries, expected 5 \(num_seqs \+ 1, "
     r"num_seqs = 4 from 'cu_seqlens_q'\)",
     r"operand 'cu_seqlens_k' has 6 entries, expected 5 \(num_seqs \+ 1, "
     r"num_seqs = 4 from 'cu_seqlens_q'\)"),
    (dict(cu_seqlens_q=("i32", (0,))),
     r"operand 'cu_seqlens_q': needs at least one entry",
     r"operand 'cu_seqlens_q' needs at least one entry"),
    (dict(cu_seqlens_k=("i32", (0,))),
     r"operand 'cu_seqlens_k': needs at least one entry",
     r"operand 'cu_seqlens_k' needs at least one entry"),
    (dict(cu_seqlens_q=("i32", (1, 5))),
     r"operand 'cu_seqlens_q': expected rank 1 \[seq_bound\], got rank 2",
     r"operand 'cu_seqlens_q' has rank 2, expected 1"),
    (dict(query=("bf16", (2, 300, 8, 128))),
     r"operand 'query': dimension 0 \(batch\) is 2, expected 1",
     r"operand 'query' dimension 0 is 2, expected 1"),
]


@pytest.mark.parametrize("change, runtime_message, python_message", BAD)
def test_readers_refuse_alike(change, runtime_message, python_message):
    with pytest.raises(RuntimeLibraryError, match=runtime_message):
        runtime_bundle().check(ops(**change))
    with pytest.raises(ArgumentError, match=python_message):
        bind(signature(KCFG), {r: v[2] for r, v in ops(**change).items()})


@pytest.mark.parametrize("role, dtype", [("cu_seqlens_q", "i64"),
                                         ("cu_seqlens_k", "f32")])
def test_runtime_refuses_bounds_of_another_dtype(role, dtype):
    with pytest.raises(RuntimeLibraryError,
                       match=f"operand '{role}': dtype is {dtype}, expected "
                       "i32"):
        runtime_bundle().check(ops(**{role: (dtype, (5,))}))


# -- the MLIR fa-compile gets -------------------------------------------------

def test_varlen_mlir():
    text = compiler._sm90a_mlir(KCFG.with_(heads_q=8, heads_kv=2,
                                           window=(100, 0), softcap=30.0))
    assert text.startswith(
        "func.func @attention_varlen(%query: tensor<?x8x128xbf16>, %key: "
        "tensor<?x2x128xbf16>, %value: tensor<?x2x128xbf16>, %cu_seqlens_q: "
        "tensor<?xi32>, %cu_seqlens_k: tensor<?xi32>) -> "
        "(tensor<?x8x128xbf16>, tensor<8x?xf32>)")
    assert ("%output_r, %lse_r = fa.attention_varlen %query, %key, %value, "
            "%cu_seqlens_q, %cu_seqlens_k : tensor<?x8x128xbf16>, "
            "tensor<?x2x128xbf16>, tensor<?x2x128xbf16>, tensor<?xi32>, "
            "tensor<?xi32> {causal, mask_alignment = #fa<mask_alignment "
            "bottom_right>, window = array<i64: 100, 0>, softcap = "
            "0x41F00000 : f32} -> tensor<?x8x128xbf16>, tensor<8x?xf32>\n"
            ) in text
    # No layout attribute (the op has none), head_dim_v in V and O.
    assert "layout" not in text
    dv = compiler._sm90a_mlir(KCFG.with_(head_dim=192, head_dim_v=128,
                                         causal=False, mask_alignment=None))
    assert "%value: tensor<?x?x128xbf16>" in dv
    assert "-> tensor<?x?x128xbf16>, tensor<?x?xf32>\n" in dv


@needs_fa_opt
@pytest.mark.parametrize("kcfg", [
    KCFG, KCFG.with_(heads_q=8, heads_kv=2, window=(100, 0), softcap=30.0,
                     scale=0.1),
    KCFG.with_(dtype="f16", head_dim=64, causal=False, mask_alignment=None),
    KCFG.with_(mask_alignment="top_left", heads_q=4, heads_kv=4),
], ids=["causal_br", "gqa_window_softcap", "f16_d64", "top_left"])
def test_mlir_verifies(kcfg, tmp_path):
    text = compiler._sm90a_mlir(kcfg)
    assert "fa.attention_varlen" in fa_opt_output(text, tmp_path)


def test_cpu_target_refuses_varlen(tmp_path):
    with pytest.raises(UnsupportedError, match="target cpu has no varlen "
                       "kernel .fa.attention_varlen lowers for sm_90a.; on "
                       "the CPU fa_mlir.torch.varlen_attention runs"):
        compiler._build_cpu(KCFG, str(tmp_path))


def test_compiler_refusal_is_unsupported(monkeypatch, tmp_path):
    msg = ("error: 'fa.attention_varlen' op convert-fa-to-nvvm: no sm_90a "
           "kernel for this op yet")
    fake_fa_compile(monkeypatch, rc=1, stderr=msg)
    with pytest.raises(UnsupportedError, match="fa-compile failed for sm_90a"
                       "(.|\n)*no sm_90a kernel for this op yet"):
        compiler._build_sm90a(KCFG, str(tmp_path))


@pytest.mark.skipif(not os.path.exists(os.path.join(
    compiler.build_dir(), "bin", "fa-compile")),
    reason="no fa-compile in this build")
def test_compiler_bundle_passes_both_readers(tmp_path):
    # What fa-compile writes once convert-fa-to-nvvm lowers the op.
    try:
        compiler.build_bundle(KCFG, "sm_90a", str(tmp_path / "b"))
    except UnsupportedError as e:
        if "no sm_90a kernel" not in str(e):
            raise
        pytest.skip("this fa-compile does not lower fa.attention_varlen yet")
    bundle = fa_mlir.load_bundle(str(tmp_path / "b"))
    # Causal: the dynamic scheduler's one-kernel sequence (its tile counter
    # is a workspace the sequence allocates, not an operand).
    assert bundle.config == KCFG and bundle.is_sequence
    assert bundle.runtime.op == "attention_varlen"
    assert all(n >= 1 for n in bundle.runtime.check(ops()))


BACKWARD_KCFG = KernelConfig(op="varlen_backward", dtype="bf16", head_dim=128,
                             layout="bshd", causal=True,
                             mask_alignment="bottom_right")
needs_fa_compile = pytest.mark.skipif(not os.path.exists(os.path.join(
    compiler.build_dir(), "bin", "fa-compile")),
    reason="no fa-compile in this build")


@pytest.fixture(scope="module")
def backward_bundle(tmp_path_factory):
    """fa-compile's fa.attention_varlen_grad sequence for BACKWARD_KCFG
    (compiled once for the module)."""
    out = str(tmp_path_factory.mktemp("varlen_bwd") / "b")
    compiler.build_bundle(BACKWARD_KCFG, "sm_90a", out)
    return fa_mlir.load_bundle(out)


@needs_fa_compile
def test_compiler_backward_sequence_passes_both_readers(backward_bundle):
    # A sequence both readers take, requiring the bounds, its grid and
    # workspace over the padded blocks.
    bundle = backward_bundle
    assert bundle.config == BACKWARD_KCFG and bundle.is_sequence
    assert bundle.runtime.op == "attention_varlen_bwd"
    assert {"cu_seqlens_q", "cu_seqlens_k"} <= set(bundle.runtime.required)
    tensors = runtime_operands(BACKWARD_KCFG, SIZES)
    symbols = symbols_of(BACKWARD_KCFG, {r: t[2] for r, t in tensors.items()})
    assert symbols["num_seqs"] == 4 and symbols["batch"] == 1
    shapes = bundle.workspace_shapes(symbols)
    # (ceildiv(300, 64) + 4 + 1) * 64 padded rows per head.
    assert tuple(shapes["dq_accum"][0]) == (1, 8, 640, 128)
    assert tuple(shapes["lse_log2"][0]) == (1, 8, 640)
    ops = dict(tensors)
    for i, (name, (sizes, dtype)) in enumerate(shapes.items()):
        ops[name] = (0x100000000 * (i + 1), dtype, tuple(sizes),
                     tuple(int(x) for x in torch.empty(sizes).stride()))
    assert all(n >= 1 for n in bundle.runtime.check(ops))


# -- varlen_attention on CUDA -------------------------------------------------

@pytest.fixture
def built(monkeypatch, tmp_path):
    """The bundle directory compile() would make, with the stub bundle as
    fa-compile's output."""
    fake_fa_compile(monkeypatch, ["varlen.json", "stub_kernels.cubin"])
    out = str(tmp_path / "varlen")
    compiler.build_bundle(KCFG, "sm_90a", out, version={"fa-compile": "x"})
    return fa_mlir.load_bundle(out)


def bounds(lengths):
    cu = [0]
    for n in lengths:
        cu.append(cu[-1] + n)
    return fake_cuda(torch.tensor(cu, dtype=torch.int32))


def packed_inputs(dtype=torch.bfloat16, seed=0, heads=(8, 2), dim=128):
    """q [300, 8, 128], k/v [170, 2, 128] posing as CUDA, and the bounds."""
    g = torch.Generator().manual_seed(seed)

    def randn(*shape):
        return fake_cuda(torch.randn(*shape, generator=g).to(dtype))
    hq, hkv = heads
    return (randn(sum(LENGTHS_Q), hq, dim), randn(sum(LENGTHS_K), hkv, dim),
            randn(sum(LENGTHS_K), hkv, dim), bounds(LENGTHS_Q),
            bounds(LENGTHS_K))


def call(q, k, v, cu_q, cu_k, **options):
    options = {"causal": True, "mask_alignment": "bottom_right",
               "return_lse": True, **options}
    return fat.varlen_attention(q, k, v, cu_q, cu_k, 130, 100, **options)


def test_cuda_launches_once_and_passes_the_runtime_check(monkeypatch, built):
    routed = Routed(monkeypatch, built)
    q, k, v, cu_q, cu_k = packed_inputs()
    out, lse = call(q, k, v, cu_q, cu_k)
    (asked,) = routed.asked
    assert asked == KCFG.with_(heads_q=8, heads_kv=2)
    (tensors,) = routed.launched
    # The packed tensors as [1, total, H, D] views of the caller's (dense).
    assert tensors["query"].shape == (1, 300, 8, 128)
    assert tensors["query"].data_ptr() == q.data_ptr()
    assert tensors["key"].shape == tensors["value"].shape == (1, 170, 2, 128)
    assert tensors["cu_seqlens_q"] is cu_q
    assert tensors["cu_seqlens_k"].dtype == torch.int32
    assert tensors["output"].shape == (1, 300, 8, 128)
    assert tensors["lse"].shape == (1, 8, 300)
    assert tensors["lse"].dtype == torch.float32
    # ceildiv(300, 128) + 4 sequences, heads_q, 1.
    assert routed.grids == [(7, 8, 1)]
    assert out.shape == (300, 8, 128) and lse.shape == (8, 300)
    assert out.data_ptr() == tensors["output"].data_ptr()
    assert lse.data_ptr() == tensors["lse"].data_ptr()


def test_cuda_f16_and_options_reach_the_config(monkeypatch):
    routed = Routed(monkeypatch)
    q, k, v, cu_q, cu_k = packed_inputs(torch.float16, dim=64, heads=(4, 4))
    with pytest.raises(LookupError):
        call(q, k, v, cu_q, cu_k, causal=False, mask_alignment="top_left",
             window=(32, None), softcap=20.0, scale=0.25)
    (asked,) = routed.asked
    assert asked == KernelConfig(
        op="varlen", dtype="f16", head_dim=64, layout="bshd",
        mask_alignment="top_left", window=(32, _ops.UNBOUNDED), softcap=20.0,
        scale=0.25, heads_q=4, heads_kv=4)
    # An alignment with nothing to align is dropped, as attention() does.
    with pytest.raises(LookupError):
        call(q, k, v, cu_q, cu_k, causal=False)
    assert routed.asked[1].mask_alignment is None


def test_cuda_strided_inputs(monkeypatch, built):
    routed = Routed(monkeypatch, built)
    q, k, v, cu_q, cu_k = packed_inputs()
    # Heads-major storage, or padded head rows: H * D is not dense, so the
    # kernel gets a contiguous copy (they are inputs).
    heads_major = fake_cuda(torch.zeros(8, 300, 128, dtype=torch.bfloat16))
    padded = fake_cuda(torch.zeros(170, 2, 256, dtype=torch.bfloat16))
    call(heads_major.transpose(0, 1), k, padded[:, :, :128], cu_q, cu_k)
    (tensors,) = routed.launched
    assert tensors["query"].is_contiguous()
    assert tensors["query"].data_ptr() != heads_major.data_ptr()
    assert tensors["value"].is_contiguous()
    # Heads sliced out of a wider tensor are still dense in H and D: the
    # caller's memory is passed as it is, with its token stride.
    wide = fake_cuda(torch.zeros(300, 16, 128, dtype=torch.bfloat16))
    rows = fake_cuda(torch.zeros(170, 3, 128, dtype=torch.bfloat16))[:, :2]
    call(wide[:, :8], rows, v, cu_q, cu_k)
    assert routed.launched[1]["query"].data_ptr() == wide.data_ptr()
    assert routed.launched[1]["query"].stride()[1:] == (2048, 128, 1)
    assert routed.launched[1]["key"].data_ptr() == rows.data_ptr()
    assert routed.launched[1]["key"].stride()[1:] == (384, 128, 1)


@pytest.mark.parametrize("edit, message", [
    (lambda i: i.update(cu_q=i["cu_q"].long()),
     "cu_seqlens_q has dtype torch.int64, expected torch.int32"),
    (lambda i: i.update(cu_k=torch.tensor([0, 50, 70, 70, 170],
                                          dtype=torch.int32)),
     "cu_seqlens_k is on cpu, expected cuda:0"),
    (lambda i: i.update(cu_k=bounds([50, 20, 100])),
     "cu_seqlens_q has 5 entries, cu_seqlens_k 4"),
    (lambda i: i.update(k=i["k"][:, :1]),
     r"v dimension 1 is 2, expected 1 \(from k\)"),
    (lambda i: i.update(k=i["k"].half()),
     "k has dtype torch.float16, expected torch.bfloat16"),
    (lambda i: i.update(q=i["q"][:, :3]),
     "q has 3 heads, not a multiple of k's 2"),
])
def test_cuda_argument_errors_name_the_tensor(monkeypatch, edit, message):
    routed = Routed(monkeypatch)
    q, k, v, cu_q, cu_k = packed_inputs()
    i = dict(q=q, k=k, v=v, cu_q=cu_q, cu_k=cu_k)
    edit(i)
    with pytest.raises(ArgumentError, match=message):
        call(i["q"], i["k"], i["v"], i["cu_q"], i["cu_k"])
    assert routed.asked == []


# Checks of the bounds' values: a device->host read, so on CUDA only with
# FA_MLIR_DEBUG_CHECKS=1.
VALUE_ERRORS = [
    (lambda i: i.update(cu_q=bounds([100, 0, 130, 0])),
     r"cu_seqlens_q\[-1\] is 230, expected 300"),
    (lambda i: i.update(cu_k=fake_cuda(torch.tensor([0, 50, 40, 70, 170],
                                                    dtype=torch.int32))),
     "cu_seqlens_k must be non-decreasing"),
    (lambda i: i.update(cu_q=bounds([200, 0, 30, 70])),
     "sequence 0 of cu_seqlens_q has length 200, more than max_seqlen"),
]


@pytest.mark.parametrize("edit, message", VALUE_ERRORS)
def test_cuda_value_checks_only_when_asked(monkeypatch, built, edit,
                                           message):
    routed = Routed(monkeypatch, built)
    q, k, v, cu_q, cu_k = packed_inputs()
    i = dict(q=q, k=k, v=v, cu_q=cu_q, cu_k=cu_k)
    edit(i)
    monkeypatch.setenv("FA_MLIR_DEBUG_CHECKS", "1")
    with pytest.raises(ArgumentError, match=message):
        call(i["q"], i["k"], i["v"], i["cu_q"], i["cu_k"])
    assert routed.asked == []
    # Without the flag the values are not read: the kernel trusts them.
    monkeypatch.delenv("FA_MLIR_DEBUG_CHECKS")
    call(i["q"], i["k"], i["v"], i["cu_q"], i["cu_k"])
    assert len(routed.launched) == 1


def test_cuda_forward_reads_nothing_back(monkeypatch, built):
    """No device->host sync: every Tensor method that reads values back
    raises on these inputs (and on what is computed from them), and the
    call still launches once; nor does the backward, one varlen backward
    for the whole batch."""
    routed = Routed(monkeypatch, built)
    backward = _VarlenBackward(monkeypatch)
    q, k, v, cu_q, cu_k = (sync_trap(t) for t in packed_inputs())
    out, lse = call(q, k, v, cu_q, cu_k)
    assert len(routed.launched) == 1 and out.shape == (300, 8, 128)
    call(q.requires_grad_(), k, v, cu_q, cu_k)[0].sum().backward()
    assert len(backward.calls) == 1 and q.grad.shape == q.shape


def test_cuda_no_query_launches_nothing(monkeypatch):
    routed = Routed(monkeypatch)
    _, k, v, _, cu_k = packed_inputs()
    q = fake_cuda(torch.zeros(0, 8, 128, dtype=torch.bfloat16))
    out, lse = call(q, k, v, bounds([0, 0, 0, 0]), cu_k)
    assert out.shape == (0, 8, 128) and lse.shape == (8, 0)
    assert routed.asked == []


def test_cuda_compile_refusal_reaches_the_caller(monkeypatch, tmp_path):
    # No bundle anywhere: the call compiles, and fa-compile's diagnostic is
    # the UnsupportedError the caller sees.
    msg = ("error: 'fa.attention_varlen' op convert-fa-to-nvvm: head_dim 96 "
           "is not supported")
    refusing_compiler(monkeypatch, tmp_path, msg)
    q, k, v, cu_q, cu_k = packed_inputs(dim=96)
    with pytest.raises(UnsupportedError, match="head_dim 96 is not "
                       "supported"):
        call(q, k, v, cu_q, cu_k)
    fa_registry.forget()


# -- the backward: one varlen backward for the whole batch -------------------

class _VarlenBackward:
    """Records the varlen backward's calls and answers with gradients of
    value 1 (the kernel's own numbers are the GPU tests')."""

    def __init__(self, monkeypatch):
        self.calls = []
        monkeypatch.setattr(_ops, "run_varlen_backward", self)

    def __call__(self, dout, q, k, v, out, lse, cu_q, cu_k, *options):
        self.calls.append(dict(dout=dout, q=q, k=k, v=v, out=out, lse=lse,
                               cu_q=cu_q, cu_k=cu_k, options=options))
        return [torch.ones(t.shape, dtype=t.dtype) for t in (q, k, v)]


def test_cuda_backward_is_one_call_for_the_batch(monkeypatch, built):
    Routed(monkeypatch, built)
    backward = _VarlenBackward(monkeypatch)
    q, k, v, cu_q, cu_k = (t.requires_grad_() if t.is_floating_point() else t
                           for t in packed_inputs())
    out, lse = call(q, k, v, cu_q, cu_k, window=(64, 0))
    dout = fake_cuda(torch.randn(out.shape).bfloat16())
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), dout)
    assert len(backward.calls) == 1
    (c,) = backward.calls
    assert c["q"] is q and c["k"] is k and c["v"] is v
    assert c["cu_q"] is cu_q and c["cu_k"] is cu_k
    assert torch.equal(c["dout"], dout)
    assert c["out"].data_ptr() == out.data_ptr() and c["lse"] is not None
    assert c["options"] == (True, None, 64, 0, None, "bottom_right", False)
    assert dq.shape == q.shape and dk.shape == k.shape and dv.shape == v.shape
    assert (dq == 1).all() and (dv == 1).all()


def test_cuda_backward_deterministic_reaches_the_kernel(monkeypatch, built):
    Routed(monkeypatch, built)
    backward = _VarlenBackward(monkeypatch)
    q, k, v, cu_q, cu_k = (t.requires_grad_() if t.is_floating_point() else t
                           for t in packed_inputs())
    out = fat.varlen_attention(q, k, v, cu_q, cu_k, 130, 100,
                               deterministic=True)
    out.sum().backward()
    assert backward.calls[0]["options"][-1] is True
    with pytest.raises(ArgumentError, match="deterministic"):
        fat.varlen_attention(q, k, v, cu_q, cu_k, 130, 100,
                             deterministic="yes")


def test_varlen_backward_config_and_mlir():
    kcfg = KernelConfig(op="varlen_backward", dtype="bf16", head_dim=128,
                        layout="bshd", heads_q=8, heads_kv=2, causal=True,
                        deterministic=True)
    assert kcfg.return_lse and kcfg.deterministic
    text = compiler._sm90a_mlir(kcfg)
    assert ("fa.attention_varlen_grad %grad_output, %query, %key, %value, "
            "%output, %lse, %cu_seqlens_q, %cu_seqlens_k : "
            "tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?x2x128xbf16>,"
            " tensor<?x2x128xbf16>, tensor<?x8x128xbf16>, tensor<8x?xf32>, "
            "tensor<?xi32>, tensor<?xi32> {causal} -> tensor<?x8x128xbf16>, "
            "tensor<?x2x128xbf16>, tensor<?x2x128xbf16>") in text
    assert compiler.fa_compile_command("fa-compile", "k.mlir", "out",
                                       kcfg)[-1] == "--deterministic"
    with pytest.raises(ArgumentError, match="op varlen_backward takes no "
                       "batch/seq_q/seq_k"):
        kcfg.with_(batch=4)
    with pytest.raises(ArgumentError, match="op varlen_backward takes layout "
                       "bshd"):
        kcfg.with_(layout="bhsd")


@needs_fa_compile
def test_cuda_backward_launches_one_sequence(monkeypatch, built,
                                             backward_bundle):
    """The backward's real sequence through run_varlen_backward, up to
    libfa_runtime's check of its launch: the packed operands, the bounds,
    the workspace Python allocates; nothing read back."""
    routed = Routed(monkeypatch, {"varlen": built,
                                  "varlen_backward": backward_bundle})
    q, k, v, cu_q, cu_k = (sync_trap(t) for t in packed_inputs())
    out, _ = call(q.requires_grad_(), k, v, cu_q, cu_k)
    out.sum().backward()
    assert [c.op for c in routed.asked] == ["varlen", "varlen_backward"]
    assert routed.asked[1] == BACKWARD_KCFG.with_(heads_q=8, heads_kv=2)
    tensors = routed.launched[1]
    assert tensors["grad_query"].shape == (1, 300, 8, 128)
    assert tensors["grad_key"].shape == (1, 170, 2, 128)
    assert tensors["lse"].shape == (1, 8, 300)
    assert tensors["cu_seqlens_k"] is cu_k
    assert tensors["dq_accum"].shape == (1, 8, 640, 128)
    assert q.grad.shape == q.shape and routed.grids[1][0] >= 1


def test_cuda_lse_is_not_differentiable(monkeypatch, built):
    Routed(monkeypatch, built)
    q, k, v, cu_q, cu_k = packed_inputs()
    _, lse = call(q.requires_grad_(), k, v, cu_q, cu_k)
    assert not lse.requires_grad


def test_launch_checks_the_bounds_against_the_signature(monkeypatch, built):
    # fa_mlir.torch.launch on the varlen bundle: the bounds are checked
    # (int32, num_seqs + 1 entries each, agreeing) before the runtime.
    launched = []
    monkeypatch.setattr(built, "launch",
                        lambda tensors, stream=None: launched.append(tensors))
    q, k, v, cu_q, cu_k = packed_inputs()
    args = dict(query=q.unsqueeze(0), key=k.unsqueeze(0),
                value=v.unsqueeze(0),
                output=fake_cuda(torch.empty((1, 300, 8, 128),
                                             dtype=torch.bfloat16)),
                lse=fake_cuda(torch.empty(1, 8, 300)))
    with pytest.raises(ArgumentError, match="'cu_seqlens_q' has dtype "
                       "torch.int64, expected torch.int32"):
        fat.launch(built, stream=0, cu_seqlens_q=cu_q.long(),
                   cu_seqlens_k=cu_k, **args)
    with pytest.raises(ArgumentError, match="operand 'cu_seqlens_k' has 4 "
                       r"entries, expected 5 \(num_seqs \+ 1"):
        fat.launch(built, stream=0, cu_seqlens_q=cu_q,
                   cu_seqlens_k=cu_k[:4], **args)
    with pytest.raises(ArgumentError, match="operand 'query' dimension 0 "
                       "is 2, expected 1"):
        fat.launch(built, stream=0, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                   **dict(args, query=q.unsqueeze(0).expand(2, -1, -1, -1)))
    fat.launch(built, stream=0, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, **args)
    assert launched[0]["cu_seqlens_k"][1:3] == ("i32", (5,))

"""The sm_90a FP8 forward on the host: its KernelConfig (dtype f8E4M3FN,
out_dtype) and what sm_90a refuses, the MLIR fa-compile gets, the readers
of its sequence bundle (descales [batch, heads_kv], the value_t workspace),
and fa_mlir.torch.attention's CUDA route on CPU tensors posing as CUDA up to
libfa_runtime's check of the operands it launches.

The stub sequences are test/Runtime/Inputs/fp8_fwd.json and, with per-block
descales (config.descale_block [64, 128]), fp8_block_fwd.json (over the stub
cubin; the compiler's contract as the Python half codes against it);
test_compiled_bundle_passes_both_readers compiles a real one. The launch
itself is python/tests/gpu/test_gpu_fp8.py.
"""
import dataclasses
import os

import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import compiler, manifest as fa_manifest  # noqa: E402
from fa_mlir import registry  # noqa: E402
from fa_mlir.errors import (ArgumentError, RuntimeLibraryError,  # noqa: E402
                            UnsupportedError)
from fa_mlir.manifest import KERNEL_SEQUENCE  # noqa: E402
from fa_mlir.signature import signature  # noqa: E402
from fa_mlir.spec import FP8, KernelConfig  # noqa: E402
from fa_mlir.torch import fp8  # noqa: E402

from _cuda_route import (Routed, fa_opt_output, needs_fa_opt,  # noqa: E402
                         runtime_operands)
from _fake_compiler import INPUTS  # noqa: E402
from _fake_cuda import fake_cuda  # noqa: E402

# What the stub sequence was "compiled" for.
KCFG = KernelConfig(dtype=FP8, head_dim=128, causal=True,
                    mask_alignment="top_left", heads_q=8, heads_kv=2)
SIZES = dict(batch=3, seq_q=300, seq_k=170, heads_q=8, heads_kv=2,
             head_dim=128, head_dim_v=128)
FA_COMPILE = os.path.join(compiler.build_dir(), "bin", "fa-compile")
# What the per-block stub sequence was "compiled" for: 5 query blocks of 64
# rows (300 queries), 2 key blocks of 128 (170 keys).
KCFG_BLOCK = KCFG.with_(descale_block=(64, 128))
SIZES_BLOCK = dict(SIZES, descale_blocks_q=5, descale_blocks_k=2)


def stub_bundle():
    return fa_mlir.load_bundle(os.path.join(INPUTS, "fp8_fwd.json"))


def block_stub_bundle():
    return fa_mlir.load_bundle(os.path.join(INPUTS, "fp8_block_fwd.json"))


# -- KernelConfig -----------------------------------------------------------

def test_config_round_trips_and_keeps_other_keys():
    assert KernelConfig.from_dict(KCFG.to_dict()) == KCFG
    assert KCFG.out_dtype == "bf16"  # the default output of FP8
    assert KCFG.dynamic == ("batch", "seq")
    # The new fields are left out at their defaults: every cached or AOT
    # kernel of another dtype keeps its key.
    for kcfg in (KernelConfig(), KernelConfig(op="backward", dtype="bf16")):
        d = kcfg.to_dict()
        assert "out_dtype" not in d and "descale_block" not in d
    blocks = KCFG.with_(descale_block=[64, 128])
    assert blocks.descale_block == (64, 128)
    assert KernelConfig.from_dict(blocks.to_dict()) == blocks


@pytest.mark.parametrize("change, message", [
    (dict(dtype="bf16"), "out_dtype and descale_block are for dtype "
     "f8E4M3FN"),
    (dict(dtype="f16", out_dtype=None, descale_block=(64, 64)),
     "out_dtype and descale_block are for dtype f8E4M3FN"),
    (dict(op="backward"), "dtype f8E4M3FN is forward only, got op "
     "'backward'"),
    (dict(bias=(True, True)), "bias: the dtype f8E4M3FN forward takes no "
     "bias"),
    (dict(heads_q=None), "dtype f8E4M3FN needs static heads_q and heads_kv"),
    (dict(out_dtype="f8E4M3FN"), "out_dtype must be one of"),
    (dict(descale_block=(64, 0)), "descale_block must be None or"),
    (dict(descale_block=64), "descale_block must be None or"),
    (dict(dtype="f8e4m3"), "dtype must be one of"),
])
def test_config_refuses(change, message):
    with pytest.raises(ArgumentError, match=message):
        KCFG.with_(**change)


@pytest.mark.parametrize("change, message", [
    (dict(descale_block=(64, 64)), r"does not take descale_block \(64, 64\): "
     "block_k must be a multiple of 128 or 192 or 224 at head_dim 128 .a tile of "
     "keys lies in one K/V descale block."),
    (dict(descale_block=(128, 320)), r"descale_block \(128, 320\): block_k "
     "must be a multiple of 128 or 192 or 224 at head_dim 128"),
    # The 192-key tile is the 64 < D <= 128 kernel's only.
    (dict(descale_block=(64, 192), head_dim=64), r"descale_block \(64, "
     r"192\): block_k must be a multiple of 128 at head_dim 64"),
    (dict(descale_block=(64, 192), head_dim=256), r"descale_block \(64, "
     r"192\): block_k must be a multiple of 128 at head_dim 256"),
    (dict(softcap=30.0), "does not take softcap"),
    (dict(out_dtype="f32"), "does not take out_dtype f32"),
    (dict(num_splits=2), r"does not take num_splits \(the FP8 forward is "
     r"unsplit\)"),
    (dict(head_dim=72), r"head_dim 72 \(a multiple of 16 in \[16, 256\]\)"),
    (dict(head_dim=272), r"head_dim 272"),
    (dict(head_dim_v=8), r"head_dim_v 8"),
])
def test_sm90a_refuses_what_its_kernel_lacks(change, message):
    kcfg = KCFG.with_(**change)  # valid: the CPU path takes it
    with pytest.raises(UnsupportedError, match=message):
        kcfg.check_target("sm_90a")


@pytest.mark.parametrize("head_dim, block", [
    (128, (128, 128)), (128, (64, 192)), (128, (1, 384)), (128, (300, 576)),
    (96, (64, 192)), (64, (128, 256)), (64, (64, 128)), (256, (7, 128)),
    (16, (128, 128)),
])
def test_sm90a_takes_descale_blocks_its_key_tiles_divide(head_dim, block):
    KCFG.with_(head_dim=head_dim, descale_block=block).check_target("sm_90a")


def test_sm90a_refusal_comes_before_any_tool(monkeypatch, tmp_path):
    # No fa-compile here either: the message is about the field, not the
    # missing compiler.
    monkeypatch.setenv("FA_BUILD_DIR", str(tmp_path / "nothing"))
    with pytest.raises(UnsupportedError, match="does not take softcap"):
        fa_mlir.compile(KCFG.with_(softcap=5.0), target="sm_90a",
                        cache_dir=str(tmp_path))
    with pytest.raises(UnsupportedError, match="does not take softcap"):
        compiler.build_bundle(KCFG.with_(softcap=5.0), "sm_90a",
                              str(tmp_path / "b"), version={})
    with pytest.raises(UnsupportedError, match="does not take out_dtype f32"):
        registry.get_bundle(KCFG.with_(out_dtype="f32"), "sm_90a")


def test_cpu_target_refuses_fp8_configs():
    with pytest.raises(UnsupportedError, match="dtype f8E4M3FN compiles for "
                       "sm_90a only; on the CPU fa_mlir.torch.attention"):
        KCFG.check_target("cpu")
    KCFG.check_target("sm_90a")
    KernelConfig(dtype="bf16", softcap=5.0).check_target("sm_90a")


def test_registry_keeps_the_heads_of_fp8():
    # A bf16 kernel serves any head count; an FP8 one is specialised on
    # them (the descales' shape).
    assert registry.candidates(KCFG) == [KCFG]
    bf16 = KernelConfig(dtype="bf16", heads_q=8, heads_kv=2)
    assert registry.candidates(bf16)[-1].heads_q is None


def test_manifest_schema_takes_fp8_configs():
    doc = {"format": "fa-mlir-bundle", "version": 2, "target": "sm_90a",
           "op": "forward", "config": KCFG.to_dict(), "compiler": {},
           "files": {"a.json": "0" * 64}, "digest": "0" * 64,
           "gpu": {"sequence": "a.json", "source": "kernel.mlir"}}
    assert fa_manifest.schema_errors(doc, "manifest.schema.json") == []
    doc["config"]["out_dtype"] = "f8E4M3FN"
    assert fa_manifest.schema_errors(doc, "manifest.schema.json")


# -- the MLIR fa-compile gets -------------------------------------------------

def test_fp8_mlir_has_descales_per_batch_and_kv_head():
    text = compiler.sm90a_fp8_mlir(KCFG.with_(out_dtype="f16"))
    assert text.startswith(
        "func.func @attention(%query: memref<?x8x?x128xf8E4M3FN>, %key: "
        "memref<?x2x?x128xf8E4M3FN>, %value: memref<?x2x?x128xf8E4M3FN>, "
        "%query_descale: memref<?x2xf32>, %key_descale: memref<?x2xf32>, "
        "%value_descale: memref<?x2xf32>, %output: "
        "memref<?x8x?x128xf16>, %lse: memref<?x8x?xf32>)")
    assert ("%output_r, %lse_r = fa.attention %query_t, %key_t, %value_t : "
            "tensor<?x8x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN>, "
            "tensor<?x2x?x128xf8E4M3FN> descale(%query_descale_t, "
            "%key_descale_t, %value_descale_t : tensor<?x2xf32>, "
            "tensor<?x2xf32>, tensor<?x2xf32>) {causal, mask_alignment = "
            "#fa<mask_alignment top_left>} -> tensor<?x8x?x128xf16>, "
            "tensor<?x8x?xf32>\n") in text


def test_fp8_mlir_static_batch_bshd_and_no_lse():
    kcfg = KCFG.with_(batch=3, seq_q=256, seq_k=512, layout="bshd",
                      causal=False, mask_alignment=None, return_lse=False)
    text = compiler.sm90a_fp8_mlir(kcfg)
    assert "%query_descale: memref<3x2xf32>" in text
    assert "%query: memref<3x256x8x128xf8E4M3FN>" in text
    assert "layout = #fa<layout bshd>" in text
    assert "lse" not in text
    assert "%output_r = fa.attention" in text


def test_fp8_mlir_has_descales_per_block():
    text = compiler.sm90a_fp8_mlir(KCFG.with_(descale_block=(64, 192)))
    assert ("%query_descale: memref<?x8x?xf32>, %key_descale: "
            "memref<?x2x?xf32>, %value_descale: memref<?x2x?xf32>") in text
    assert ("descale(%query_descale_t, %key_descale_t, %value_descale_t : "
            "tensor<?x8x?xf32>, tensor<?x2x?xf32>, tensor<?x2x?xf32>) "
            "{causal, mask_alignment = #fa<mask_alignment top_left>, "
            "descale_block = array<i64: 64, 192>} -> ") in text


def test_fp8_mlir_per_block_static_sizes():
    # Static sequences: static block counts, ceil(300 / 64), ceil(170 / 128).
    kcfg = KCFG_BLOCK.with_(batch=3, seq_q=300, seq_k=170, causal=False,
                            mask_alignment=None)
    text = compiler.sm90a_fp8_mlir(kcfg)
    assert ("%query_descale: memref<3x8x5xf32>, %key_descale: "
            "memref<3x2x2xf32>, %value_descale: memref<3x2x2xf32>") in text
    assert "{descale_block = array<i64: 64, 128>}" in text


def test_fp8_bundle_is_a_sequence():
    assert compiler._sm90a_format(KCFG) == KERNEL_SEQUENCE


@needs_fa_opt
@pytest.mark.parametrize("kcfg", [
    KCFG, KCFG.with_(layout="bshd", mask_alignment="bottom_right",
                     out_dtype="f16", scale=0.1, batch=2),
    KCFG.with_(causal=False, mask_alignment=None, head_dim=64,
               return_lse=False),
    KCFG_BLOCK, KCFG.with_(descale_block=(64, 192), layout="bshd"),
    KCFG_BLOCK.with_(batch=3, seq_q=300, seq_k=170),
], ids=["causal_tl", "bshd_br_f16", "d64_no_lse", "per_block",
        "per_block_bshd", "per_block_static"])
def test_fp8_mlir_verifies(kcfg, tmp_path):
    text = compiler.sm90a_fp8_mlir(kcfg)
    assert "descale(" in fa_opt_output(text, tmp_path)


# -- the readers --------------------------------------------------------------

def test_signature():
    sig = {a["role"]: a for a in signature(KCFG.with_(out_dtype="f16"))}
    assert list(sig) == ["query", "key", "value", "query_descale",
                         "key_descale", "value_descale", "output", "lse"]
    assert sig["query"]["dtype"] == FP8
    assert sig["output"]["dtype"] == "f16"
    assert sig["key_descale"] == {"role": "key_descale", "dtype": "f32",
                                  "shape": ["batch", 2], "output": False}


def test_signature_per_block():
    sig = {a["role"]: a for a in signature(KCFG_BLOCK)}
    assert sig["query_descale"]["shape"] == ["batch", 8, "descale_blocks_q"]
    assert sig["key_descale"]["shape"] == ["batch", 2, "descale_blocks_k"]
    assert sig["value_descale"]["shape"] == ["batch", 2, "descale_blocks_k"]
    static = {a["role"]: a for a in signature(KCFG_BLOCK.with_(
        batch=3, seq_q=300, seq_k=170))}
    assert static["query_descale"]["shape"] == [3, 8, 5]
    assert static["value_descale"]["shape"] == [3, 2, 2]


def test_stub_sequence_loads_and_both_readers_agree():
    bundle = stub_bundle()
    assert bundle.is_sequence and bundle.runtime.op == "attention_fwd"
    assert [w["name"] for w in bundle.workspace] == ["value_t"]
    required = set(bundle.runtime.required)
    assert required - {"value_t"} == {a["role"] for a in signature(KCFG)}
    ops = runtime_operands(KCFG, SIZES)
    # The first kernel's grid (transpose_v): ceildiv(170, 128), Hkv, B.
    assert bundle.check(ops) == (2, 2, 3)


def test_runtime_takes_fp8_operands_and_broadcast_descales():
    # A per-tensor descale is broadcast along batch (stride 0).
    ops = runtime_operands(KCFG, SIZES)
    addr = ops["query_descale"][0]
    ops["query_descale"] = (addr, "f32", (3, 2), (0, 1))
    assert stub_bundle().check(ops) == (2, 2, 3)
    ops["key"] = (ops["key"][0], "bf16") + ops["key"][2:]
    with pytest.raises(RuntimeLibraryError, match="operand 'key': dtype is "
                       "bf16, expected f8e4m3fn"):
        stub_bundle().check(ops)


def test_runtime_wants_a_unit_stride_along_heads():
    # Why a per-tensor descale's heads are copied (fp8.descale_operand):
    # libfa_runtime refuses stride 0 in the innermost dim.
    ops = runtime_operands(KCFG, SIZES)
    ops["value_descale"] = (ops["value_descale"][0], "f32", (3, 2), (0, 0))
    with pytest.raises(RuntimeLibraryError, match="operand 'value_descale': "
                       "the innermost dimension .head. must have stride 1"):
        stub_bundle().check(ops)


def test_runtime_takes_per_block_descales():
    bundle = block_stub_bundle()
    ops = runtime_operands(KCFG_BLOCK, SIZES_BLOCK)
    assert ops["query_descale"][2] == (3, 8, 5)
    assert bundle.check(ops) == (2, 2, 3)
    # One set of blocks for every batch row (stride 0) is fine.
    addr = ops["key_descale"][0]
    ops["key_descale"] = (addr, "f32", (3, 2, 2), (0, 2, 1))
    assert bundle.check(ops) == (2, 2, 3)


@pytest.mark.parametrize("role, shape, message", [
    ("query_descale", (3, 8, 4), r"operand 'query_descale': dimension 2 "
     r"\(block\) is 4, expected 5 \(ceildiv\(seq_q, 64\)\)"),
    ("key_descale", (3, 2, 3), r"operand 'key_descale': dimension 2 "
     r"\(block\) is 3, expected 2 \(ceildiv\(seq_k, 128\)\)"),
    ("query_descale", (3, 2, 5), r"operand 'query_descale': dimension 1 "
     r"\(head\) is 2, expected 8 \(heads_q"),
    ("value_descale", (3, 2), r"operand 'value_descale': expected rank 3 "
     r"\[batch, head, block\], got rank 2"),
])
def test_runtime_refuses_per_block_descales_of_other_shapes(role, shape,
                                                            message):
    ops = runtime_operands(KCFG_BLOCK, SIZES_BLOCK, **{role: ("f32", shape)})
    with pytest.raises(RuntimeLibraryError, match=message):
        block_stub_bundle().check(ops)


def test_python_reader_wants_the_manifests_descale_block():
    # A GPU bundle whose config lacks the manifest's descale_block would
    # read the descales as [batch, heads_kv]: the reader refuses it.
    from fa_mlir.bundle import _gpu_config_view
    assert _gpu_config_view(KCFG_BLOCK)["descale_block"] == [64, 128]
    assert "descale_block" not in _gpu_config_view(KCFG)


@pytest.mark.skipif(not os.path.exists(FA_COMPILE),
                    reason="no fa-compile in this build")
def test_compiled_bundle_passes_both_readers(tmp_path):
    # What fa-compile writes for the generated MLIR: a sequence bundle that
    # fa_mlir's reader (manifest, schemas, config view) and libfa_runtime
    # load, and whose operands are the ones Python passes.
    kcfg = KCFG.with_(head_dim=64, out_dtype="f16")
    compiler.build_bundle(kcfg, "sm_90a", str(tmp_path / "b"))
    bundle = fa_mlir.load_bundle(str(tmp_path / "b"))
    assert bundle.config == kcfg and bundle.is_sequence
    assert bundle.runtime.op == "attention_fwd"
    assert [w["name"] for w in bundle.workspace] == ["value_t"]
    sizes = dict(SIZES, head_dim=64, head_dim_v=64)
    ops = runtime_operands(kcfg, sizes)
    ops["query_descale"] = (ops["query_descale"][0], "f32", (3, 2), (0, 1))
    assert all(n >= 1 for n in bundle.check(ops))
    shapes = bundle.workspace_shapes(sizes)
    assert shapes["value_t"][1].lower() == "f8e4m3fn"


@pytest.mark.skipif(not os.path.exists(FA_COMPILE),
                    reason="no fa-compile in this build")
@pytest.mark.parametrize("head_dim, block", [(128, (64, 192)), (64, (128, 128))])
def test_compiled_per_block_bundle_passes_both_readers(tmp_path, head_dim,
                                                       block):
    # The per-block kernel: config.descale_block, three strides per descale.
    kcfg = KCFG.with_(head_dim=head_dim, descale_block=block)
    try:
        compiler.build_bundle(kcfg, "sm_90a", str(tmp_path / "b"))
    except UnsupportedError as e:
        if "per-block descales (descale_block) are not supported" in str(e):
            pytest.skip("this fa-compile has no per-block FP8 kernel yet")
        raise
    bundle = fa_mlir.load_bundle(str(tmp_path / "b"))
    assert bundle.config == kcfg and bundle.is_sequence
    sizes = dict(SIZES, head_dim=head_dim, head_dim_v=head_dim,
                 descale_blocks_q=-(-300 // block[0]),
                 descale_blocks_k=-(-170 // block[1]))
    ops = runtime_operands(kcfg, sizes)
    assert all(n >= 1 for n in bundle.check(ops))
    ops = runtime_operands(kcfg, dict(sizes, descale_blocks_k=7))
    with pytest.raises(RuntimeLibraryError, match="operand 'key_descale': "
                       "dimension 2 .block. is 7"):
        bundle.check(ops)


# -- fa_mlir.torch.attention on CUDA ------------------------------------------

def fp8_inputs(b=3, hq=8, hk=2, sq=300, sk=170, d=128, layout="bhsd",
               block=None, cuda=True):
    g = torch.Generator().manual_seed(0)
    shapes = [(b, hq, sq, d), (b, hk, sk, d), (b, hk, sk, d)]
    if layout == "bshd":
        shapes = [(s[0], s[2], s[1], s[3]) for s in shapes]
    x = fat.quantize_fp8(*(torch.randn(*s, generator=g) for s in shapes),
                         block=block, layout=layout)
    wrap = fake_cuda if cuda else (lambda t: t)
    return [wrap(t) for t in x[:6]], x.descale_block


def call(tensors, **kw):
    q, k, v, dq, dk, dv = tensors
    args = dict(q_descale=dq, k_descale=dk, v_descale=dv, causal=True)
    args.update(kw)
    return fat.attention(q, k, v, **args)


def test_cuda_route_asks_for_the_fp8_kernel(monkeypatch):
    routed = Routed(monkeypatch)
    tensors, _ = fp8_inputs(layout="bshd")
    with pytest.raises(LookupError):
        call(tensors, layout="bshd", mask_alignment="bottom_right",
             out_dtype=torch.float16, scale=0.125)
    assert routed.asked == [KernelConfig(
        dtype=FP8, out_dtype="f16", head_dim=128, layout="bshd", causal=True,
        mask_alignment="bottom_right", scale=0.125, heads_q=8, heads_kv=2)]


def test_cuda_route_launches_what_the_runtime_accepts(monkeypatch):
    routed = Routed(monkeypatch, stub_bundle())
    tensors, _ = fp8_inputs()
    per_head = fake_cuda(torch.rand(3, 2))
    tensors[4] = per_head  # k's descale per (batch, kv head)
    out, lse = call(tensors, return_lse=True)
    assert out.dtype == torch.bfloat16 and out.shape == (3, 8, 300, 128)
    assert lse.dtype == torch.float32 and lse.shape == (3, 8, 300)
    assert routed.asked == [KCFG.with_(mask_alignment=None)]
    assert routed.grids == [(2, 2, 3)]  # libfa_runtime's host check passed
    launched = routed.launched[0]
    assert set(launched) == {"query", "key", "value", "query_descale",
                             "key_descale", "value_descale", "output", "lse",
                             "value_t"}
    # Per tensor: [B, Hkv] broadcast along batch, the value itself.
    q_descale = launched["query_descale"]
    assert q_descale.shape == (3, 2) and q_descale.stride() == (0, 1)
    assert torch.equal(q_descale, tensors[3].expand(3, 2))
    # Per (batch, kv head): passed as it is.
    assert launched["key_descale"].data_ptr() == per_head.data_ptr()
    # The workspace comes from torch (V transposed, padded to 128 keys).
    assert launched["value_t"].dtype == torch.float8_e4m3fn
    assert launched["value_t"].shape == (3, 2, 128, 256)
    assert routed.symbols[0]["seq_k"] == 170


def test_cuda_route_launches_per_block_descales(monkeypatch):
    routed = Routed(monkeypatch, block_stub_bundle())
    tensors, block = fp8_inputs(block=(64, 128))
    assert block == (64, 128)
    out, lse = call(tensors, descale_block=block, return_lse=True)
    assert out.shape == (3, 8, 300, 128) and lse.shape == (3, 8, 300)
    assert routed.asked == [KCFG_BLOCK.with_(mask_alignment=None)]
    assert routed.grids == [(2, 2, 3)]  # libfa_runtime's host check passed
    launched = routed.launched[0]
    # Already in the kernel's form: passed as they are.
    for role, d in zip(("query_descale", "key_descale", "value_descale"),
                       tensors[3:6]):
        assert launched[role].data_ptr() == d.data_ptr()
    assert launched["query_descale"].shape == (3, 8, 5)
    assert launched["key_descale"].shape == (3, 2, 2)


def direct_block_form(d, heads, blocks, group):
    """A per-tensor or per-(batch, kv head) descale written out per block,
    element by element: [b, h, n] holds the value of kv head h // group."""
    out = torch.empty(3, heads, blocks)
    for b in range(3):
        for h in range(heads):
            value = d if d.dim() == 0 else d[b, h // group]
            out[b, h, :] = value
    return out


def test_cuda_route_expands_other_forms_to_blocks(monkeypatch):
    # With descale_block every descale is passed per block: q per (batch,
    # kv head), k per tensor, v per block.
    routed = Routed(monkeypatch, block_stub_bundle())
    tensors, block = fp8_inputs(block=(64, 128))
    q_per_head = torch.rand(3, 2) + 0.5
    k_per_tensor = torch.tensor(0.25)
    tensors[3], tensors[4] = fake_cuda(q_per_head), fake_cuda(k_per_tensor)
    call(tensors, descale_block=block)
    assert routed.grids == [(2, 2, 3)]
    launched = routed.launched[0]
    q_d, k_d = launched["query_descale"], launched["key_descale"]
    assert q_d.shape == (3, 8, 5) and q_d.stride(-1) == 1
    assert torch.equal(q_d.cpu(), direct_block_form(q_per_head, 8, 5, 4))
    assert k_d.shape == (3, 2, 2) and k_d.stride(-1) == 1
    assert torch.equal(k_d.cpu(), direct_block_form(k_per_tensor, 2, 2, 1))
    assert launched["value_descale"].data_ptr() == tensors[5].data_ptr()


@pytest.mark.parametrize("form", ["tensor", "head", "block"])
@pytest.mark.parametrize("role", ["q", "k", "v"])
def test_block_descale_operand(role, form):
    sizes = dict(SIZES, seq_q=129, seq_k=257)  # tails: 3 and 3 blocks
    heads = 8 if role == "q" else 2
    blocks = 3
    d = {"tensor": torch.tensor(3.0), "head": torch.rand(3, 2),
         "block": torch.rand(3, heads, blocks)}[form]
    got = fp8.block_descale_operand(d, role, sizes, (64, 128))
    assert got.shape == (3, heads, blocks) and got.stride(-1) == 1
    want = d if form == "block" else direct_block_form(
        d, heads, blocks, 4 if role == "q" else 1)
    assert torch.equal(got, want)


def test_block_descale_operand_makes_the_block_dim_dense():
    d = torch.rand(3, 5, 8).transpose(1, 2)  # [3, 8, 5], block stride 8
    dense = fp8.block_descale_operand(d, "q", SIZES, (64, 128))
    assert dense.stride(-1) == 1 and torch.equal(dense, d)
    one = torch.rand(3, 1, 2).transpose(1, 2)  # one block: any stride
    assert fp8.block_descale_operand(one, "k", dict(SIZES, seq_k=100),
                                     (64, 128)) is one


def test_cuda_config_keys_on_the_descale_block():
    options = dict(layout="bhsd", causal=True, scale=None)
    per_head = fp8.cuda_config(SIZES, torch.bfloat16, options)
    per_block = fp8.cuda_config(SIZES, torch.bfloat16, options, [64, 128])
    assert per_block.descale_block == (64, 128)
    assert per_block == fp8.cuda_config(SIZES, torch.bfloat16, options,
                                        (64, 128))
    assert per_head.descale_block is None
    assert per_head.key() != per_block.key()
    assert '"descale_block": [64, 128]' in per_block.key()


def test_transposed_per_head_descale_is_made_dense():
    d = torch.rand(2, 3).t()  # [3, 2] with strides (1, 3)
    dense = fp8.descale_operand(d, 3, 2)
    assert dense.stride() == (2, 1) and torch.equal(dense, d)
    assert fp8.descale_operand(torch.rand(3, 1), 3, 1).stride() == (1, 1)


@pytest.mark.parametrize("change, error, message", [
    (dict(q_descale=fake_cuda(torch.ones((), dtype=torch.float64))),
     ArgumentError, "q_descale must be a float32 tensor, got torch.float64"),
    (dict(k_descale=torch.ones(())), ArgumentError,
     r"k_descale is on cpu, expected cuda:0 \(the device of query\)"),
    (dict(v_descale=fake_cuda(torch.ones(3, 8))), ArgumentError,
     r"v_descale has shape \(3, 8\); expected one of \(\), \(3, 2\)"),
    (dict(out_dtype=torch.float32), UnsupportedError,
     "out_dtype torch.float32: the sm_90a FP8 kernel writes torch.bfloat16 "
     "or torch.float16"),
    (dict(out_dtype=torch.int8), ArgumentError, "out_dtype must be"),
    (dict(softcap=20.0), UnsupportedError, "does not take softcap"),
])
def test_cuda_route_rejects(monkeypatch, change, error, message):
    routed = Routed(monkeypatch, stub_bundle())
    tensors, _ = fp8_inputs()
    with pytest.raises(error, match=message):
        call(tensors, **change)
    assert routed.launched == []


def test_cuda_route_rejects_blocks_off_the_key_tiles(monkeypatch):
    routed = Routed(monkeypatch, block_stub_bundle())
    tensors, block = fp8_inputs(block=64)
    with pytest.raises(UnsupportedError, match=r"descale_block \(64, 64\): "
                       "block_k must be a multiple of 128 or 192 or 224 at head_dim "
                       "128"):
        call(tensors, descale_block=block)
    assert routed.asked == [] and routed.launched == []


def test_cuda_route_rejects_a_block_count_off_descale_block(monkeypatch):
    # Blocks of 128 query rows passed as blocks of 64: the shape check
    # (fa_mlir's, before any lookup) names the forms it takes.
    routed = Routed(monkeypatch, block_stub_bundle())
    tensors, _ = fp8_inputs(block=(128, 128))
    with pytest.raises(ArgumentError, match=r"q_descale has shape \(3, 8, "
                       r"3\); expected one of \(\), \(3, 2\), \(3, 8, "
                       r"5\)"):
        call(tensors, descale_block=(64, 128))
    assert routed.asked == [] and routed.launched == []


def test_cuda_route_rejects_head_dims_off_the_kernel(monkeypatch):
    Routed(monkeypatch, stub_bundle())
    tensors, _ = fp8_inputs(d=72, sq=16, sk=16)
    with pytest.raises(UnsupportedError, match="head_dim 72"):
        call(tensors)


# -- forward only -------------------------------------------------------------

def test_backward_through_fp8_is_unsupported():
    tensors, _ = fp8_inputs(b=1, hq=2, hk=1, sq=16, sk=16, d=16, cuda=False)
    tensors[0].requires_grad_(True)
    out, lse = call(tensors, return_lse=True)
    assert out.requires_grad and not lse.requires_grad
    with pytest.raises(UnsupportedError, match="float8_e4m3fn attention is "
                       "forward only"):
        out.float().sum().backward()
    tensors[0].requires_grad_(False)
    assert call(tensors).grad_fn is None
    with torch.no_grad():
        tensors[0].requires_grad_(True)
        assert call(tensors).grad_fn is None


# -- the GPU tests' kernels are built ahead of time ----------------------------

def _gpu_fp8_tests():
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu",
                        "test_gpu_fp8.py")
    spec = importlib.util.spec_from_file_location("fa_test_gpu_fp8", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GPU = _gpu_fp8_tests()


@pytest.mark.parametrize("case", GPU.CASES, ids=[c.name for c in GPU.CASES])
def test_gpu_case_kernel_is_built_ahead_of_time(monkeypatch, case):
    import json
    from fa_mlir import aot
    with open(os.path.join(os.path.dirname(GPU.__file__),
                           "configs.json")) as f:
        built = [kcfg for kcfg, target in aot.expand(json.load(f), "sm_90a")
                 if target == "sm_90a"]
    routed = Routed(monkeypatch)
    small = dataclasses.replace(case, sq=16, sk=16)
    x = GPU.inputs(small, device="cpu")
    x = x._replace(**{f: fake_cuda(getattr(x, f)) for f in
                      ("q", "k", "v", "q_descale", "k_descale",
                       "v_descale")})
    with pytest.raises(LookupError):
        GPU.call(small, x)
    assert routed.asked[0] in built, (
        f"{case.name} asks for {routed.asked[0].key()}, which configs.json "
        "does not build")


def _bench_fp8():
    import importlib.util
    import sys
    device = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "test", "Device")
    sys.path.insert(0, device)
    try:
        spec = importlib.util.spec_from_file_location(
            "fa_bench_fp8", os.path.join(device, "bench_fp8.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(device)
    return module, os.path.join(device, "fp8_configs.json")


@pytest.mark.parametrize("d", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_bench_kernels_are_prepared(monkeypatch, d, causal):
    # The stage-9 bench launches the kernel fa_mlir.torch.attention asks
    # for, and prepare builds it (test/Device/fp8_configs.json).
    import json
    pytest.importorskip("triton")
    bench, configs = _bench_fp8()
    from fa_mlir import aot
    with open(configs) as f:
        built = [kcfg for kcfg, _ in aot.expand(json.load(f), "sm_90a")]
    heads = 2048 // d
    routed = Routed(monkeypatch)
    x = fat.quantize_fp8(*(torch.randn(1, heads, 16, d) for _ in range(3)))
    x = x._replace(**{f: fake_cuda(getattr(x, f)) for f in
                      ("q", "k", "v", "q_descale", "k_descale",
                       "v_descale")})
    with pytest.raises(LookupError):
        bench.ours_api(x, causal)()
    with pytest.raises(LookupError):
        bench.ours_launch(x, causal)
    assert routed.asked[0] == routed.asked[1] and routed.asked[0] in built
    bf16 = fake_cuda(torch.randn(1, heads, 16, d, dtype=torch.bfloat16))
    with pytest.raises(LookupError):
        fat.attention(bf16, bf16, bf16, causal=causal)
    assert registry.candidates(routed.asked[2])[-1] in built


@pytest.mark.parametrize("name", [
    "d64-causal-1000-per-head", "d256-bshd-causal-br-333x100-f16",
    "d128-bshd-full-300x517-per-head",
    "d128-bshd-causal-br-333x1000-blocks-64x192-f16",
    "d128-causal-1000-q-per-head-kv-blocks-128x128",
    "d128-full-300x517-q-per-tensor-kv-blocks-64x192"])
def test_gpu_checks_hold_for_the_cpu_kernel(monkeypatch, name):
    # The GPU test's assertions (criterion, LSE, hidden rows) on a correct
    # implementation: the CPU FP8 kernel, at smaller sizes.
    case = {c.name: c for c in GPU.CASES}[name]
    small = dataclasses.replace(case, sq=120, sk=40 if case.bottom_right
                                else 150)
    inputs = GPU.inputs
    monkeypatch.setattr(GPU, "inputs", lambda c: inputs(c, device="cpu"))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    GPU.test_fp8_forward_against_float64(small)


def test_cuda_route_reads_nothing_back(monkeypatch):
    """No device->host sync in the FP8 forward on CUDA (descales expanded
    on the device): every Tensor method that reads values back raises on
    these inputs and on what is computed from them."""
    from _fake_cuda import sync_trap
    routed = Routed(monkeypatch, stub_bundle())
    tensors, _ = fp8_inputs()
    tensors[4] = fake_cuda(torch.rand(3, 2))  # k's descale per (b, kv head)
    out = call([sync_trap(t) for t in tensors])
    assert out.shape == (3, 8, 300, 128) and len(routed.launched) == 1


def test_per_tensor_descales_share_one_copy():
    """Three per-tensor descales: one [3, Hkv] copy (one kernel per call),
    each operand a row of it broadcast along batch; with one kv head, or
    a single per-tensor descale, nothing to share."""
    d = [torch.tensor(x) for x in (0.5, 2.0, 4.0)]
    ops = fp8.descale_operands(d, 3, 2)
    assert {o.untyped_storage().data_ptr() for o in ops} == {
        ops[0].untyped_storage().data_ptr()}
    for o, x in zip(ops, d):
        assert o.shape == (3, 2) and o.stride() == (0, 1)
        assert torch.equal(o, x.expand(3, 2))
    per_head = torch.rand(3, 2)
    mixed = fp8.descale_operands([d[0], per_head, d[2]], 3, 2)
    assert mixed[1] is per_head and torch.equal(mixed[2], d[2].expand(3, 2))
    one_head = fp8.descale_operands(d, 3, 1)
    assert [o.stride() for o in one_head] == [(0, 1)] * 3

"""The sm_90a backward with a bias (dBias) without a GPU: the runtime's test
sequence test/Runtime/Inputs/bwd_bias.json (pre, main, post and the dBias
kernel over the stub cubin; config "bias": true, "bias_broadcast": []) and
its broadcast forms through ctypes and the schema, the manifest check of
bias_broadcast, KernelConfig's refusal of deterministic with a broadcast
f32 bias (one of the inputs' dtype passes), the MLIR fa-compile gets (fa-compile mocked), and
fa_mlir.torch.attention's CUDA route forward and backward up to
libfa_runtime's check of what it launches (grad_bias and the dbias_accum
workspace bound, the bias's gradient returned)."""
import json
import os
import shutil

import pytest

import fa_mlir
from fa_mlir import compiler, gpu_runtime, manifest as fa_manifest, registry
from fa_mlir.bundle import load_bundle, write_manifest
from fa_mlir.errors import BundleError, RuntimeLibraryError, UnsupportedError
from fa_mlir.spec import KernelConfig

from _cuda_route import (Routed, _strides, fa_opt_output, needs_fa_opt,
                         refusing_compiler)
from _fake_compiler import fake_fa_compile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = os.path.join(REPO, "test", "Runtime", "Inputs")
SEQUENCE = os.path.join(INPUTS, "bwd_bias.json")
KERNELS = ["bwd_bias_pre.json", "bwd_bias_main.json", "bwd_bias_post.json",
           "bwd_bias_dbias.json"]
FILES = ["bwd_bias.json"] + KERNELS + ["stub_kernels.cubin"]
SEQUENCE_SCHEMA = "kernel-sequence.schema.json"
KERNEL_SCHEMA = "kernel-bundle.schema.json"
# What bwd_bias.json was written for: bshd bf16 d128, causal, f32 bias.
CONFIG = KernelConfig(op="backward", dtype="bf16", head_dim=128, layout="bshd",
                      causal=True, bias=(True, True), bias_dtype="f32")
B, SQ, SK, HQ, HKV, D = 2, 70, 33, 4, 2, 128
SYMBOLS = dict(batch=B, seq_q=SQ, seq_k=SK, heads_q=HQ, heads_kv=HKV,
               head_dim=D, head_dim_v=D)
FORMS = [(True, True), (False, True), (True, False), (False, False)]
FORM_IDS = ["BxH", "1xH", "Bx1", "1x1"]
# (form, deterministic): every form, then the bf16 broadcast ones
# deterministic (summed in turn).
COMPILED = [(f, False) for f in FORMS] + [((False, True), True), ((False, False), True)]
COMPILED_IDS = FORM_IDS + ["1xH-det", "1x1-det"]


def bias_shape(form):
    return (B if form[0] else 1, HQ if form[1] else 1, SQ, SK)


def operands(form=(True, True), d=D, bias_dtype="f32", addr=0x10000000):
    """The biased backward's standard operands (bshd, head dim `d`), as
    runtime tuples."""
    q, kv = (B, SQ, HQ, d), (B, SK, HKV, d)
    roles = [("query", "bf16", q), ("key", "bf16", kv), ("value", "bf16", kv),
             ("output", "bf16", q), ("grad_output", "bf16", q),
             ("grad_query", "bf16", q), ("grad_key", "bf16", kv),
             ("grad_value", "bf16", kv), ("lse", "f32", (B, HQ, SQ)),
             ("bias", bias_dtype, bias_shape(form)),
             ("grad_bias", bias_dtype, bias_shape(form))]
    return {r: (addr * (i + 1), dtype, s, _strides(s))
            for i, (r, dtype, s) in enumerate(roles)}


def broadcast_docs(form, bias_dtype="f32"):
    """{file name: document} of the bias sequence for a bias of `form`
    (per_batch, per_head) and `bias_dtype`: bias_broadcast in every config,
    the literal 1 in dbias_accum's shape and the dBias kernel's grid where
    it broadcasts (the forms of the compiler's contract)."""
    listed = [d for d, per in zip(("batch", "head"), form) if not per]
    batch = "batch" if form[0] else "1"
    heads = "heads_q" if form[1] else "1"
    docs = {}
    for name in FILES[:-1]:
        with open(os.path.join(INPUTS, name)) as f:
            doc = json.load(f)
        doc["config"]["bias_broadcast"] = listed
        doc["config"]["bias_dtype"] = bias_dtype
        for entry in doc.get("workspace", []) + doc.get("scratch", []):
            if entry["name"] == "dbias_accum":
                entry["shape"][:2] = [batch, heads]
        if doc.get("op") == "attention_bwd_dbias":
            doc["grid"][1:] = [heads, batch]
        docs[name] = doc
    return docs


def sequence_dir(path, form=(True, True), config=None, bias_dtype="f32"):
    """A bundle directory with the bias sequence of `form` and a manifest of
    `config` (default: CONFIG with that bias)."""
    os.makedirs(path, exist_ok=True)
    for name, doc in broadcast_docs(form, bias_dtype).items():
        with open(os.path.join(path, name), "w") as f:
            json.dump(doc, f)
    shutil.copy2(os.path.join(INPUTS, "stub_kernels.cubin"), path)
    with open(os.path.join(path, "kernel.mlir"), "w") as f:
        f.write("// source\n")
    config = config or CONFIG.with_(bias=form, bias_dtype=bias_dtype)
    write_manifest(path, {
        "format": "fa-mlir-bundle", "version": 2, "target": "sm_90a",
        "op": config.op, "config": config.to_dict(), "compiler": {},
        "gpu": {"sequence": "bwd_bias.json", "source": "kernel.mlir"}})
    return path


# -- the runtime through ctypes ---------------------------------------------

def test_runtime_loads_the_bias_sequence():
    rt = gpu_runtime.RuntimeBundle(SEQUENCE)
    assert rt.num_kernels == 4 and rt.op == "attention_bwd"
    assert rt.kernel_name == ("helper_kernel,fa_bwd_bias_main,helper_kernel,"
                              "fa_bwd_dbias")
    assert rt.required[-2:] == ["bias", "grad_bias"]
    assert [w["name"] for w in rt.workspace] == ["dq_accum", "lse_log2",
                                                 "dbias_accum"]
    assert rt.check(operands()) == (2, HQ, B)  # pre: ceildiv(70, 64)
    ops = operands()
    del ops["grad_bias"]
    with pytest.raises(RuntimeLibraryError, match="missing operand 'grad_bias'"):
        rt.check(ops)


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_workspace_shapes_take_the_literal_one(tmp_path, form):
    """Python evaluates dbias_accum's shape (with "1" where the bias
    broadcasts) as the runtime does: the bytes agree."""
    bundle = load_bundle(sequence_dir(str(tmp_path / "b"), form))
    shapes = bundle.workspace_shapes(SYMBOLS)
    assert shapes["dbias_accum"] == (bias_shape(form), "f32")
    total = sum(4 * n for n in (B * HQ * 128 * D, B * HQ * 128,
                                bias_shape(form)[0] * bias_shape(form)[1] *
                                SQ * SK))
    assert bundle.runtime.workspace_bytes(operands(form)) == total
    bundle.check(operands(form))
    # Another extent of a dim the kernel is specialised on is refused.
    if form != (True, True):
        with pytest.raises(RuntimeLibraryError, match="config.bias_broadcast "
                           "(lists|does not list)"):
            bundle.check(operands((True, True)))


def test_runtime_refuses_a_broadcast_it_was_not_built_for():
    rt = gpu_runtime.RuntimeBundle(SEQUENCE)
    with pytest.raises(RuntimeLibraryError, match="operand 'bias': dimension 0 "
                       r"\(batch\) is 1, expected 2 .*config.bias_broadcast "
                       "does not list batch"):
        rt.check(operands((False, True)))
    ops = operands()
    ops["grad_bias"] = operands((True, False))["grad_bias"]
    with pytest.raises(RuntimeLibraryError, match="operand 'grad_bias': "
                       r"dimension 1 \(head\) is 1, expected 4"):
        rt.check(ops)


# -- schema and manifest ----------------------------------------------------

@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_schema_accepts_every_form(form):
    for name, doc in broadcast_docs(form).items():
        schema = SEQUENCE_SCHEMA if name == "bwd_bias.json" else KERNEL_SCHEMA
        assert fa_manifest.schema_errors(doc, schema) == [], name


def _both_refuse(tmp_path, key, value, match):
    """The dBias kernel bundle with config[key] = value (deleted for
    None): the schema and libfa_runtime both refuse it, the runtime with
    `match` in its message."""
    doc = broadcast_docs((True, True))["bwd_bias_dbias.json"]
    if value is None:
        del doc["config"][key]
    else:
        doc["config"][key] = value
    assert fa_manifest.schema_errors(doc, KERNEL_SCHEMA)
    shutil.copy2(os.path.join(INPUTS, "stub_kernels.cubin"), tmp_path)
    (tmp_path / "k.json").write_text(json.dumps(doc))
    with pytest.raises(RuntimeLibraryError, match=match):
        gpu_runtime.RuntimeBundle(str(tmp_path / "k.json"))


@pytest.mark.parametrize("value", [
    "batch", ["head", "batch"], ["batch", "batch"], ["seq_q"], [1], {}, 2,
    ["batch", "head", "batch"]])
def test_both_readers_refuse_a_bad_bias_broadcast(tmp_path, value):
    _both_refuse(tmp_path, "bias_broadcast", value, "config.bias_broadcast")


@pytest.mark.parametrize("bias", [False, None, "yes"])
def test_both_readers_refuse_bias_broadcast_without_bias(tmp_path, bias):
    _both_refuse(tmp_path, "bias", bias, "config.bias")


def test_runtime_never_accepts_a_bias_sequence_the_schema_refuses(tmp_path):
    """Every single-field mutation of bwd_bias.json (test_bundle_readers'
    rule): what the runtime loads, the schema accepts."""
    from test_bundle_readers import check_mutations
    for name in KERNELS + ["stub_kernels.cubin"]:
        shutil.copy2(os.path.join(INPUTS, name), tmp_path)
    with open(SEQUENCE) as f:
        doc = json.load(f)
    check_mutations(doc, tmp_path / "sequence.json", SEQUENCE_SCHEMA)
    with open(os.path.join(INPUTS, "bwd_bias_dbias.json")) as f:
        check_mutations(json.load(f), tmp_path / "bundle.json", KERNEL_SCHEMA)


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_bias_sequence_bundle_dir_loads(tmp_path, form):
    bundle = load_bundle(sequence_dir(str(tmp_path / "b"), form))
    assert bundle.is_sequence and bundle.config.bias == form
    assert bundle.runtime.num_kernels == 4


@pytest.mark.parametrize("config", [
    CONFIG.with_(bias=(False, True)),  # another broadcast than the kernel's
    CONFIG.with_(bias_dtype="bf16"),
    CONFIG.with_(bias=None)], ids=["broadcast", "bias_dtype", "no-bias"])
def test_manifest_bias_must_match_the_sequence(tmp_path, config):
    path = sequence_dir(str(tmp_path / "b"), (True, True), config)
    with pytest.raises(BundleError, match="does not match the manifest"):
        load_bundle(path)


# -- KernelConfig: deterministic with a broadcast bias ----------------------

@pytest.mark.parametrize("bias,sizes,dims", [
    ((True, True), {}, []),
    ((False, True), {}, ["batch"]),
    ((False, False), {}, ["batch", "head"]),
    ((False, False), dict(batch=1), ["head"]),
    ((True, False), dict(heads_q=1, heads_kv=1), []),
    ((False, False), dict(batch=1, heads_q=1, heads_kv=1), []),
])
def test_bias_broadcast_dims_follow_the_compilers_rule(bias, sizes, dims):
    """A size-1 bias dim is a sum only where Q's size is not a static 1
    (fa-compile's rule, so the manifest view agrees with the bundle)."""
    kcfg = CONFIG.with_(bias=bias, **sizes)
    assert kcfg.bias_broadcast_dims() == dims
    refused = kcfg.with_(deterministic=True)
    if dims:
        with pytest.raises(UnsupportedError, match="deterministic with a bias"):
            refused.check_target("sm_90a")
    else:
        refused.check_target("sm_90a")


@pytest.mark.parametrize("bias", [(False, True), (True, False), (False, False)])
def test_deterministic_broadcast_bias_is_refused_on_sm90a(bias):
    kcfg = CONFIG.with_(bias=bias, deterministic=True)
    with pytest.raises(UnsupportedError, match=r"deterministic with a bias "
                       r"broadcast along .*bias=\(") as e:
        kcfg.check_target("sm_90a")
    broadcast = [d for d, per in zip(("batch", "heads"), bias) if not per]
    assert all(d in str(e.value) for d in broadcast)
    # The CPU backward is deterministic anyway; the forward has no dBias; a
    # full bias or deterministic=False compile.
    kcfg.check_target("cpu")
    CONFIG.with_(bias=bias).check_target("sm_90a")
    CONFIG.with_(deterministic=True).check_target("sm_90a")
    kcfg.with_(op="forward").check_target("sm_90a")


@pytest.mark.parametrize("bias", [(False, True), (True, False), (False, False)])
def test_deterministic_broadcast_bias_of_the_dtype_is_taken_on_sm90a(bias):
    """A bias of the inputs' dtype that broadcasts is summed in a fixed
    order by the sm_90a backward (docs/HopperBackward.md)."""
    CONFIG.with_(bias=bias, bias_dtype="bf16", deterministic=True).check_target("sm_90a")


def test_deterministic_broadcast_bias_is_refused_before_any_tool(
        monkeypatch, tmp_path):
    calls = fake_fa_compile(monkeypatch, writes=FILES)
    kcfg = CONFIG.with_(bias=(False, True), deterministic=True)
    with pytest.raises(UnsupportedError, match="deterministic"):
        fa_mlir.compile(kcfg, target="sm_90a", cache_dir=str(tmp_path))
    with pytest.raises(UnsupportedError, match="deterministic"):
        compiler.build_bundle(kcfg, "sm_90a", str(tmp_path / "b"))
    assert calls == []


# -- compiling (fa-compile mocked) ------------------------------------------

def _backward_mlir(monkeypatch, tmp_path, kcfg):
    fake_fa_compile(monkeypatch, writes=FILES)
    out = str(tmp_path / "b")
    compiler.build_bundle(kcfg, "sm_90a", out, version={"fa-compile": "x"})
    with open(os.path.join(out, "kernel.mlir")) as f:
        return out, f.read()


def test_backward_with_bias_compiles_to_the_sequence(monkeypatch, tmp_path):
    out, text = _backward_mlir(monkeypatch, tmp_path, CONFIG.with_(heads_q=HQ,
                                                                   heads_kv=HKV))
    # fa.attention_grad takes the bias and returns its gradient, a memref
    # argument of the bias's type.
    assert f"bias(%bias_t : tensor<?x{HQ}x?x?xf32>)" in text
    assert f"%grad_bias: memref<?x{HQ}x?x?xf32>" in text
    assert "-> tensor<?x?x4x128xbf16>, tensor<?x?x2x128xbf16>, " \
           "tensor<?x?x2x128xbf16>, tensor<?x4x?x?xf32>" in text
    bundle = load_bundle(out)
    assert bundle.is_sequence and bundle.config.bias == (True, True)
    assert "grad_bias" in bundle.runtime.required


@pytest.mark.parametrize("form, dtype", [((False, True), "bf16"),
                                         ((True, False), "f32"),
                                         ((False, False), "bf16")])
def test_broadcast_bias_mlir(monkeypatch, tmp_path, form, dtype):
    kcfg = CONFIG.with_(bias=form, bias_dtype=dtype, heads_q=HQ, heads_kv=HKV)
    text = compiler.fa_config.backward_mlir(kcfg.attention_config())
    want = f"{'?' if form[0] else 1}x{HQ if form[1] else 1}x?x?x{dtype}"
    assert f"%bias: memref<{want}>" in text
    assert f"%grad_bias: memref<{want}>" in text


@needs_fa_opt
@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_bias_backward_mlir_verifies(tmp_path, form):
    kcfg = CONFIG.with_(bias=form, heads_q=HQ, heads_kv=HKV)
    out = fa_opt_output(compiler.fa_config.backward_mlir(
        kcfg.attention_config()), tmp_path)
    assert "fa.attention_grad" in out and "bias(" in out


# -- fa_mlir.torch on CUDA (CPU tensors posing as CUDA) ----------------------

def _torch():
    return pytest.importorskip("torch")


def _routed(monkeypatch, tmp_path, form, bias_dtype="f32"):
    """Routed to the stub forward bundle with a bias (any broadcast) and
    the bias sequence of `form`, both for a bias of `bias_dtype`."""
    with open(os.path.join(INPUTS, "attention_fwd_bias.json")) as f:
        doc = json.load(f)
    doc["config"]["bias_dtype"] = bias_dtype
    shutil.copy2(os.path.join(INPUTS, "stub_kernels.cubin"), tmp_path)
    (tmp_path / "fwd.json").write_text(json.dumps(doc))
    fwd = load_bundle(str(tmp_path / "fwd.json"))
    bwd = load_bundle(sequence_dir(str(tmp_path / "bwd"), form,
                                   bias_dtype=bias_dtype))
    return Routed(monkeypatch, {"forward": fwd, "backward": bwd})


def _inputs(torch, bias_shape, bias_dtype):
    from _fake_cuda import fake_cuda
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, SQ, HQ, D, generator=g).to(torch.bfloat16)
    k, v = (torch.randn(B, SK, HKV, D, generator=g).to(torch.bfloat16)
            for _ in range(2))
    bias = torch.randn(*bias_shape, generator=g).to(bias_dtype)
    return [fake_cuda(t).requires_grad_() for t in (q, k, v, bias)]


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_cuda_backward_launches_the_bias_sequence(monkeypatch, tmp_path, form):
    torch = _torch()
    import fa_mlir.torch as fat
    routed = _routed(monkeypatch, tmp_path, form)
    q, k, v, bias = _inputs(torch, bias_shape(form), torch.float32)
    out = fat.attention(q, k, v, bias=bias, causal=True, layout="bshd")
    dq, dk, dv, dbias = torch.autograd.grad(out.float().sum(), (q, k, v, bias))
    fwd, bwd = routed.asked
    assert fwd.op == "forward" and bwd.op == "backward"
    assert bwd.bias == form and bwd.bias_dtype == "f32"
    assert not bwd.deterministic
    launched = routed.launched[1]
    # bias as given, grad_bias of its shape and dtype, the Python-allocated
    # dbias_accum (with 1 where the bias broadcasts) bound.
    assert launched["bias"].data_ptr() == bias.data_ptr()
    assert tuple(launched["grad_bias"].shape) == bias_shape(form)
    assert launched["grad_bias"].dtype == torch.float32
    assert tuple(launched["dbias_accum"].shape) == bias_shape(form)
    assert {"dq_accum", "lse_log2"} <= set(launched)
    # The runtime's check passed for all four kernels (first kernel's grid).
    assert routed.grids[1] == (2, HQ, B)
    # The gradient of the bias is the grad_bias the kernels wrote.
    assert dbias.shape == bias.shape
    assert dbias.data_ptr() == launched["grad_bias"].data_ptr()
    assert dq.shape == q.shape and dk.shape == k.shape and dv.shape == v.shape


def test_cuda_bf16_bias_and_omitted_leading_dims(monkeypatch, tmp_path):
    """A bf16 [Sq, Sk] bias is [1, 1, Sq, Sk] to the kernel; its gradient
    comes back in its own shape."""
    torch = _torch()
    import fa_mlir.torch as fat
    routed = _routed(monkeypatch, tmp_path, (False, False), "bf16")
    q, k, v, bias = _inputs(torch, (SQ, SK), torch.bfloat16)
    out = fat.attention(q, k, v, bias=bias, layout="bshd")
    (dbias,) = torch.autograd.grad(out.float().sum(), (bias,))
    assert routed.asked[1].bias == (False, False)
    assert routed.asked[1].bias_dtype == "bf16"
    assert tuple(routed.launched[1]["grad_bias"].shape) == (1, 1, SQ, SK)
    assert dbias.shape == (SQ, SK) and dbias.dtype == torch.bfloat16


def test_cuda_expanded_bias_runs_the_full_bias_kernel(monkeypatch, tmp_path):
    """A bias expanded along batch and heads (stride 0) reaches the runtime
    as it is: it has the full extents, so the per-batch, per-head kernel
    reads it through stride(bias, ...) = 0. grad_bias is a dense [B, H, Sq,
    Sk] (empty_like of an expanded tensor), which autograd sums back to the
    base's shape."""
    torch = _torch()
    import fa_mlir.torch as fat
    routed = _routed(monkeypatch, tmp_path, (True, True))
    q, k, v, base = _inputs(torch, (1, 1, SQ, SK), torch.float32)
    bias = base.expand(B, HQ, SQ, SK)
    out = fat.attention(q, k, v, bias=bias, causal=True, layout="bshd")
    (dbase,) = torch.autograd.grad(out.float().sum(), (base,))
    assert routed.asked[1].bias == (True, True)
    launched = routed.launched[1]
    assert launched["bias"].stride()[:2] == (0, 0)
    assert launched["grad_bias"].is_contiguous()
    assert tuple(launched["grad_bias"].shape) == (B, HQ, SQ, SK)
    assert dbase.shape == (1, 1, SQ, SK)


def test_cuda_deterministic_broadcast_bias_is_refused(monkeypatch, tmp_path):
    """deterministic=True with a broadcast bias: the backward's kernel
    lookup refuses it (KernelConfig.check_target), before fa-compile."""
    torch = _torch()
    from fa_mlir.torch import _ops
    refusing_compiler(monkeypatch, tmp_path, "unreachable")
    calls = fake_fa_compile(monkeypatch, rc=1, stderr="unreachable")
    q, k, v, bias = (t.detach() for t in _inputs(torch, (1, HQ, SQ, SK),
                                                   torch.float32))
    o = torch.zeros_like(q)
    lse = torch.zeros(B, HQ, SQ)
    with pytest.raises(UnsupportedError, match="deterministic with a bias "
                       "broadcast along batch"):
        _ops.backward_impl(o, q, k, v, o, lse, bias, True, None, -1, -1,
                           None, "", "bshd", True)
    assert calls == []
    registry.forget()


# -- what fa-compile writes (skipped without it) -----------------------------

@pytest.fixture(scope="module")
def compiled_forms(tmp_path_factory):
    """The sm_90a backward of a causal bshd bf16 d64 attention with a bias
    of each form (bf16 and f32 alternating), as fa-compile writes it, and
    deterministic with a bf16 bias of each broadcast form."""
    try:
        compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    root = tmp_path_factory.mktemp("bias_bwd")
    out = {}
    for i, (form, det) in enumerate(COMPILED):
        kcfg = CONFIG.with_(head_dim=64, bias=form, deterministic=det,
                            bias_dtype="bf16" if det else ("f32", "bf16")[FORMS.index(form) % 2])
        path = str(root / str(i))
        compiler.build_bundle(kcfg, "sm_90a", path)
        out[form, det] = (kcfg, path)
    return out


def test_compiler_single_head_bias_loads(tmp_path):
    """heads_q = 1 with a [B, 1, Sq, Sk] bias: fa-compile writes
    bias_broadcast [] (one head, nothing summed) and the manifest view
    agrees, so the bundle loads (it did not: the view said ["head"])."""
    try:
        compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    kcfg = CONFIG.with_(head_dim=64, heads_q=1, heads_kv=1, bias=(True, False),
                        bias_dtype="bf16")
    compiler.build_bundle(kcfg, "sm_90a", str(tmp_path))
    bundle = load_bundle(str(tmp_path))
    assert bundle.runtime.num_kernels == 3
    with open(bundle.json_path) as f:
        assert json.load(f)["config"]["bias_broadcast"] == []


@pytest.mark.parametrize("form,det", COMPILED, ids=COMPILED_IDS)
def test_compiler_bias_sequence_passes_both_readers(compiled_forms, form, det):
    """The contract of docs/BundleFormat.md (*Bias gradient*) as the
    compiler writes it: both readers load it (schema, manifest view with
    bias_broadcast and bias_dtype, libfa_runtime); where the bias
    broadcasts, four kernels end in the dBias kernel and dbias_accum has the
    literal 1 there, but summed in turn (deterministic, or a bf16 bias over
    batch alone at the 128-query tile) three
    kernels with dbias_accum in whole query tiles (128) and key blocks and
    dbias_semaphore; else three kernels that write grad_bias directly
    and no dbias_accum; bias and grad_bias required, Python's workspace
    shapes equal to the runtime's bytes, operands of the form checked."""
    kcfg, path = compiled_forms[form, det]
    bundle = load_bundle(path)
    broadcasts = form != (True, True)
    # Summed in turn: deterministic, or a bf16 bias over batch alone at
    # d64 (the 128-query tile, where turns measured faster).
    in_turn = broadcasts and (det or (form == (False, True) and kcfg.bias_dtype == "bf16"))
    assert bundle.config == kcfg
    assert bundle.runtime.num_kernels == (4 if broadcasts and not in_turn else 3)
    with open(bundle.json_path) as f:
        seq = json.load(f)
    assert fa_manifest.schema_errors(seq, SEQUENCE_SCHEMA) == []
    assert seq["config"]["bias_broadcast"] == [
        d for d, per in zip(("batch", "head"), form) if not per]
    kernels = []
    for name in seq["kernels"]:
        with open(os.path.join(path, name)) as f:
            kernels.append(json.load(f))
        assert fa_manifest.schema_errors(kernels[-1], KERNEL_SCHEMA) == []
    assert (kernels[-1]["op"] == "attention_bwd_dbias") == (broadcasts and not in_turn)
    assert bundle.runtime.required[-2:] == ["bias", "grad_bias"]
    symbols = dict(SYMBOLS, head_dim=64, head_dim_v=64)
    shapes = bundle.workspace_shapes(symbols)
    if in_turn:
        planes = bias_shape(form)[:2]
        assert shapes["dbias_accum"] == (planes + (128, 128), "f32")
        assert shapes["dbias_semaphore"] == (planes + (1, 2), "i32")
    elif broadcasts:
        assert shapes["dbias_accum"] == (bias_shape(form), "f32")
    else:
        assert "dbias_accum" not in shapes
    ops = operands(form, 64, kcfg.bias_dtype)
    assert bundle.check(ops) == (2, HQ, B)
    total = 0
    for sizes, dtype in shapes.values():
        n = 4
        for s in sizes:
            n *= s
        total += n
    assert bundle.runtime.workspace_bytes(ops) == total
    if form != (True, True):
        full = dict(ops, bias=operands((True, True), 64, kcfg.bias_dtype)["bias"])
        with pytest.raises(RuntimeLibraryError, match="config.bias_broadcast"):
            bundle.check(full)


def test_torch_op_counts_a_size_one_bias_dim_over_size_one_q_as_full():
    """fa_mlir.torch.attention's KernelConfig: a [1, H, Sq, Sk] bias at
    batch 1 is per batch (dBias stored directly, deterministic allowed);
    at batch 2 it broadcasts."""
    torch = pytest.importorskip("torch")
    from fa_mlir.torch import _ops
    bias = torch.zeros(1, 4, 8, 8)
    assert _ops._bias_flags(bias, dict(batch=1, heads_q=4)) == (True, True)
    assert _ops._bias_flags(bias, dict(batch=2, heads_q=4)) == (False, True)
    assert _ops._bias_flags(torch.zeros(2, 1, 8, 8), dict(batch=2, heads_q=1)) == (True, True)
    assert _ops._bias_flags(torch.zeros(2, 1, 8, 8), dict(batch=2, heads_q=4)) == (True, False)


def test_cuda_forward_and_backward_read_nothing_back(monkeypatch, tmp_path):
    """No device->host sync in attention on CUDA, forward or backward
    (what CUDA graph capture needs): every Tensor method that reads values
    back raises on these inputs and on what is computed from them."""
    torch = _torch()
    import fa_mlir.torch as fat
    from _fake_cuda import sync_trap
    routed = _routed(monkeypatch, tmp_path, (True, False))
    q, k, v, bias = (sync_trap(t.detach()).requires_grad_() for t in
                     _inputs(torch, bias_shape((True, False)), torch.float32))
    out = fat.attention(q, k, v, bias=bias, causal=True, layout="bshd")
    torch.autograd.grad(out.float().sum(), (q, k, v, bias))
    assert len(routed.launched) == 2
    # A bool mask becomes an additive bias on the device.
    with torch.no_grad():
        fat.attention(q, k, v, bias=sync_trap(torch.rand(SQ, SK) < 0.5),
                      causal=True, layout="bshd")
    assert routed.launched[-1]["bias"].dtype == torch.float32

"""Multi-kernel GPU bundles (fa-kernel-sequence, issue 11) without a GPU:
the runtime test sequence (test/Runtime/Inputs/bwd.json: three kernel
bundles of the stub cubin sharing three workspace buffers) through ctypes,
a sequence bundle directory with its manifest, the schema, the compile step
for the sm_90a backward (fa-compile mocked) and fa_mlir.torch's
`deterministic` argument."""
import json
import os
import shutil

import pytest

import fa_mlir
from fa_mlir import compiler, gpu_runtime, manifest as fa_manifest
from fa_mlir.bundle import GpuBundle, load_bundle, write_manifest
from fa_mlir.errors import BundleError, RuntimeLibraryError, UnsupportedError
from fa_mlir.spec import KernelConfig

from _fake_compiler import fake_fa_compile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = os.path.join(REPO, "test", "Runtime", "Inputs")
SEQUENCE = os.path.join(INPUTS, "bwd.json")
FILES = ["bwd.json", "bwd_pre.json", "bwd_main.json", "bwd_post.json",
         "stub_kernels.cubin"]
# What bwd.json was written for (bshd bf16 d128, causal).
CONFIG = KernelConfig(op="backward", dtype="bf16", head_dim=128, layout="bshd",
                      causal=True)
B, SQ, SK, HQ, HKV, D = 2, 1000, 333, 16, 4, 128
SYMBOLS = dict(batch=B, seq_q=SQ, seq_k=SK, heads_q=HQ, heads_kv=HKV,
               head_dim=D, head_dim_v=D)


def operands(addr=0x10000000):
    """The backward's standard operands (bshd), as runtime tuples."""
    def t(i, dtype, shape):
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= n
        return (addr * (i + 1), dtype, shape, tuple(strides))
    q, kv = (B, SQ, HQ, D), (B, SK, HKV, D)
    roles = [("query", q), ("key", kv), ("value", kv), ("output", q),
             ("grad_output", q), ("grad_query", q), ("grad_key", kv),
             ("grad_value", kv)]
    ops = {r: t(i, "bf16", s) for i, (r, s) in enumerate(roles)}
    ops["lse"] = t(9, "f32", (B, HQ, SQ))
    return ops


def sequence_dir(path, config=CONFIG):
    """A bundle directory holding the test sequence, with its manifest."""
    os.makedirs(path, exist_ok=True)
    for name in FILES:
        shutil.copy2(os.path.join(INPUTS, name), path)
    with open(os.path.join(path, "kernel.mlir"), "w") as f:
        f.write("// source\n")
    write_manifest(path, {
        "format": "fa-mlir-bundle", "version": 2, "target": "sm_90a",
        "op": config.op, "config": config.to_dict(), "compiler": {},
        "gpu": {"sequence": "bwd.json", "source": "kernel.mlir"}})
    return path


# -- the runtime through ctypes ---------------------------------------------

def test_runtime_loads_a_sequence():
    rt = gpu_runtime.RuntimeBundle(SEQUENCE)
    assert rt.num_kernels == 3 and rt.op == "attention_bwd"
    assert rt.kernel_name == "helper_kernel,fa_fwd_bf16_d128,helper_kernel"
    assert [w["name"] for w in rt.workspace] == ["dq_accum", "lse_log2",
                                                 "dq_semaphore"]
    assert "grad_key" in rt.required and "dq_accum" not in rt.required
    assert rt.check(operands()) == (8, HQ, B)  # the first kernel's grid


def test_workspace_bytes_match_the_python_shapes():
    rt = gpu_runtime.RuntimeBundle(SEQUENCE)
    shapes = gpu_runtime.workspace_shapes(rt.workspace, SYMBOLS)
    assert shapes == {"dq_accum": ((B, HQ, 1024, 128), "f32"),
                      "lse_log2": ((B, HQ, 1024), "f32"),
                      "dq_semaphore": ((B, HQ, 16), "i32")}
    size = {"f32": 4, "i32": 4}
    total = 0
    for sizes, dtype in shapes.values():
        n = size[dtype]
        for s in sizes:
            n *= s
        total += n
    assert rt.workspace_bytes(operands()) == total
    assert gpu_runtime.RuntimeBundle(
        os.path.join(INPUTS, "attention_fwd.json")).workspace_bytes({}) == 0


def test_passed_workspace_is_checked():
    rt = gpu_runtime.RuntimeBundle(SEQUENCE)
    ops = operands()
    ops["dq_accum"] = (0x7000000, "f32", (B, HQ, 1000, 128),
                       (HQ * 1000 * 128, 1000 * 128, 128, 1))
    with pytest.raises(RuntimeLibraryError, match="operand 'dq_accum': "
                       "dimension 2 \\(seq\\) is 1000, expected 1024"):
        rt.check(ops)


@pytest.mark.parametrize("text, value", [
    ("ceildiv(seq_q, 64) * 64", 1024), ("seq_q / 64", 15), ("-7 / 2", -3),
    ("ceildiv(7, 2)", 4), ("min(seq_q, seq_k) + max(1, 2)", 335), (128, 128),
    ("stride(query, seq)", None), ("size(capture0, dim1)", None),
    ("num_sms", None), ("seq_q * 0.5", None),
    ("1 / 0", None), ("__import__('os')", None)])
def test_shape_expressions(text, value):
    assert gpu_runtime.eval_int_expr(text, SYMBOLS) == value


# -- bundle directories and manifests ---------------------------------------

def test_sequence_bundle_dir_loads(tmp_path):
    path = sequence_dir(str(tmp_path / "b"))
    with open(os.path.join(path, "manifest.json")) as f:
        files = json.load(f)["files"]
    # The sequence, every kernel JSON, the shared cubin once, the source.
    assert sorted(files) == sorted(FILES + ["kernel.mlir"])
    bundle = load_bundle(path)
    assert isinstance(bundle, GpuBundle) and bundle.is_sequence
    assert bundle.config == CONFIG and bundle.target == "sm_90a"
    assert bundle.runtime.num_kernels == 3
    assert set(bundle.workspace_shapes(SYMBOLS)) == {"dq_accum", "lse_log2",
                                                     "dq_semaphore"}


def test_bare_sequence_json_loads():
    bundle = load_bundle(SEQUENCE)
    assert bundle.is_sequence and bundle.config is None
    assert len(bundle.workspace) == 3


@pytest.mark.parametrize("name", ["bwd_main.json", "stub_kernels.cubin",
                                  "bwd.json"])
def test_a_changed_kernel_file_is_refused(tmp_path, name):
    path = sequence_dir(str(tmp_path / "b"))
    with open(os.path.join(path, name), "ab") as f:
        f.write(b" ")
    with pytest.raises(BundleError, match=f"{name} is not the file"):
        load_bundle(path)


def test_manifest_config_must_match_the_sequence(tmp_path):
    path = sequence_dir(str(tmp_path / "b"), CONFIG.with_(layout="bhsd"))
    with pytest.raises(BundleError, match="does not match the manifest"):
        load_bundle(path)
    path = sequence_dir(str(tmp_path / "c"), CONFIG.with_(deterministic=True))
    with pytest.raises(BundleError, match="does not match the manifest"):
        load_bundle(path)


# A mask_mod that states causal (FlexAttention's signature, as traced).
CAUSAL_MASK_MOD = ("{\n^bb0(%b: index, %h: index, %q_idx: index, %kv_idx: index):\n"
                   "  %v0 = arith.cmpi sge, %q_idx, %kv_idx : index\n"
                   "  fa.yield %v0 : i1\n}")


def test_a_band_folded_from_mask_mod_matches(tmp_path):
    # fa-compile folds causal written as a mask_mod into the attribute: the
    # sequence says causal where the config has the region instead.
    path = sequence_dir(str(tmp_path / "b"),
                        CONFIG.with_(causal=False, mask_mod=CAUSAL_MASK_MOD))
    assert load_bundle(path).is_sequence
    # Without a mask_mod, causal must agree.
    path = sequence_dir(str(tmp_path / "c"), CONFIG.with_(causal=False))
    with pytest.raises(BundleError, match="does not match the manifest"):
        load_bundle(path)


def test_manifest_must_name_the_right_format(tmp_path):
    path = sequence_dir(str(tmp_path / "b"))
    m = fa_manifest.read_json(os.path.join(path, "manifest.json"), "m")
    m["gpu"] = {"bundle": "bwd.json", "source": "kernel.mlir"}
    write_manifest(path, m)
    with pytest.raises(BundleError, match="is an fa-kernel-sequence, but the "
                       "manifest names an fa-kernel-bundle"):
        load_bundle(path)
    m["gpu"] = {"bundle": "bwd_pre.json", "sequence": "bwd.json",
                "source": "kernel.mlir"}
    with pytest.raises(BundleError, match="gpu"):
        write_manifest(path, m)


def _sequence_doc():
    with open(SEQUENCE) as f:
        return json.load(f)


@pytest.mark.parametrize("change, where", [
    (lambda d: d["workspace"][0].pop("init"), "init"),
    (lambda d: d["workspace"][0].update(init="ones"), "init"),
    (lambda d: d["workspace"][1].update(align=16), "align"),
    (lambda d: d.update(kernels=[]), "kernels"),
    (lambda d: d.update(kernels=["a.json"] * 9), "kernels"),
    (lambda d: d.pop("workspace"), "workspace"),
])
def test_schema_refuses(change, where):
    doc = _sequence_doc()
    assert fa_manifest.schema_errors(doc, "kernel-sequence.schema.json") == []
    change(doc)
    errors = fa_manifest.schema_errors(doc, "kernel-sequence.schema.json")
    assert errors and where in " ".join(errors)


def test_nested_sequence_is_refused(tmp_path):
    for name in FILES:
        shutil.copy2(os.path.join(INPUTS, name), tmp_path)
    doc = _sequence_doc()
    doc["kernels"][1] = "bwd.json"
    (tmp_path / "outer.json").write_text(json.dumps(doc))
    with pytest.raises(BundleError, match="sequences do not nest"):
        load_bundle(str(tmp_path / "outer.json"))
    with pytest.raises(RuntimeLibraryError, match="sequences do not nest"):
        gpu_runtime.RuntimeBundle(str(tmp_path / "outer.json"))


# -- compiling the sm_90a backward (fa-compile mocked) -----------------------

def test_fa_compile_command():
    cmd = compiler.fa_compile_command("fa-compile", "k.mlir", "out", CONFIG)
    assert cmd == ["fa-compile", "k.mlir", "-o", "out"]
    cmd = compiler.fa_compile_command("fa-compile", "k.mlir", "out",
                                      CONFIG.with_(deterministic=True))
    assert cmd[-1] == "--deterministic"
    # The forward has no such choice (deterministic is canonicalized away).
    fwd = CONFIG.with_(op="forward", deterministic=True)
    assert not fwd.deterministic
    assert "--deterministic" not in compiler.fa_compile_command(
        "fa-compile", "k.mlir", "out", fwd)


def test_backward_refused_by_fa_compile_is_unsupported(monkeypatch, tmp_path):
    msg = ("error: 'fa.attention_grad' op convert-fa-to-nvvm: the sm_90a back "
           "end has no backward kernel yet; lower fa.attention_grad with "
           "fa-cpu-pipeline instead")
    fake_fa_compile(monkeypatch, rc=1, stderr=msg)
    with pytest.raises(UnsupportedError, match="no backward kernel yet"):
        compiler._build_sm90a(CONFIG, str(tmp_path))
    # fa-compile gets the backward function (fa.attention_grad).
    with open(tmp_path / "kernel.mlir") as f:
        assert "fa.attention_grad" in f.read()


def test_backward_builds_a_sequence_bundle(monkeypatch, tmp_path):
    calls = fake_fa_compile(monkeypatch, writes=FILES)
    kcfg = CONFIG
    out = str(tmp_path / "b")
    compiler.build_bundle(kcfg, "sm_90a", out, version={"fa-compile": "x"})
    assert calls and "--deterministic" not in calls[0]
    with open(os.path.join(out, "manifest.json")) as f:
        assert json.load(f)["gpu"] == {"sequence": "bwd.json",
                                       "source": "kernel.mlir"}
    assert load_bundle(out).is_sequence


def test_backward_needs_exactly_one_sequence(monkeypatch, tmp_path):
    fake_fa_compile(monkeypatch, writes=["attention_fwd.json",
                                          "stub_kernels.cubin"])
    with pytest.raises(fa_mlir.CompileError, match="0 fa-kernel-sequence"):
        compiler._build_sm90a(CONFIG, str(tmp_path))


# -- fa_mlir.torch: deterministic= ------------------------------------------

def _torch():
    return pytest.importorskip("torch")


def _qkv(torch, grad=True):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(*s, generator=g).requires_grad_(grad)
            for s in ((1, 2, 5, 8), (1, 1, 6, 8), (1, 1, 6, 8))]


def test_torch_deterministic_on_cpu_is_the_same_kernel():
    torch = _torch()
    import fa_mlir.torch as fat
    from fa_mlir import registry
    from fa_mlir.errors import ArgumentError
    registry.forget()
    results = []
    for det in (False, True):
        q, k, v = _qkv(torch)
        out = fat.attention(q, k, v, causal=True, deterministic=det)
        results.append((out,) + torch.autograd.grad(out.sum(), (q, k, v)))
    assert all(torch.equal(a, b) for a, b in zip(*results))
    # The CPU backward is deterministic already: one kernel serves both.
    ops = sorted(k.op for k, _ in registry._loaded)
    assert ops == ["backward", "forward"]
    with pytest.raises(ArgumentError, match="deterministic"):
        fat.attention(*_qkv(torch, False), deterministic="yes")


def test_torch_backward_opcheck_and_compile_with_deterministic():
    torch = _torch()
    import fa_mlir.torch as fat
    q, k, v = _qkv(torch, grad=False)
    options = (None, True, None, -1, -1, None, "", "bhsd")
    regions = ("", "", [])  # score_mod, mask_mod, captures: none
    o, lse = torch.ops.fa_mlir.attention_forward(q, k, v, *options, *regions)
    torch.library.opcheck(torch.ops.fa_mlir.attention_backward.default,
                          (torch.randn_like(o), q, k, v, o, lse) + options +
                          (True,) + regions)
    q, k, v = _qkv(torch)

    def loss(q, k, v):
        return fat.attention(q, k, v, causal=True, deterministic=True).sum()
    compiled = torch.compile(loss, backend="aot_eager", fullgraph=True)
    ga = torch.autograd.grad(compiled(q, k, v), (q, k, v))
    gb = torch.autograd.grad(loss(q, k, v), (q, k, v))
    assert all(torch.allclose(x, y) for x, y in zip(ga, gb))


def test_torch_cuda_backward_reports_fa_compile_refusal(monkeypatch):
    """The CUDA path up to the kernel: compiling the sm_90a backward, which
    fa-compile refuses (mocked), is an UnsupportedError with its message."""
    torch = _torch()
    from fa_mlir import registry
    from fa_mlir.torch import _ops
    registry.forget()
    monkeypatch.setattr(_ops, "_target", lambda t: "sm_90a")
    monkeypatch.setattr(compiler, "target_version", lambda t: {"t": t})
    monkeypatch.setenv("FA_MLIR_BUNDLE_PATH", "")
    calls = fake_fa_compile(
        monkeypatch, rc=1, stderr="error: the sm_90a back end has no "
        "backward kernel yet")
    q, k, v = _qkv(torch, grad=False)
    o = torch.zeros_like(q)
    lse = torch.zeros(1, 2, 5)
    with pytest.raises(UnsupportedError, match="no backward kernel yet"):
        _ops.backward_impl(o, q, k, v, o, lse, None, True, None, -1, -1,
                           None, "", "bhsd", True)
    assert calls[-1][-1] == "--deterministic"
    registry.forget()


def test_backward_sequence_config_may_say_return_lse_false(tmp_path):
    # return_lse describes a forward; a backward sequence's config may carry
    # any value (the manifest's backward KernelConfig always says True).
    path = str(tmp_path / "b")
    os.makedirs(path)
    for name in FILES:
        shutil.copy2(os.path.join(INPUTS, name), path)
    doc = _sequence_doc()
    doc["config"]["return_lse"] = False
    with open(os.path.join(path, "bwd.json"), "w") as f:
        json.dump(doc, f)
    with open(os.path.join(path, "kernel.mlir"), "w") as f:
        f.write("// source\n")
    write_manifest(path, {
        "format": "fa-mlir-bundle", "version": 2, "target": "sm_90a",
        "op": "backward", "config": CONFIG.to_dict(), "compiler": {},
        "gpu": {"sequence": "bwd.json", "source": "kernel.mlir"}})
    assert load_bundle(path).config == CONFIG

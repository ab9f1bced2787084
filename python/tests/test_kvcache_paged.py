"""Paged KV caches and in-place appends of the sm_90a decode kernel, on the
host: the roles and symbols as both readers (libfa_runtime's BundleSpec and
fa_mlir's signature/config) know them, the KernelConfig and the MLIR it
generates, and attention_with_kvcache's CUDA route (on CPU tensors posing
as CUDA) up to libfa_runtime's check of the operands it builds.

The kernels are test/Runtime/Inputs/kvcache_{paged,paged_append,append}.json
(sequences over the stub cubin, docs/BundleFormat.md *Paged caches and
appends*), which a mocked fa-compile "writes"; the launch itself is
python/tests/gpu/test_gpu_kvcache.py."""
import json
import os
import shutil
import subprocess

import pytest

torch = pytest.importorskip("torch")

import fa_mlir  # noqa: E402
import fa_mlir.torch as fat  # noqa: E402
from fa_mlir import compiler, config as fa_config, gpu_runtime  # noqa: E402
from fa_mlir import manifest as fa_manifest  # noqa: E402
from fa_mlir import registry as fa_registry  # noqa: E402
from fa_mlir.errors import (ArgumentError, RuntimeLibraryError,  # noqa: E402
                            UnsupportedError)
from fa_mlir.signature import (role_dims, role_dtype, signature,  # noqa: E402
                               symbols_of)
from fa_mlir.spec import KernelConfig  # noqa: E402

from _cuda_route import (Routed as _Routed, refusing_compiler,  # noqa: E402
                         runtime_operands)
from _fake_compiler import INPUTS, fake_fa_compile  # noqa: E402
from _fake_cuda import fake_cuda, sync_trap  # noqa: E402

BASE = KernelConfig(op="kvcache", dtype="bf16", head_dim=128, layout="bshd",
                    causal=True)
# Each form: its KernelConfig, its stub sequence and the kernel files.
FORMS = {
    "paged": (BASE.with_(page_size=64), "kvcache_paged.json",
              ["kvcache_paged_partial.json", "kvcache_combine.json"]),
    "paged_append": (BASE.with_(page_size=64, append=True),
                     "kvcache_paged_append.json",
                     ["kvcache_append_paged.json",
                      "kvcache_paged_partial.json", "kvcache_combine.json"]),
    "append": (BASE.with_(append=True), "kvcache_append.json",
               ["kvcache_append_contiguous.json", "kvcache_unsplit.json"]),
}
# Distinct sizes, so that a dim read in the wrong place shows.
SIZES = dict(batch=3, seq_q=2, heads_q=8, heads_kv=2, head_dim=128,
             head_dim_v=128, num_pages=11, page_size=64, max_pages=5,
             seq_new=3, seq_k=320)
LENGTHS = [100, 0, 250]


def sequence(form):
    return gpu_runtime.RuntimeBundle(os.path.join(INPUTS, FORMS[form][1]))


# -- KernelConfig -----------------------------------------------------------

@pytest.mark.parametrize("form", FORMS)
def test_config_round_trips(form):
    kcfg = FORMS[form][0]
    assert KernelConfig.from_dict(kcfg.to_dict()) == kcfg
    assert kcfg.key() != BASE.key()


def test_contiguous_configs_keep_their_keys():
    # The new fields are left out at their defaults: cached and AOT kernels
    # of every other configuration keep their keys.
    for kcfg in (BASE, KernelConfig(), KernelConfig(op="backward")):
        d = kcfg.to_dict()
        assert "page_size" not in d and "append" not in d
    assert FORMS["paged"][0].to_dict()["page_size"] == 64
    assert FORMS["append"][0].to_dict()["append"] is True


@pytest.mark.parametrize("change, message", [
    (dict(page_size=0), r"page_size must be an int in \[1, "),
    (dict(page_size=16.0), "page_size must be an int"),
    (dict(page_size=True), "page_size must be an int"),
    (dict(append="yes"), "append must be True or False"),
    (dict(page_size=16, op="forward"),
     "page_size and append are op kvcache options"),
    (dict(append=True, op="backward"),
     "page_size and append are op kvcache options"),
    (dict(page_size=16, seq_q=1, seq_k=1024),
     "op kvcache with page_size takes no seq_q/seq_k"),
])
def test_config_refuses(change, message):
    with pytest.raises(ArgumentError, match=message):
        BASE.with_(**change)


def test_manifest_schema_takes_the_new_fields():
    for kcfg, *_ in FORMS.values():
        doc = {"format": "fa-mlir-bundle", "version": 2, "target": "sm_90a",
               "op": "kvcache", "config": kcfg.to_dict(), "compiler": {},
               "files": {"a.json": "0" * 64}, "digest": "0" * 64,
               "gpu": {"sequence": "a.json", "source": "kernel.mlir"}}
        assert fa_manifest.schema_errors(doc, "manifest.schema.json") == []
        doc["config"]["page_size"] = 0
        assert fa_manifest.schema_errors(doc, "manifest.schema.json")


# -- the readers --------------------------------------------------------------

def test_signature_of_paged_append():
    sig = {a["role"]: a for a in signature(FORMS["paged_append"][0])}
    assert list(sig) == ["query", "key_cache", "value_cache", "cache_seqlens",
                         "block_table", "key_new", "value_new", "output",
                         "lse"]
    assert sig["key_cache"]["shape"] == ["num_pages", 64, "heads_kv", 128]
    assert sig["value_cache"]["shape"] == ["num_pages", 64, "heads_kv", 128]
    assert sig["block_table"] == {"role": "block_table", "dtype": "i32",
                                  "shape": ["batch", "max_pages"],
                                  "output": False}
    assert sig["key_new"]["shape"] == ["batch", "seq_new", "heads_kv", 128]
    assert sig["key_new"]["dtype"] == "bf16"
    # The caches keep one order in bhsd too; the new tokens follow it.
    bhsd = KernelConfig(op="forward", layout="bhsd", head_dim=128)
    assert role_dims(bhsd, "key_cache") == ("num_pages", "page_size",
                                            "heads_kv", "head_dim")
    assert role_dims(bhsd, "key_new") == ("batch", "heads_kv", "seq_new",
                                          "head_dim")
    assert role_dtype(bhsd, "block_table") == "i32"


@pytest.mark.parametrize("form", FORMS)
def test_both_readers_require_the_same_operands(form):
    kcfg, name, _ = FORMS[form]
    acfg = kcfg.attention_config()
    ins, outs = fa_config.op_roles("kvcache", acfg)
    assert set(sequence(form).required) == set(ins + outs)


@pytest.mark.parametrize("form", FORMS)
def test_both_readers_agree_on_shapes_and_symbols(form):
    # Python shapes every operand from its reader; the runtime must accept
    # them (dtypes, ranks, the symbols bound across roles), and its workspace
    # must be what Python evaluates from the same symbols.
    kcfg = FORMS[form][0]
    rt = sequence(form)
    ops = runtime_operands(kcfg, SIZES)
    assert rt.check(ops)[1:] == (SIZES["heads_kv"], SIZES["batch"])
    symbols = symbols_of(kcfg, {r: v[2] for r, v in ops.items()})
    assert {k: symbols[k] for k in SIZES if k in symbols} == {
        k: v for k, v in SIZES.items() if k in symbols}
    assert ("seq_k" in symbols) == (kcfg.page_size is None)
    assert ("seq_new" in symbols) == kcfg.append
    shapes = gpu_runtime.workspace_shapes(rt.workspace, symbols)
    total = sum(4 * _numel(s) for s, _ in shapes.values())
    assert rt.workspace_bytes(ops) == total
    if kcfg.page_size:  # ceildiv(max_pages * page_size, 1024) splits
        assert shapes["lse_partial"][0] == (1, 3, 8, 2)


@pytest.mark.skipif(not os.path.exists(os.path.join(
    compiler.build_dir(), "bin", "fa-compile")),
    reason="no fa-compile in this build")
@pytest.mark.parametrize("form", FORMS)
def test_compiler_bundles_pass_both_readers(form, tmp_path):
    # What fa-compile writes for the form (once convert-fa-to-nvvm lowers
    # it): the manifest, schemas and hashes (bundle.py), the runtime's
    # reader, and the runtime's check of operands Python shapes.
    kcfg = FORMS[form][0]
    try:
        compiler.build_bundle(kcfg, "sm_90a", str(tmp_path / "b"))
    except UnsupportedError as e:
        if "no sm_90a kernel yet" not in str(e):
            raise
        pytest.skip(f"this fa-compile does not lower {form} yet")
    bundle = fa_mlir.load_bundle(str(tmp_path / "b"))
    assert bundle.config == kcfg and bundle.is_sequence
    rt = bundle.runtime
    assert rt.op == "attention_kvcache_" + form
    ops = runtime_operands(kcfg, SIZES)
    assert all(n >= 1 for n in rt.check(ops))  # the first kernel's grid
    symbols = symbols_of(kcfg, {r: v[2] for r, v in ops.items()})
    assert len(bundle.workspace_shapes(dict(symbols, num_sms=132))) == 2


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def test_runtime_reads_each_new_symbol_where_python_does(tmp_path):
    # A bundle whose grid reads every new symbol: the runtime's values,
    # from tensors Python shaped, equal Python's evaluation of the grid.
    kcfg = FORMS["paged_append"][0]
    grid = ["num_pages * 10000 + page_size * 100 + max_pages",
            "seq_new * 100 + heads_kv", "batch"]
    doc = fa_manifest.read_json(os.path.join(INPUTS,
                                             "kvcache_append_paged.json"),
                                "bundle")
    doc["grid"] = grid
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(doc))
    shutil.copy2(os.path.join(INPUTS, "stub_kernels.cubin"), tmp_path)
    rt = gpu_runtime.RuntimeBundle(str(path))
    ops = runtime_operands(kcfg, SIZES)
    symbols = symbols_of(kcfg, {r: v[2] for r, v in ops.items()})
    want = tuple(gpu_runtime.eval_int_expr(e, symbols) for e in grid)
    assert want == (116405, 302, 3)
    assert rt.check(ops) == want


@pytest.mark.parametrize("change, message", [
    (dict(block_table=("i64", (3, 5))),
     "operand 'block_table': dtype is i64, expected i32"),
    (dict(block_table=("i32", (2, 5))),
     r"operand 'block_table': dimension 0 \(batch\) is 2, expected 3"),
    (dict(block_table=("i32", (15,))),
     r"operand 'block_table': expected rank 2 \[batch, page\]"),
    (dict(key_new=("f16", (3, 3, 2, 128))),
     "operand 'key_new': dtype is f16, expected bf16"),
    (dict(key_new=("bf16", (3, 3, 4, 128))),
     r"operand 'key_new': dimension 2 \(head\) is 4, expected 2 \(heads_kv, "
     "from 'key_cache'\\)"),
    (dict(value_new=("bf16", (3, 4, 2, 128))),
     r"operand 'value_new': dimension 1 \(seq\) is 4, expected 3 \(seq_new"),
    (dict(value_cache=("bf16", (11, 32, 2, 128))),
     r"operand 'value_cache': dimension 1 \(row\) is 32, expected 64 "
     r"\(page_size"),
])
def test_runtime_errors_name_the_tensor(change, message):
    with pytest.raises(RuntimeLibraryError, match=message):
        sequence("paged_append").check(
            runtime_operands(FORMS["paged_append"][0], SIZES, **change))


def test_runtime_requires_the_paged_operands():
    ops = runtime_operands(FORMS["paged_append"][0], SIZES)
    for role in ("block_table", "key_new", "key_cache"):
        missing = {r: v for r, v in ops.items() if r != role}
        with pytest.raises(RuntimeLibraryError,
                           match=f"missing operand '{role}'"):
            sequence("paged_append").check(missing)


# -- the MLIR fa-compile gets -------------------------------------------------

def test_paged_append_mlir():
    text = compiler._sm90a_mlir(FORMS["paged_append"][0].with_(
        window=(100, 0)))
    cache = "tensor<?x64x?x128xbf16>"
    assert ("%output_r, %lse_r, %key_cache_r, %value_cache_r = "
            "fa.attention_kvcache %query, %key_cache, %value_cache, "
            "%cache_seqlens : tensor<?x?x?x128xbf16>, "
            f"{cache}, {cache}, tensor<?xi32> "
            "block_table(%block_table : tensor<?x?xi32>) "
            "append(%key_new, %value_new : tensor<?x?x?x128xbf16>, "
            "tensor<?x?x?x128xbf16>) "
            "{causal, window = array<i64: 100, 0>, num_splits = 0 : i64} -> "
            "tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>, "
            f"{cache}, {cache}\n") in text
    assert ("%block_table: tensor<?x?xi32>, %key_new: tensor<?x?x?x128xbf16>"
            in text)


def test_paged_and_append_mlir_alone():
    paged = compiler._sm90a_mlir(FORMS["paged"][0])
    assert "block_table(%block_table : tensor<?x?xi32>) {causal" in paged
    assert "append" not in paged and "%key_cache_r" not in paged
    append = compiler._sm90a_mlir(FORMS["append"][0])
    assert ("%output_r, %lse_r, %key_r, %value_r = fa.attention_kvcache "
            "%query, %key, %value, %cache_seqlens") in append
    assert "block_table" not in append
    # The contiguous form is what it was.
    assert compiler._sm90a_mlir(BASE).count("fa.attention_kvcache %query, "
                                            "%key, %value, %cache_seqlens :"
                                            " ") == 1


@pytest.mark.skipif(not os.path.exists(os.path.join(
    compiler.build_dir(), "bin", "fa-opt")), reason="no fa-opt in this build")
@pytest.mark.parametrize("form", FORMS)
def test_mlir_verifies(form, tmp_path):
    # fa-opt parses and verifies the op (FAOps.td's syntax and verifier).
    src = tmp_path / "k.mlir"
    src.write_text(compiler._sm90a_mlir(FORMS[form][0]))
    fa_opt = os.path.join(compiler.build_dir(), "bin", "fa-opt")
    proc = subprocess.run([fa_opt, str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "fa.attention_kvcache" in proc.stdout


@pytest.mark.parametrize("stderr", [
    # What the lowering says today, and what it will say of a page size it
    # cannot tile: both are the user's UnsupportedError, message included.
    "error: 'fa.attention_kvcache' op convert-fa-to-nvvm: paged KV caches "
    "(block_table) have no sm_90a kernel yet",
    "error: 'fa.attention_kvcache' op convert-fa-to-nvvm: page_size 24 must "
    "be a multiple of 8 and divide or be divided by the key tile (128)",
])
def test_compiler_refusal_is_unsupported(monkeypatch, tmp_path, stderr):
    fake_fa_compile(monkeypatch, rc=1, stderr=stderr)
    with pytest.raises(UnsupportedError, match="fa-compile failed for sm_90a"
                       "(.|\n)*" + stderr[-30:].replace("(", r"\(")
                       .replace(")", r"\)")):
        compiler._build_sm90a(BASE.with_(page_size=24), str(tmp_path))


# -- attention_with_kvcache on CUDA -------------------------------------------

@pytest.fixture
def built(monkeypatch, tmp_path):
    """form -> the bundle directory compile() would make for it, with the
    stub sequence as fa-compile's output."""
    def build(form):
        kcfg, name, kernels = FORMS[form]
        fake_fa_compile(monkeypatch, [name] + kernels +
                         ["stub_kernels.cubin"])
        out = str(tmp_path / form)
        compiler.build_bundle(kcfg, "sm_90a", out, version={"fa-compile": "x"})
        return fa_mlir.load_bundle(out)
    return build


def cache_inputs(paged=True, append=True, lengths=LENGTHS, seed=0):
    """q [B, 2, 8, 128] bf16; paged caches [16, 64, 2, 128] with a block
    table [B, 5] of scattered pages, or contiguous [B, 320, 2, 128]; new
    tokens [B, 3, 2, 128]."""
    g = torch.Generator().manual_seed(seed)
    b = len(lengths)

    def randn(*shape):
        return fake_cuda(torch.randn(*shape, generator=g).bfloat16())
    q = randn(b, 2, 8, 128)
    rows = (16, 64) if paged else (b, 320)
    kc, vc = randn(*rows, 2, 128), randn(*rows, 2, 128)
    table = None
    if paged:
        perm = torch.randperm(16, generator=g)[:b * 5].to(torch.int32)
        table = fake_cuda(perm.reshape(b, 5).contiguous())
    new = (randn(b, 3, 2, 128), randn(b, 3, 2, 128)) if append else (None,
                                                                     None)
    lens = fake_cuda(torch.tensor(lengths, dtype=torch.int32))
    return q, kc, vc, lens, table, new


def call(q, kc, vc, lens, table, new, **options):
    return fat.attention_with_kvcache(q, kc, vc, cache_seqlens=lens,
                                      block_table=table, k=new[0], v=new[1],
                                      causal=True, **options)


@pytest.mark.parametrize("form", FORMS)
def test_cuda_asks_for_the_form_and_passes_the_runtime_check(
        monkeypatch, built, form):
    routed = _Routed(monkeypatch, built(form))
    kcfg = FORMS[form][0]
    inputs = cache_inputs(paged=kcfg.page_size is not None,
                          append=kcfg.append)
    q, kc, vc, lens, table, new = inputs
    out = call(*inputs)
    (asked,) = routed.asked
    assert asked == kcfg.with_(heads_q=8, heads_kv=2)
    (tensors,) = routed.launched
    key = "key_cache" if kcfg.page_size else "key"
    # The caches are the caller's tensors (the append writes into them).
    assert tensors[key] is kc
    assert tensors["value_cache" if kcfg.page_size else "value"] is vc
    assert tensors["cache_seqlens"].dtype == torch.int32
    if kcfg.append:
        assert tensors["key_new"] is new[0]
    if kcfg.page_size:
        assert torch.equal(tensors["block_table"], table)
    # Workspace from Python's symbols: a paged launch has no seq_k.
    (symbols,) = routed.symbols
    assert ("seq_k" in symbols) == (kcfg.page_size is None)
    if kcfg.page_size:
        assert (symbols["num_pages"], symbols["page_size"],
                symbols["max_pages"]) == (16, 64, 5)
        assert tensors["o_partial"].shape == (1, 3, 8, 2, 128)
    assert ("seq_new" in symbols) == kcfg.append
    assert out.shape == q.shape and out is tensors["output"]
    assert routed.grids[0][2] == 3


def test_launch_takes_an_int32_block_table_only(monkeypatch, built):
    # fa_mlir.torch.launch on the paged bundle: the block table is checked
    # against the signature (int32 [batch, max_pages]) before the runtime.
    bundle = built("paged")
    launched = []
    monkeypatch.setattr(bundle, "launch",
                        lambda tensors, stream=None: launched.append(tensors))
    q, kc, vc, lens, table, _ = cache_inputs(append=False)
    args = dict(query=q, key_cache=kc, value_cache=vc, cache_seqlens=lens,
                output=fake_cuda(torch.empty(q.shape, dtype=q.dtype)),
                lse=fake_cuda(torch.empty(3, 8, 2)))
    with pytest.raises(ArgumentError, match="'block_table' has dtype "
                       "torch.int64, expected torch.int32"):
        fat.launch(bundle, stream=0, block_table=table.long(), **args)
    with pytest.raises(ArgumentError, match=r"'key_cache' dimension 1 is 32, "
                       r"expected 64"):
        fat.launch(bundle, stream=0, block_table=table,
                   **dict(args, key_cache=kc[:, :32]))
    fat.launch(bundle, stream=0, block_table=table, **args)
    assert launched[0]["block_table"][1] == "i32"


def test_cuda_paged_cache_may_be_strided(monkeypatch, built):
    # Read only: a strided paged cache goes to the kernel as it is.
    routed = _Routed(monkeypatch, built("paged"))
    q, _, _, lens, table, new = cache_inputs(append=False)
    wide = fake_cuda(torch.zeros(16, 64, 4, 128, dtype=torch.bfloat16))
    kc, vc = wide[:, :, :2], wide[:, :, 2:]
    call(q, kc, vc, lens, table, new)
    assert routed.launched[0]["key_cache"].stride() == kc.stride()


@pytest.mark.parametrize("paged", [True, False], ids=["paged", "contiguous"])
@pytest.mark.parametrize("cache", ["k_cache", "v_cache"])
def test_cuda_append_needs_contiguous_caches(monkeypatch, paged, cache):
    routed = _Routed(monkeypatch)
    q, kc, vc, lens, table, new = cache_inputs(paged=paged)
    wide = fake_cuda(torch.zeros(*kc.shape[:2], 4, 128,
                                 dtype=torch.bfloat16))
    strided = {"k_cache": kc, "v_cache": vc}
    strided[cache] = wide[:, :, :2]
    with pytest.raises(ArgumentError, match=f"{cache} must be contiguous to "
                       "append into it on CUDA"):
        call(q, strided["k_cache"], strided["v_cache"], lens, table, new)
    assert routed.asked == []


@pytest.mark.parametrize("edit, message", [
    (lambda i: i.update(table=i["table"].long()),
     "block_table has dtype torch.int64, expected torch.int32"),
    (lambda i: i.update(table=i["table"][:2]),
     "block_table has 2 rows, expected 3"),
    (lambda i: i.update(table=i["table"].reshape(-1)),
     "block_table must have rank 2"),
    (lambda i: i.update(new=(i["new"][0].float(), i["new"][1])),
     "k has dtype torch.float32, expected torch.bfloat16"),
    (lambda i: i.update(new=(i["new"][0][:, :, :1], i["new"][1])),
     r"k dimension 2 is 1, expected 2 \(from k_cache\)"),
    (lambda i: i.update(new=(i["new"][0], i["new"][1][:, :2])),
     r"v dimension 1 is 2, expected 3 \(from k\)"),
    (lambda i: i.update(new=(i["new"][0], None)),
     "k and v are appended together"),
])
def test_cuda_argument_errors_name_the_tensor(monkeypatch, edit, message):
    routed = _Routed(monkeypatch)
    q, kc, vc, lens, table, new = cache_inputs()
    i = dict(table=table, new=new, lens=lens)
    edit(i)
    with pytest.raises(ArgumentError, match=message):
        call(q, kc, vc, i["lens"], i["table"], i["new"])
    assert routed.asked == []


# Checks of cache_seqlens' and block_table's values: a device->host read,
# so on CUDA only with FA_MLIR_DEBUG_CHECKS=1.
VALUE_ERRORS = [
    (lambda i: i.update(table=fake_cuda(torch.full((3, 5), 16,
                                                   dtype=torch.int32))),
     r"block_table\[0, 0\] is 16, outside the cache's 16 pages"),
    (lambda i: i.update(lens=fake_cuda(torch.tensor([318, 0, 0],
                                                    dtype=torch.int32))),
     "sequence 0 needs 6 pages for 321 keys, block_table has 5"),
    (lambda i: i.update(lens=fake_cuda(torch.tensor([3, -1, 0],
                                                    dtype=torch.int32))),
     r"cache_seqlens\[1\] is -1, must be >= 0"),
]


@pytest.mark.parametrize("edit, message", VALUE_ERRORS)
def test_cuda_value_checks_only_when_asked(monkeypatch, built, edit,
                                           message):
    routed = _Routed(monkeypatch, built("paged_append"))
    q, kc, vc, lens, table, new = cache_inputs()
    i = dict(table=table, new=new, lens=lens)
    edit(i)
    monkeypatch.setenv("FA_MLIR_DEBUG_CHECKS", "1")
    with pytest.raises(ArgumentError, match=message):
        call(q, kc, vc, i["lens"], i["table"], i["new"])
    assert routed.asked == []
    # Without the flag the values are not read: the kernels trust them.
    monkeypatch.setenv("FA_MLIR_DEBUG_CHECKS", "0")
    call(q, kc, vc, i["lens"], i["table"], i["new"])
    assert len(routed.launched) == 1


@pytest.mark.parametrize("form", FORMS)
def test_cuda_reads_nothing_back(monkeypatch, built, form):
    """No device->host sync (what CUDA graph capture needs): every Tensor
    method that reads values back raises on these inputs and on what is
    computed from them, and the call still launches once."""
    routed = _Routed(monkeypatch, built(form))
    kcfg = FORMS[form][0]
    q, kc, vc, lens, table, new = cache_inputs(
        paged=kcfg.page_size is not None, append=kcfg.append)
    trap = lambda t: None if t is None else sync_trap(t)  # noqa: E731
    out = call(trap(q), trap(kc), trap(vc), trap(lens), trap(table),
               tuple(trap(t) for t in new))
    assert len(routed.launched) == 1 and out.shape == (3, 2, 8, 128)
    # An int cache_seqlens is known on the host: checked, and made a tensor
    # on the device by a fill (no copy from the host).
    full = torch.full
    monkeypatch.setattr(torch, "full", lambda *a, device=None, **k:
                        fake_cuda(full(*a, **k)))
    call(trap(q), trap(kc), trap(vc), 7, trap(table),
         tuple(trap(t) for t in new))
    assert routed.launched[-1]["cache_seqlens"].tolist() == [7, 7, 7]
    with pytest.raises(ArgumentError, match="capacity|pages for"):
        call(trap(q), trap(kc), trap(vc), 10**4, trap(table),
             tuple(trap(t) for t in new))


def test_cuda_compile_refusal_reaches_the_caller(monkeypatch, tmp_path):
    # No bundle anywhere: the call compiles, and fa-compile's diagnostic is
    # the UnsupportedError the caller sees.
    msg = ("error: 'fa.attention_kvcache' op convert-fa-to-nvvm: page_size "
           "24 must be a multiple of 8")
    refusing_compiler(monkeypatch, tmp_path, msg)
    q, _, _, lens, _, new = cache_inputs()
    pages = fake_cuda(torch.zeros(20, 24, 2, 128, dtype=torch.bfloat16))
    table = fake_cuda(torch.arange(15, dtype=torch.int32).reshape(3, 5))
    with pytest.raises(UnsupportedError, match="page_size 24 must be a "
                       "multiple of 8"):
        call(q, pages, pages.clone(), lens.clamp(max=100), table, new)
    fa_registry.forget()

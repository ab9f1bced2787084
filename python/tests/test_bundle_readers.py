"""Issue 16: one schema for what the compiler writes and what both readers
read. Every bundle fa-compile writes for a spread of sm_90a configurations
loads through bundle.py (schemas/*.json, file hashes) and through the
runtime's BundleSpec (libfa_runtime, no GPU); and no mutation of such a
bundle is accepted by the runtime but refused by the schema.
"""
import glob
import json
import os
import re
import shutil

import pytest

import fa_mlir
from fa_mlir import compiler, contract, gpu_runtime, manifest as fa_manifest
from fa_mlir.errors import FaError, RuntimeLibraryError, UnsupportedError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL_SCHEMA = "kernel-bundle.schema.json"
SEQUENCE_SCHEMA = "kernel-sequence.schema.json"
INPUTS = os.path.join(REPO, "test", "Runtime", "Inputs")

SM90A_CONFIGS = [
    dict(dtype="bf16", head_dim=128, causal=True, mask_alignment="bottom_right"),
    dict(dtype="f16", head_dim=64, layout="bshd", bias=(False, True),
         bias_dtype="f16"),
    dict(dtype="bf16", head_dim=128, window=(48, 16), return_lse=False),
    dict(dtype="bf16", head_dim=128, softcap=50.0, scale=0.05),
    dict(dtype="bf16", head_dim=192, head_dim_v=128, causal=True),
    dict(op="combine", dtype="f16", head_dim=72),
]


@pytest.fixture(scope="module")
def sm90a_bundles(tmp_path_factory):
    try:
        compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    root = tmp_path_factory.mktemp("sm90a")
    dirs = []
    for i, cfg in enumerate(SM90A_CONFIGS):
        path = str(root / str(i))
        compiler.build_bundle(fa_mlir.KernelConfig(**cfg), "sm_90a", path)
        dirs.append(path)
    return dirs


def kernel_json(bundle_dir):
    with open(os.path.join(bundle_dir, "manifest.json")) as f:
        return os.path.join(bundle_dir, json.load(f)["gpu"]["bundle"])


def runtime_verdict(json_path):
    """None when libfa_runtime loads the bundle, else its fa_status name."""
    try:
        gpu_runtime.RuntimeBundle(json_path)
        return None
    except RuntimeLibraryError as e:
        return e.status


def test_every_compiler_bundle_loads_through_both_readers(sm90a_bundles):
    for path, cfg in zip(sm90a_bundles, SM90A_CONFIGS):
        bundle = fa_mlir.load_bundle(path)  # manifest, schema, hashes
        assert bundle.config == fa_mlir.KernelConfig(**cfg)
        rt = bundle.runtime  # the C++ reader (BundleSpec)
        with open(kernel_json(path)) as f:
            doc = json.load(f)
        assert fa_manifest.schema_errors(doc, KERNEL_SCHEMA) == []
        assert rt.kernel_name == doc["kernel"] and rt.chip == "sm_90a"
        if cfg.get("bias"):
            assert "bias" in rt.required


def test_checked_in_bundles_agree(sm90a_bundles):
    """The runtime's test inputs and the fuzzing seeds: whatever the runtime
    loads, the schema accepts."""
    files = glob.glob(os.path.join(REPO, "test", "Runtime", "Inputs", "*.json"))
    files += glob.glob(os.path.join(REPO, "fuzz", "runtime", "corpus", "*.json"))
    assert files
    for path in files:
        try:
            doc = fa_manifest.read_json(path, "bundle")
        except FaError:
            assert runtime_verdict(path) == "FA_ERROR_PARSE", path
            continue
        if runtime_verdict(path) is None:
            schema = SEQUENCE_SCHEMA if doc.get("format") == \
                fa_manifest.KERNEL_SEQUENCE else KERNEL_SCHEMA
            assert fa_manifest.schema_errors(doc, schema) == [], path


def _paths(node, path=()):
    items = (node.items() if isinstance(node, dict) else
             enumerate(node) if isinstance(node, list) else ())
    for key, child in items:
        yield path + (key,)
        yield from _paths(child, path + (key,))


def _mutated(doc, path, replacement):
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        node = node[key]
    if replacement is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = replacement
    return doc


_DELETE = object()
REPLACEMENTS = [_DELETE, None, [], {}, "", "x", -1, 0, 70000, 1.5, True]


def check_mutations(doc, target, schema):
    """Each single-field mutation of `doc`, written to `target`: the runtime
    never loads one the schema refuses (and both refuse plenty)."""
    both_refuse = disagree = 0
    for path in _paths(doc):
        for replacement in REPLACEMENTS:
            mutated = _mutated(doc, path, replacement)
            target.write_text(json.dumps(mutated))
            schema_ok = not fa_manifest.schema_errors(mutated, schema)
            runtime_ok = runtime_verdict(str(target)) is None
            if runtime_ok and not schema_ok:
                disagree += 1
                print("runtime accepts, schema refuses:", path, replacement)
            both_refuse += not runtime_ok and not schema_ok
    assert disagree == 0
    assert both_refuse > 100


def test_runtime_never_accepts_what_the_schema_refuses(sm90a_bundles, tmp_path):
    source = kernel_json(sm90a_bundles[1])  # bshd with a bias: most fields
    with open(source) as f:
        doc = json.load(f)
    work = tmp_path / "m"
    work.mkdir()
    shutil.copy2(os.path.join(os.path.dirname(source), doc["cubin"]), work)
    check_mutations(doc, work / "bundle.json", KERNEL_SCHEMA)


@pytest.mark.parametrize("name", ["bwd.json", "kvcache_paged_append.json",
                                  "fwd_bsparse.json"])
def test_runtime_never_accepts_a_sequence_the_schema_refuses(tmp_path, name):
    """The same for fa-kernel-sequence: the runtime's test sequences (the
    backward's three kernel bundles of the stub cubin sharing a workspace;
    the paged decode with its append kernel; a block-sparse forward whose
    map is "written_by" its first kernel), each field deleted or
    replaced."""
    with open(os.path.join(INPUTS, name)) as f:
        doc = json.load(f)
    for kernel in doc["kernels"] + ["stub_kernels.cubin"]:
        shutil.copy2(os.path.join(INPUTS, kernel), tmp_path)
    assert runtime_verdict(os.path.join(INPUTS, name)) is None
    assert fa_manifest.schema_errors(doc, SEQUENCE_SCHEMA) == []
    check_mutations(doc, tmp_path / "sequence.json", SEQUENCE_SCHEMA)


@pytest.mark.parametrize("name", ["varlen.json", "combine.json"])
def test_runtime_never_accepts_a_single_bundle_the_schema_refuses(tmp_path,
                                                                   name):
    """The same for the single bundles of the stub cubin: the ragged batch
    (roles cu_seqlens_q/k, num_seqs in its grid and parameters) and the
    standalone merge (op combine: no layout, f32 partials, roles
    partial_output/partial_lse, symbols splits/rows)."""
    with open(os.path.join(INPUTS, name)) as f:
        doc = json.load(f)
    shutil.copy2(os.path.join(INPUTS, "stub_kernels.cubin"), tmp_path)
    assert runtime_verdict(os.path.join(INPUTS, name)) is None
    assert fa_manifest.schema_errors(doc, KERNEL_SCHEMA) == []
    check_mutations(doc, tmp_path / "bundle.json", KERNEL_SCHEMA)


def test_capture_bundle_through_both_readers(tmp_path):
    """A kernel with score_mod/mask_mod regions (ALiBi and a document mask,
    test/Device/gen_modifier_inputs.py): its "captures" load through the
    schema and the runtime, which requires them; and no mutation is accepted
    by the runtime but refused by the schema. The block-sparse sequence it
    is part of loads through both too."""
    import subprocess
    import sys
    try:
        fa_compile = compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    gen = os.path.join(REPO, "test", "Device", "gen_modifier_inputs.py")
    text = subprocess.run([sys.executable, gen, "alibi_document_bf16_d128"], check=True,
                          capture_output=True, text=True).stdout
    (tmp_path / "in.mlir").write_text(text)
    out = tmp_path / "out"
    subprocess.run([fa_compile, str(tmp_path / "in.mlir"), "-o", str(out)], check=True)
    docs = {}
    for p in glob.glob(str(out / "*.json")):
        with open(p) as f:
            docs[p] = json.load(f)
    # The document mask makes the forward block-sparse: a sequence of the
    # block map pre-kernel and the forward, both reading the captures; the
    # map is the sequence's workspace, not an operand the caller must pass.
    (sequence,) = [p for p, d in docs.items() if d["format"] == fa_manifest.KERNEL_SEQUENCE]
    assert fa_manifest.schema_errors(docs[sequence], SEQUENCE_SCHEMA) == []
    assert runtime_verdict(sequence) is None
    required = gpu_runtime.RuntimeBundle(sequence).required
    assert "capture0" in required and "capture1" in required
    assert "kv_num_blocks" not in required and "kv_indices" not in required
    (source,) = [p for p, d in docs.items() if d.get("kernel", "").endswith("_main")]
    doc = docs[source]
    assert [c["name"] for c in doc["captures"]] == ["capture0", "capture1"]
    assert fa_manifest.schema_errors(doc, KERNEL_SCHEMA) == []
    assert runtime_verdict(source) is None
    required = gpu_runtime.RuntimeBundle(source).required
    assert "capture0" in required and "capture1" in required
    work = tmp_path / "m"
    work.mkdir()
    shutil.copy2(os.path.join(os.path.dirname(source), doc["cubin"]), work)
    check_mutations(doc, work / "bundle.json", KERNEL_SCHEMA)


def test_capture_size_param_through_both_readers(tmp_path):
    """A region that reads a capture's dynamic size (a relative-bias table
    indexed with torch's wrap-around, from python/tests/gpu/configs.json):
    the kernel takes it as `size(capture0, dim1)`, which both readers load
    and the runtime checks against the capture's dims; a size() naming a dim
    the capture lacks is refused at load."""
    try:
        compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    with open(os.path.join(REPO, "python", "tests", "gpu", "configs.json")) as f:
        # Without a mask_mod: one bundle (a mask_mod that is more than a
        # band makes the forward a block-sparse sequence).
        cfg = next(c for c in json.load(f) if c.get("op") == "forward" and
                   "tensor.dim %cap0" in (c.get("score_mod") or "") and
                   not c.get("mask_mod"))
    cfg.pop("target")
    path = str(tmp_path / "b")
    compiler.build_bundle(fa_mlir.KernelConfig(**cfg), "sm_90a", path)
    source = kernel_json(path)
    with open(source) as f:
        doc = json.load(f)
    sizes = [p for p in doc["params"] if "size(" in str(p.get("value"))]
    assert sizes == [{"kind": "i32", "value": "size(capture0, dim1)"}]
    assert fa_manifest.schema_errors(doc, KERNEL_SCHEMA) == []
    assert runtime_verdict(source) is None
    assert "capture0" in gpu_runtime.RuntimeBundle(source).required
    work = tmp_path / "m"
    work.mkdir()
    shutil.copy2(os.path.join(path, doc["cubin"]), work)
    sizes[0]["value"] = "size(capture0, dim2)"
    (work / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(RuntimeLibraryError,
                       match=r"size\(\): operand 'capture0' has no dimension "
                             r"'dim2' \(its dims: dim0, dim1\)"):
        gpu_runtime.RuntimeBundle(str(work / "bad.json"))


# -- The kernels' signatures: llvm.func, bundle params and both readers ------
# One configuration per kernel emitter of fa-compile (with its flags):
# dense and persistent forwards (the dynamic scheduler's counter), bias and
# sinks, split-KV (partial + combine), FP8 (V transposed, per-block
# descales), the paged decode with its append kernel, the ragged batch
# forward and backward, the backward with a broadcast bias (dbias) and
# sinks (dsinks), the standalone combine, a block-sparse forward (its
# block map kernel).
SIGNATURE_FAMILIES = {
    "forward": (dict(dtype="bf16", head_dim=128), []),
    "persistent_dynamic": (dict(dtype="bf16", head_dim=128, causal=True),
                           ["--dynamic-tiles"]),
    "bias_sinks": (dict(dtype="f16", head_dim=64, layout="bshd",
                        bias=(False, True), bias_dtype="f16", sinks=True), []),
    "split_kv": (dict(dtype="bf16", head_dim=128, num_splits=4), []),
    "fp8": (dict(dtype="f8E4M3FN", head_dim=128, heads_q=8, heads_kv=2,
                 descale_block=(64, 128)), []),
    "paged_append": (dict(op="kvcache", dtype="bf16", head_dim=128,
                          layout="bshd", causal=True, page_size=64,
                          append=True), []),
    "varlen": (dict(op="varlen", dtype="bf16", head_dim=128, layout="bshd",
                    causal=True), []),
    "varlen_backward": (dict(op="varlen_backward", dtype="bf16",
                             head_dim=128, layout="bshd", causal=True), []),
    "backward": (dict(op="backward", dtype="bf16", head_dim=128,
                      layout="bshd", causal=True, bias=(False, True),
                      bias_dtype="f32", sinks=True), []),
    "combine": (dict(op="combine", dtype="bf16", head_dim=128), []),
    # score_mod/mask_mod regions with a block-sparse mask: the block map
    # pre-kernel and the captures (gen_modifier_inputs.py's module).
    "block_sparse": ("alibi_document_bf16_d128", []),
}
# A PTX kernel parameter: `.param [.align A] .type name[[bytes]]`.
PTX_PARAM = re.compile(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.([a-z])(\d+)\b"
                       r"[^,\n]*?(?:\[(\d+)\])?\s*,?\s*$")


def ptx_entry_params(ptx_path, kernel):
    """[(bytes, declared alignment or None)] of `kernel`'s .entry."""
    with open(ptx_path) as f:
        text = f.read()
    head = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\((.*?)\)",
                     text, re.S)
    assert head, f"{ptx_path} has no .entry {kernel}"
    out = []
    for line in head.group(1).strip().splitlines():
        m = PTX_PARAM.search(line.strip())
        assert m, f"{kernel}: unexpected parameter {line!r}"
        align, _, bits, count = m.groups()
        out.append((int(bits) // 8 * int(count or 1),
                    int(align) if align else None))
    return out


def compile_family(name, tmp_path):
    """fa-compile's documents (PTX images) for SIGNATURE_FAMILIES[name]:
    {path: JSON}."""
    import subprocess
    try:
        tool = compiler.find_fa_compile()
    except UnsupportedError as e:
        pytest.skip(str(e))
    import sys
    cfg, flags = SIGNATURE_FAMILIES[name]
    src, out = tmp_path / "kernel.mlir", tmp_path / "out"
    if isinstance(cfg, str):  # a configuration of gen_modifier_inputs.py
        gen = os.path.join(REPO, "test", "Device", "gen_modifier_inputs.py")
        src.write_text(subprocess.run([sys.executable, gen, cfg], check=True,
                                      capture_output=True, text=True).stdout)
        cmd = [tool, str(src), "-o", str(out)]
    else:
        kcfg = fa_mlir.KernelConfig(**cfg)
        src.write_text(compiler.sm90a_source(kcfg))
        cmd = compiler.fa_compile_command(tool, str(src), str(out), kcfg)
    subprocess.run(cmd + flags + ["--format=isa"], check=True,
                   capture_output=True, text=True)
    docs = {}
    for path in sorted(glob.glob(str(out / "*.json"))):
        with open(path) as f:
            docs[path] = json.load(f)
    return docs


@pytest.mark.parametrize("name", sorted(SIGNATURE_FAMILIES))
def test_kernel_signatures_agree_with_both_readers(name, tmp_path):
    """Every kernel fa-compile writes (lib/Conversion/FAToNVVM's
    KernelSignature: the llvm.func's parameters and the bundle's "params"
    come from one declaration) takes exactly the parameters its bundle
    lists: the PTX .entry's count, sizes and tensor-map alignment are the
    schema's for each kind (x-fa-contract.params, what the runtime packs;
    on a GPU the runtime checks the same through cuFuncGetParamInfo). And
    every document (each kernel bundle, and the sequence that ties them)
    loads through both readers: the schema (bundle.py) and the runtime's
    BundleSpec, which checks each operand, dim and symbol the compiler
    named against the contract."""
    kinds = contract.param_kinds()
    docs = compile_family(name, tmp_path)
    bundles = {p: d for p, d in docs.items()
               if d["format"] == "fa-kernel-bundle"}
    assert bundles
    for path, doc in docs.items():
        schema = (KERNEL_SCHEMA if doc["format"] == "fa-kernel-bundle" else
                  SEQUENCE_SCHEMA)
        assert fa_manifest.schema_errors(doc, schema) == [], path
        assert runtime_verdict(path) is None, path
    for path, doc in bundles.items():
        image = os.path.join(os.path.dirname(path), doc["cubin"])
        got = ptx_entry_params(image, doc["kernel"])
        want = [(kinds[p["kind"]]["bytes"],
                 kinds[p["kind"]]["align"] if p["kind"] == "tensor_map"
                 else None) for p in doc["params"]]
        # Only tensor maps declare an alignment; the others are natural.
        assert got == want, f"{doc['kernel']}: .entry {got} vs params {want}"

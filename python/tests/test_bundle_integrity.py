"""Issue 16: a broken CPU bundle or cache entry never crashes the
interpreter, never returns wrong arrays, and raises only FaError subclasses.
"""
import json
import os
import shutil

import numpy as np
import pytest

import fa_mlir
from fa_mlir import cache, compiler, cpu, manifest as fa_manifest, reference
from fa_mlir.bundle import load_bundle
from fa_mlir.errors import BundleError, FaError

CFG = dict(dtype="f32", head_dim=8, batch=1, heads_q=2, heads_kv=1, seq_q=16,
           seq_k=16)
OTHER = dict(CFG, head_dim=16)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Two freshly built CPU bundles (CFG and OTHER), outside any cache."""
    root = tmp_path_factory.mktemp("built")
    out = {}
    for name, cfg in (("a", CFG), ("b", OTHER)):
        path = str(root / name)
        compiler.build_bundle(fa_mlir.KernelConfig(**cfg), "cpu", path)
        out[name] = path
    return out


@pytest.fixture
def bundle_dir(built, tmp_path):
    """A private copy of bundle "a" that a test may break."""
    path = str(tmp_path / "a")
    shutil.copytree(built["a"], path)
    return path


def read(path):
    with open(os.path.join(path, "manifest.json")) as f:
        return json.load(f)


def write(path, manifest, redigest=True):
    """Writes `manifest` back; with `redigest` as if written by a writer that
    recomputed the digest, so that the deeper checks are what fires."""
    if redigest and isinstance(manifest, dict):
        manifest["digest"] = fa_manifest.digest(manifest)
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(manifest, f)


def inputs(cfg, seed=0):
    rng = np.random.default_rng(seed)
    b, s, d = 1, cfg["seq_q"], cfg["head_dim"]
    q = rng.standard_normal((b, cfg["heads_q"], s, d), dtype=np.float32)
    k = rng.standard_normal((b, cfg["heads_kv"], s, d), dtype=np.float32)
    v = rng.standard_normal((b, cfg["heads_kv"], s, d), dtype=np.float32)
    return q, k, v


def run_and_check(bundle, cfg):
    q, k, v = inputs(cfg)
    out, _ = bundle(query=q, key=k, value=v)
    want, _ = reference.forward(bundle.config.attention_config(), q, k, v)
    np.testing.assert_allclose(out, want, rtol=2e-4, atol=2e-4)


def test_intact_bundle_loads_and_runs(bundle_dir):
    run_and_check(fa_mlir.load_bundle(bundle_dir), CFG)


def test_removed_argument_is_refused(bundle_dir):
    m = read(bundle_dir)
    del m["cpu"]["arguments"][1]
    write(bundle_dir, m)
    with pytest.raises(BundleError, match="argument list does not match"):
        fa_mlir.load_bundle(bundle_dir)


@pytest.mark.parametrize("field,value", [("dtype", "f16"), ("shape", None)])
def test_changed_argument_is_refused(bundle_dir, field, value):
    m = read(bundle_dir)
    arg = m["cpu"]["arguments"][0]
    if field == "shape":
        value = list(arg["shape"])
        value[-1] = 16  # a static head_dim of 8 claimed to be 16
    arg[field] = value
    write(bundle_dir, m)
    with pytest.raises(BundleError, match="argument list does not match"):
        fa_mlir.load_bundle(bundle_dir)


def test_changed_config_is_refused(bundle_dir):
    m = read(bundle_dir)
    m["config"]["head_dim"] = 16
    write(bundle_dir, m, redigest=False)
    with pytest.raises(BundleError, match="digest does not match"):
        fa_mlir.load_bundle(bundle_dir)
    write(bundle_dir, m)  # consistent digest: the arguments give it away
    with pytest.raises(BundleError, match="argument list does not match"):
        fa_mlir.load_bundle(bundle_dir)


def test_edit_without_digest_is_refused(bundle_dir):
    m = read(bundle_dir)
    m["cpu"]["symbol"] = "_mlir_ciface_other"
    write(bundle_dir, m, redigest=False)
    with pytest.raises(BundleError, match="changed after it was written"):
        fa_mlir.load_bundle(bundle_dir)


def test_truncated_library_is_refused_before_dlopen(bundle_dir):
    lib = os.path.join(bundle_dir, "kernel.so")
    size = os.path.getsize(lib)
    with open(lib, "r+b") as f:
        f.truncate(size // 2)
    with pytest.raises(BundleError, match="kernel.so is not the file"):
        fa_mlir.load_bundle(bundle_dir)


def test_library_of_another_configuration_is_refused(built, bundle_dir):
    shutil.copy2(os.path.join(built["b"], "kernel.so"),
                 os.path.join(bundle_dir, "kernel.so"))
    with pytest.raises(BundleError, match="kernel.so is not the file"):
        fa_mlir.load_bundle(bundle_dir)


def test_missing_library_is_refused(bundle_dir):
    os.remove(os.path.join(bundle_dir, "kernel.so"))
    with pytest.raises(BundleError, match="missing kernel.so"):
        fa_mlir.load_bundle(bundle_dir)


@pytest.mark.parametrize("text,match", [
    ("[1, 2]", "is not of type 'object'"),
    ("{}", "'format' is a required property"),
    ("not json", "is not JSON"),
    ('{"a": 1, "a": 2}', "duplicate key"),
    ('{"a": NaN}', "NaN is not JSON"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
])
def test_malformed_manifest_is_a_bundle_error(bundle_dir, text, match):
    with open(os.path.join(bundle_dir, "manifest.json"), "w") as f:
        f.write(text)
    with pytest.raises(BundleError, match=match):
        fa_mlir.load_bundle(bundle_dir)


@pytest.mark.parametrize("section", ["cpu", "config", "files", "digest",
                                     "target", "compiler"])
def test_missing_section_is_a_bundle_error(bundle_dir, section):
    m = read(bundle_dir)
    del m[section]
    write(bundle_dir, m, redigest=section != "digest")
    with pytest.raises(BundleError):
        fa_mlir.load_bundle(bundle_dir)


def test_manifest_that_is_a_device_is_refused(bundle_dir):
    os.remove(os.path.join(bundle_dir, "manifest.json"))
    os.symlink("/dev/zero", os.path.join(bundle_dir, "manifest.json"))
    with pytest.raises(BundleError, match="not a regular file"):
        fa_mlir.load_bundle(bundle_dir)


def _mutations(m):
    """Many small breakages of a manifest: each key deleted or retyped."""
    def walk(node, path):
        if isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list):
            items = list(enumerate(node))
        else:
            return
        for key, child in items:
            yield path + [key]
            yield from walk(child, path + [key])
    for path in walk(m, []):
        for replacement in ("<delete>", None, [], {}, "x", -1, 1.5, True):
            yield path, replacement


def _apply(m, path, replacement):
    m = json.loads(json.dumps(m))
    node = m
    for key in path[:-1]:
        node = node[key]
    if replacement == "<delete>":
        if isinstance(node, dict):
            del node[path[-1]]
        else:
            node.pop(path[-1])
    else:
        node[path[-1]] = replacement
    return m


def test_every_mutation_raises_only_fa_errors(bundle_dir):
    original = read(bundle_dir)
    outcomes = {"refused": 0, "loaded": 0}
    for path, replacement in _mutations(original):
        write(bundle_dir, _apply(original, path, replacement),
              redigest=path[0] != "digest")
        try:
            fa_mlir.load_bundle(bundle_dir)
            outcomes["loaded"] += 1
        except FaError:
            outcomes["refused"] += 1
    # Only descriptive fields may change and still load (the compiler
    # version, the pipeline text); everything else is refused.
    assert outcomes["refused"] > 10 * outcomes["loaded"] > 0, outcomes


def test_corrupt_cache_entry_is_rebuilt(tmp_path):
    first = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    lib = os.path.join(first.path, "kernel.so")
    with open(lib, "r+b") as f:
        f.truncate(100)
    second = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    assert second.path == first.path  # same key, fresh entry
    assert os.path.getsize(lib) > 100
    run_and_check(second, CFG)
    assert not [p for p in os.listdir(tmp_path / "cpu") if p.startswith(".")]


def test_cache_entry_of_another_configuration_does_not_run(tmp_path):
    a = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    b = fa_mlir.compile(**OTHER, cache_dir=str(tmp_path))
    # A whole, self-consistent bundle of OTHER lands under CFG's key.
    shutil.rmtree(a.path)
    shutil.copytree(b.path, a.path)
    again = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    assert again.config == fa_mlir.KernelConfig(**CFG)
    run_and_check(again, CFG)


def test_old_manifest_version_is_rebuilt(tmp_path):
    a = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    m = read(a.path)
    m["version"] = 1
    write(a.path, m)
    with pytest.raises(BundleError, match="unsupported manifest version 1"):
        fa_mlir.load_bundle(a.path)
    run_and_check(fa_mlir.compile(**CFG, cache_dir=str(tmp_path)), CFG)
    assert read(a.path)["version"] == fa_manifest.MANIFEST_VERSION


def test_discard_tolerates_a_vanished_entry(tmp_path):
    (tmp_path / "cpu").mkdir()
    cache.discard(str(tmp_path / "cpu" / "gone"))
    assert os.listdir(tmp_path / "cpu") == []


def test_native_build_records_its_isa(bundle_dir):
    # -march=native kernels name the vector extensions they may execute.
    assert read(bundle_dir)["cpu"]["isa"] == cpu.vector_isa(cpu.host_cpu()[1])


def test_bundle_for_a_cpu_with_more_isa_is_refused(bundle_dir, monkeypatch):
    m = read(bundle_dir)
    m["cpu"]["isa"] = ["avx2", "avx512f", "avx512bf16"]
    write(bundle_dir, m)
    monkeypatch.setattr(cpu, "cpuinfo_flags", lambda path="/proc/cpuinfo": {"avx2", "fma"})
    with pytest.raises(BundleError, match=r"built for a CPU with avx512f, avx512bf16, which "
                                          r"this one lacks; rebuild it on this machine"):
        load_bundle(bundle_dir)


def test_unreadable_cpuinfo_refuses_an_isa_bundle(bundle_dir, monkeypatch):
    monkeypatch.setattr(cpu, "cpuinfo_flags", lambda path="/proc/cpuinfo": None)
    with pytest.raises(BundleError, match="/proc/cpuinfo cannot be read"):
        load_bundle(bundle_dir)


def test_isa_names_follow_cpuinfo():
    assert cpu.vector_isa(("+avx2", "-avx512f", "+sse4.2", "+cx16", "+bmi")) == \
        ["avx2", "bmi", "sse4.2"]
    flags = {"avx2", "sse4_2", "bmi1", "avx512_vnni"}
    assert cpu.missing_isa(["avx2", "sse4.2", "bmi", "avx512vnni", "avx512f"], flags) == \
        ["avx512f"]
    assert cpu.cpuinfo_flags("/nonexistent") is None

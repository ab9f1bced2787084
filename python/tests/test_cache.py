"""The on-disk bundle cache: hits, keys, invalidation by compiler version."""
import os
import shutil

import pytest

import fa_mlir
from fa_mlir import cache, compiler

CFG = dict(dtype="f32", head_dim=8, heads_q=2, heads_kv=1)


def no_compiling(*a, **k):
    raise AssertionError("compiled although the cache holds the bundle")


def test_second_compile_is_a_hit(monkeypatch, tmp_path):
    first = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    monkeypatch.setattr(compiler, "lower_to_shared_library", no_compiling)
    second = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    assert second.path == first.path
    assert os.path.dirname(first.path) == str(tmp_path / "cpu")


def test_key_covers_the_configuration(tmp_path):
    a = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    b = fa_mlir.compile(**CFG, causal=True, cache_dir=str(tmp_path))
    # Dynamic sizes are not part of the key; equal configs are equal keys.
    c = fa_mlir.compile(fa_mlir.KernelConfig(**CFG, batch=None),
                        cache_dir=str(tmp_path))
    assert a.path != b.path and a.path == c.path
    assert b.config.causal and not a.config.causal


def test_rebuilt_compiler_invalidates(monkeypatch, tmp_path):
    build = tmp_path / "build"
    (build / "bin").mkdir(parents=True)
    fa_opt = build / "bin" / "fa-opt"
    shutil.copy2(compiler.find_fa_opt(), fa_opt)
    monkeypatch.setenv("FA_BUILD_DIR", str(build))
    a = fa_mlir.compile(**CFG, cache_dir=str(tmp_path / "c"))
    with open(fa_opt, "ab") as f:  # a "rebuilt" compiler: other bytes
        f.write(b"\0")
    b = fa_mlir.compile(**CFG, cache_dir=str(tmp_path / "c"))
    assert a.path != b.path
    assert a.manifest["compiler"]["fa-opt"] != b.manifest["compiler"]["fa-opt"]


def test_generator_sources_are_in_the_version():
    v = cache.compiler_version([compiler.find_fa_opt()])
    assert v["fa_mlir"] == fa_mlir.__version__
    assert len(v["generator"]) == 16 and "fa-opt" in v


def test_cache_false_builds_outside_the_cache(monkeypatch, tmp_path):
    b = fa_mlir.compile(**CFG, cache=False, cache_dir=str(tmp_path))
    assert os.path.basename(b.path).startswith(".tmp-")
    assert not [p for p in os.listdir(tmp_path / "cpu")
                if not p.startswith(".tmp-")]


def test_failed_build_leaves_no_entry(monkeypatch, tmp_path):
    monkeypatch.setattr(compiler, "lower_to_shared_library", no_compiling)
    with pytest.raises(AssertionError):
        fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    assert os.listdir(tmp_path / "cpu") == []


def test_publish_race_keeps_the_first(tmp_path):
    final = tmp_path / "cpu" / "k"
    for i in range(2):
        tmp = cache.staging_dir("cpu", str(tmp_path))
        open(os.path.join(tmp, "x"), "w").write(str(i))
        cache.publish(tmp, str(final))
        assert not os.path.exists(tmp)
    assert open(final / "x").read() == "0"


def test_default_root_honours_environment(monkeypatch):
    monkeypatch.setenv("FA_MLIR_CACHE", "/somewhere")
    assert cache.cache_root() == "/somewhere"
    monkeypatch.delenv("FA_MLIR_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert cache.cache_root() == "/xdg/fa_mlir"


def test_pipeline_override_is_in_the_key(monkeypatch, tmp_path):
    a = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    monkeypatch.setenv("FA_MLIR_CPU_PIPELINE", "fa-cpu-pipeline{tiled=false}")
    b = fa_mlir.compile(**CFG, cache_dir=str(tmp_path))
    assert a.path != b.path
    assert b.manifest["cpu"]["pipeline"] == "fa-cpu-pipeline{tiled=false}"

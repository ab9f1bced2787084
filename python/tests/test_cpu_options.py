"""How CPU kernels are built for this host: flags, threads, blocks, the
cache key, and the backward prefetch. Nothing here compiles a kernel."""
import threading

import pytest

from fa_mlir import compiler, cpu, registry
from fa_mlir.errors import CompileError
from fa_mlir.spec import KernelConfig


def test_host_target_names_the_cpu_and_its_features():
    name, features = cpu.host_cpu()
    assert name and name != "unknown"
    assert features and all(f[0] in "+-" for f in features)
    assert cpu.host_target().startswith(name + "+")


def test_flags_default_to_the_host_isa(monkeypatch):
    monkeypatch.delenv("FA_MLIR_CPU_FLAGS", raising=False)
    assert compiler.cpu_flags() == ("-O2", "-march=native")
    monkeypatch.setenv("FA_MLIR_CPU_FLAGS", "-O2 -march=x86-64-v3")
    assert compiler.cpu_flags() == ("-O2", "-march=x86-64-v3")


def test_cache_key_covers_host_flags_and_pipeline(monkeypatch):
    monkeypatch.delenv("FA_MLIR_CPU_FLAGS", raising=False)
    version = compiler.target_version("cpu")
    assert version["host"] == cpu.host_target()
    assert version["flags"] == "-O2 -march=native"
    assert version["pipeline"] == compiler.cpu_pipeline()
    monkeypatch.setenv("FA_MLIR_CPU_FLAGS", "-O1")
    assert compiler.target_version("cpu")["flags"] == "-O1"


def test_default_pipeline_has_host_blocks_and_threads(monkeypatch):
    monkeypatch.delenv("FA_MLIR_CPU_PIPELINE", raising=False)
    pipeline = compiler.cpu_pipeline()
    assert pipeline.startswith("fa-cpu-pipeline{" + cpu.block_options())
    assert ("openmp=true" in pipeline) == (cpu.openmp_runtime() is not None)
    monkeypatch.setenv("FA_MLIR_CPU_PIPELINE", "fa-cpu-pipeline{tiled=false}")
    assert compiler.cpu_pipeline() == "fa-cpu-pipeline{tiled=false}"


def test_openmp_pipeline_without_a_runtime_says_so(monkeypatch):
    monkeypatch.setenv("FA_MLIR_OPENMP_RUNTIME", "")
    cpu.openmp_runtime.cache_clear()
    try:
        assert cpu.link_flags("fa-cpu-pipeline") == ()
        with pytest.raises(CompileError, match="needs an OpenMP runtime"):
            cpu.link_flags("fa-cpu-pipeline{openmp=true}")
    finally:
        monkeypatch.delenv("FA_MLIR_OPENMP_RUNTIME")
        cpu.openmp_runtime.cache_clear()


def test_openmp_link_flags_find_the_runtime_again():
    assert cpu.openmp_link_flags("/opt/omp/libomp.so.5") == (
        "-L/opt/omp", "-l:libomp.so.5", "-Wl,-rpath,/opt/omp")


class SlowCompile:
    """compiler.compile replaced by one that records its calls and blocks
    until `release` (no AOT bundle, a compiler "present"), for the
    prefetch thread's timing."""

    KCFG = KernelConfig(op="backward", dtype="f32", head_dim=8, heads_q=2,
                        heads_kv=1)

    def __init__(self, monkeypatch):
        self.started, self.release, self.calls = (threading.Event(),
                                                  threading.Event(), [])
        monkeypatch.setattr(registry, "find_aot", lambda *a: None)
        monkeypatch.setattr(compiler, "find_fa_opt", lambda: "fa-opt")
        monkeypatch.setattr(compiler, "compile", self)

    def __call__(self, config, target):
        self.calls.append(config)
        self.started.set()
        self.release.wait(10)
        return "bundle"


@pytest.fixture
def slow_compile(monkeypatch):
    slow = SlowCompile(monkeypatch)
    registry.forget()
    yield slow
    slow.release.set()
    registry.forget()


def test_prefetch_compiles_once_and_get_bundle_waits(slow_compile):
    kcfg = SlowCompile.KCFG
    registry.prefetch(kcfg, "cpu")
    assert slow_compile.started.wait(10)
    registry.prefetch(kcfg, "cpu")  # already coming: no second thread
    threading.Timer(0.05, slow_compile.release.set).start()
    assert registry.get_bundle(kcfg, "cpu") == "bundle"
    assert len(slow_compile.calls) == 1


def test_forget_waits_for_a_prefetch_in_flight(slow_compile):
    """A prefetch that ends after forget() must not put its bundle back
    (a test's forget() then found an earlier test's backward loaded)."""
    registry.prefetch(SlowCompile.KCFG, "cpu")
    assert slow_compile.started.wait(10)
    threading.Timer(0.05, slow_compile.release.set).start()
    registry.forget()
    assert not registry._loaded and not registry._pending


def _function(name, lines):
    return f"define void @{name}(ptr %0) {{\n" + "  x\n" * lines + "}\n"


# An entry, then the two OpenMP bodies of a backward (dK/dV, dQ).
_TWO_NESTS = _function("f", 1) + _function("f..omp_par.2", 20) + \
    _function("f..omp_par.1", 15)


def test_function_sizes_in_definition_order():
    assert cpu.function_sizes(_TWO_NESTS) == [
        ("f", 2), ("f..omp_par.2", 21), ("f..omp_par.1", 16)]


def test_split_only_two_big_functions_that_round_robin_separates(monkeypatch):
    monkeypatch.setattr(cpu, "_usable_cpus", lambda: 2)
    assert cpu._worth_splitting(_TWO_NESTS)  # parts 1 and 0 of llvm-split
    one_nest = _function("f", 1) + _function("f..omp_par", 20)
    assert not cpu._worth_splitting(one_nest)
    # The two big ones would land in the same part: compile whole.
    same_part = _function("f", 1) + _function("f..omp_par.2", 20) + \
        _function("g", 1) + _function("f..omp_par.1", 15)
    assert not cpu._worth_splitting(same_part)
    monkeypatch.setattr(cpu, "_usable_cpus", lambda: 1)
    assert not cpu._worth_splitting(_TWO_NESTS)

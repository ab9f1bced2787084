"""Compile MLIR with fa-opt into a CPU shared library and call it on numpy.

The function must carry `llvm.emit_c_interface` and take only memrefs; each
memref is passed as a pointer to MLIR's strided-memref descriptor.
"""
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile

from .errors import CompileError  # noqa: F401  (historical home)
# Calling compiled code needs no compiler: it lives in memref.py.
from .memref import CompiledFunction, memref_descriptor  # noqa: F401

LLVM_BIN = os.environ.get("FA_LLVM_BIN", "/usr/lib/llvm-22/bin")


def _repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))


def find_fa_opt():
    build = os.environ.get("FA_BUILD_DIR", os.path.join(_repo_root(), "build"))
    path = os.path.join(build, "bin", "fa-opt")
    if not os.path.exists(path):
        raise CompileError(f"fa-opt not found at {path}: build the project "
                           "first or set FA_BUILD_DIR")
    return path


def _run(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(f"{os.path.basename(cmd[0])} failed "
                           f"({proc.returncode}):\n{proc.stderr.strip()}")
    return proc.stdout


def _cache_dir():
    from .cache import usable_dir
    return usable_dir(os.environ.get("FA_MLIR_CACHE") or os.path.join(
        tempfile.gettempdir(), "fa_mlir_cache"))


# Kernels are compiled for the host's ISA (AVX2/AVX-512 vectors and FMA):
# without it LLVM splits the vector blocks into SSE2 pieces and emulates
# their masked loads and stores lane by lane, 7-30x slower and 10-15x longer
# to compile. -O2: -O1 made the backward 6x slower (docs/CPUBenchmark.md).
OPT_FLAGS = ("-O2", "-march=native")

# Where an OpenMP runtime (LLVM's libomp ABI: __kmpc_*) may be.
_OPENMP_RUNTIMES = ("/usr/lib/llvm-22/lib/libomp.so",
                    "/usr/lib/x86_64-linux-gnu/libomp.so.5",
                    "/usr/lib/x86_64-linux-gnu/libomp.so",
                    "/usr/lib/x86_64-linux-gnu/libiomp5.so")


@functools.lru_cache(maxsize=None)
def host_cpu():
    """(cpu name, sorted target features) that clang's -march=native means
    here, e.g. ("znver3", ("+avx", "+avx2", ..., "-avx512f", ...))."""
    try:
        proc = subprocess.run(
            [os.path.join(LLVM_BIN, "clang"), "-march=native", "-###", "-x",
             "c", "-c", os.devnull, "-o", os.devnull], capture_output=True,
            text=True)
    except OSError:
        return "unknown", ()  # no clang: compiling will say so
    words = [w.strip('"') for w in proc.stderr.split()]
    cpu = next((words[i + 1] for i, w in enumerate(words[:-1])
                if w == "-target-cpu"), "unknown")
    features = sorted(words[i + 1] for i, w in enumerate(words[:-1])
                      if w == "-target-feature")
    return cpu, tuple(features)


def host_target():
    """"<cpu>+<sha of the features>": part of every CPU cache key, so that
    a kernel built for one ISA is never loaded on a machine with another
    (a shared or copied cache)."""
    cpu, features = host_cpu()
    return cpu + "+" + hashlib.sha256(" ".join(features).encode()).hexdigest()[:16]


# The vector extensions a -march=native kernel may use, by clang's feature
# name, and /proc/cpuinfo's name where it differs.
_VECTOR_ISA = ("sse3", "ssse3", "sse4.1", "sse4.2", "avx", "avx2", "fma", "f16c",
               "bmi", "bmi2", "avx512f", "avx512bw", "avx512cd", "avx512dq",
               "avx512vl", "avx512vnni", "avx512bf16", "avx512fp16", "avxvnni")
_CPUINFO_NAME = {"sse3": "pni", "sse4.1": "sse4_1", "sse4.2": "sse4_2", "bmi": "bmi1",
                 "avx512vnni": "avx512_vnni", "avx512bf16": "avx512_bf16",
                 "avx512fp16": "avx512_fp16", "avxvnni": "avx_vnni"}


def vector_isa(features):
    """The vector extensions among clang target `features` ("+avx2", ...)
    that a kernel built with them may execute, sorted."""
    return sorted(f[1:] for f in features if f.startswith("+") and f[1:] in _VECTOR_ISA)


def cpuinfo_flags(path="/proc/cpuinfo"):
    """This machine's CPU flags (the first "flags" line), or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def missing_isa(required, flags):
    """The extensions of `required` (vector_isa names) absent from `flags`
    (cpuinfo_flags)."""
    return [x for x in required if _CPUINFO_NAME.get(x, x) not in flags]


def block_options():
    """fa-cpu-pipeline's register blocks for this host: 4 x 32 f32 with
    AVX-512 (as fast as 8 x 32 there and its backward compiles in half the
    time), 4 x 16 on AVX2 (16 registers: 8 x 32 spills the accumulator,
    measured 2x slower; docs/CPUBenchmark.md)."""
    if "+avx512f" in host_cpu()[1]:
        return "block-rows=4 block-cols=32"
    return "block-rows=4 block-cols=16"


@functools.lru_cache(maxsize=None)
def openmp_runtime():
    """Path of the OpenMP runtime kernels link with, or None: then
    $FA_MLIR_OPENMP_RUNTIME, else the first of _OPENMP_RUNTIMES found."""
    env = os.environ.get("FA_MLIR_OPENMP_RUNTIME")
    if env is not None:
        return env or None  # "" turns threads off
    return next((p for p in _OPENMP_RUNTIMES if os.path.exists(p)), None)


def openmp_link_flags(runtime):
    """clang flags that link `runtime` and find it again at load time."""
    where, name = os.path.split(runtime)
    return (f"-L{where}", f"-l:{name}", f"-Wl,-rpath,{where}")


def link_flags(pipeline):
    """What a library lowered with `pipeline` must link: the OpenMP runtime
    when the pipeline says openmp=true."""
    if "openmp=true" not in pipeline.replace(" ", ""):
        return ()
    runtime = openmp_runtime()
    if runtime is None:
        raise CompileError(f"{pipeline} needs an OpenMP runtime (libomp), "
                           f"and none of {_OPENMP_RUNTIMES} exists; install "
                           "libomp-dev or set FA_MLIR_OPENMP_RUNTIME")
    return openmp_link_flags(runtime)


def compile_to_shared_library(mlir_text, pipeline="fa-cpu-pipeline",
                              opt_flags=OPT_FLAGS):
    """Lowers `mlir_text` with fa-opt's `pipeline` into a .so; returns its path.

    Results are cached by the text, the pipeline, the flags, the host's ISA
    and the fa-opt binary.
    """
    fa_opt = find_fa_opt()
    key = hashlib.sha256()
    for part in (mlir_text, pipeline, " ".join(opt_flags), host_target(),
                 str(os.stat(fa_opt).st_mtime_ns)):
        key.update(part.encode())
    so_path = os.path.join(_cache_dir(), key.hexdigest()[:24] + ".so")
    if os.path.exists(so_path):
        return so_path
    lower_to_shared_library(mlir_text, so_path, pipeline, opt_flags)
    return so_path


def lower_to_shared_library(mlir_text, so_path, pipeline="fa-cpu-pipeline",
                            opt_flags=OPT_FLAGS):
    """fa-opt `pipeline` + mlir-translate + clang: writes `so_path` (atomically)."""
    fa_opt = find_fa_opt()
    llvm_dialect = _run([fa_opt, f"--pass-pipeline=builtin.module({pipeline})",
                         "-"], mlir_text)
    llvm_ir = _run([os.path.join(LLVM_BIN, "mlir-translate"),
                    "--mlir-to-llvmir", "-"], llvm_dialect)
    with tempfile.TemporaryDirectory() as tmp:
        ll = os.path.join(tmp, "kernel.ll")
        with open(ll, "w") as f:
            f.write(llvm_ir)
        out = os.path.join(tmp, "kernel.so")
        clang = os.path.join(LLVM_BIN, "clang")
        compile_flags = (*opt_flags, "-fPIC", "-Wno-override-module")
        libs = ("-o", out, "-lm", *link_flags(pipeline))
        objects = _compile_halves(clang, ll, tmp, compile_flags) \
            if _worth_splitting(llvm_ir) else None
        if objects:
            _run([clang, "-shared", "-fPIC", *objects, *libs])
        else:
            _run([clang, *compile_flags, "-shared", ll, *libs])
        shutil.move(out, so_path)
    return so_path


def function_sizes(llvm_ir):
    """[(name, lines)] of the functions `llvm_ir` defines, in their order."""
    sizes = []
    for line in llvm_ir.splitlines():
        if line.startswith("define "):
            sizes.append([line.split("@", 1)[1].split("(", 1)[0], 0])
        elif sizes:
            sizes[-1][1] += 1
    return [tuple(s) for s in sizes]


def _usable_cpus():
    from .bundle import usable_cpus
    return usable_cpus()


def _worth_splitting(llvm_ir):
    """Whether two clang processes would compile `llvm_ir` in about half
    the time: clang works one function at a time, and the backward has two
    big ones (its dK/dV and dQ nests, each an OpenMP body) where the forward
    has one. `llvm-split --round-robin -j 2` sends the i-th definition to
    part i % 2, so the two biggest must differ in parity."""
    if _usable_cpus() < 2:
        return False
    sizes = function_sizes(llvm_ir)
    total = sum(n for _, n in sizes)
    big = sorted(range(len(sizes)), key=lambda i: -sizes[i][1])[:2]
    return (len(big) == 2 and big[0] % 2 != big[1] % 2
            and sizes[big[1]][1] >= 0.25 * total)


def _compile_halves(clang, ll, tmp, compile_flags):
    """Object files of the two halves of `ll`, compiled concurrently; None
    where llvm-split is missing (then the caller compiles it whole)."""
    split = os.path.join(LLVM_BIN, "llvm-split")
    if not os.path.exists(split):
        return None
    part = os.path.join(tmp, "part")
    _run([split, "--round-robin", "-j", "2", "-o", part, ll])
    jobs = []
    for i in range(2):
        obj = os.path.join(tmp, f"part{i}.o")
        jobs.append((obj, subprocess.Popen(
            [clang, *compile_flags, "-c", "-x", "ir", f"{part}{i}", "-o", obj],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)))
    errors = [proc.communicate()[1] for _, proc in jobs]  # waits for both
    for (_, proc), err in zip(jobs, errors):
        if proc.returncode != 0:
            raise CompileError(f"clang failed ({proc.returncode}):\n{err.strip()}")
    return [obj for obj, _ in jobs]

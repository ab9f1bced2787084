"""Compile MLIR with fa-opt into a CPU shared library and call it on numpy.

The function must carry `llvm.emit_c_interface` and take only memrefs; each
memref is passed as a pointer to MLIR's strided-memref descriptor.
"""
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
    path = os.environ.get("FA_MLIR_CACHE",
                          os.path.join(tempfile.gettempdir(), "fa_mlir_cache"))
    os.makedirs(path, exist_ok=True)
    return path


def compile_to_shared_library(mlir_text, pipeline="fa-cpu-pipeline",
                              opt_flags=("-O2",)):
    """Lowers `mlir_text` with fa-opt's `pipeline` into a .so; returns its path.

    Results are cached by the text, the pipeline and the fa-opt binary.
    """
    fa_opt = find_fa_opt()
    key = hashlib.sha256()
    for part in (mlir_text, pipeline, " ".join(opt_flags),
                 str(os.stat(fa_opt).st_mtime_ns)):
        key.update(part.encode())
    so_path = os.path.join(_cache_dir(), key.hexdigest()[:24] + ".so")
    if os.path.exists(so_path):
        return so_path
    lower_to_shared_library(mlir_text, so_path, pipeline, opt_flags)
    return so_path


def lower_to_shared_library(mlir_text, so_path, pipeline="fa-cpu-pipeline",
                            opt_flags=("-O2",)):
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
        _run([os.path.join(LLVM_BIN, "clang"), *opt_flags, "-shared", "-fPIC",
              "-Wno-override-module", ll, "-o", out, "-lm"])
        shutil.move(out, so_path)
    return so_path

"""fa-mlir: FlashAttention as a compiler feature.

The package has two halves that stay separable:
- compile (``fa_mlir.compile``, ``fa_mlir.aot``; modules ``compiler``,
  ``cpu``, ``config``): needs the fa-mlir build (fa-opt, fa-compile) and
  LLVM 22;
- run (``fa_mlir.load_bundle``, ``fa_mlir.torch``; modules ``bundle``,
  ``gpu_runtime``, ``registry``): needs numpy, and for GPUs only
  libfa_runtime.so and a driver. Nothing here imports the compile half, MLIR
  or torch until asked.
The float64 references (``fa_mlir.reference``) need only numpy.
See docs/Python.md.
"""
__version__ = "0.1.0"

from .config import AttentionConfig  # noqa: F401,E402
from .errors import (ArgumentError, BundleError, CompileError,  # noqa: F401,E402
                     FaError, RuntimeLibraryError, UnsupportedError)
from .spec import KernelConfig  # noqa: F401,E402
from .bundle import load_bundle  # noqa: F401,E402
from .registry import add_bundle_dir, get_bundle  # noqa: F401,E402


def compile(config=None, *, target="cpu", cache=True, cache_dir=None,
            **fields):
    """Compiles a kernel bundle; see fa_mlir.compiler.compile."""
    from . import compiler
    return compiler.compile(config, target=target, cache=cache,
                            cache_dir=cache_dir, **fields)

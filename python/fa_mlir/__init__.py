"""fa-mlir: FlashAttention as a compiler feature.

The package has two halves that stay separable:
- compiling (``fa_mlir.config``, ``fa_mlir.cpu``) needs the fa-mlir build
  (fa-opt) and LLVM 22;
- the references (``fa_mlir.reference``) need only numpy.
"""
from .config import AttentionConfig  # noqa: F401

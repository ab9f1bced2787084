"""PyTorch front end: fa_mlir.torch.attention and the fa_mlir:: custom ops.

Importing this module registers torch.ops.fa_mlir.attention_forward and
attention_backward. Kernels come from AOT bundle directories
($FA_MLIR_BUNDLE_PATH) or, where the compiler is built, are compiled on
first use and cached (fa_mlir.compile).
"""
from . import _ops  # noqa: F401  (registers the custom ops)
from .attention import AttentionFunction, attention  # noqa: F401
from .block_mask import BlockMask, create_block_mask  # noqa: F401
from .launch import launch  # noqa: F401
from .fp8 import (FP8Inputs, dequantize_fp8, emulated_fp8_attention,  # noqa: F401
                  incoherent_matrix, quantize_fp8, reference_fp8_attention)
from .inference import attention_with_kvcache, varlen_attention  # noqa: F401
from ._combine import combine  # noqa: F401
from . import distributed  # noqa: F401  (ring_attention, context parallelism)

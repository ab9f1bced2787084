# Promoted attention narrowed to the inputs' type (narrow-promoted, the
# default): the raised bf16 / f16 ops of raise-attention-narrow-promoted.mlir
# round P where the original computes in f32. FlashAttention's criterion
# against the program promoted to float64: the raised error at most twice
# the original's plus 1e-2 (bf16) or 1e-3 (f16).
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "Dialect", "FA", "raise-attention-narrow-promoted.mlir")
raise_equiv.run_file(path, ["sdpa_bf16_promoted",
                           ("tosa_f16_promoted", {"tosa": True})])

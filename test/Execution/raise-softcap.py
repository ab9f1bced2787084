# Softcaps whose tanh factor is not exactly 1 / softcap (TOSA's bf16
# reciprocal, a scale folded into the outer factor, no inner factor): the
# raised functions of raise-attention-softcap.mlir against the originals on
# the same inputs (bf16 against the program promoted to float64).
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-softcap.mlir"),
    ["tosa_bf16_reciprocal", "outer_factor_folded", "tanh_unscaled"],
    tosa=True)

# fa-raise-attention on TOSA: the original through tosa-to-linalg and the plain
# linalg lowering, the raised through fa-cpu-pipeline; same random inputs.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-tosa.mlir"),
    ["tosa_attention", "tosa_causal"], tosa=True)

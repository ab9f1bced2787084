# fa-raise-attention on decode forms (one query token: the row is a unit
# dimension): each function of raise-attention-decode.mlir, original vs
# raised, on the CPU.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "Dialect", "FA")
raise_equiv.run_file(os.path.join(here, "raise-attention-decode.mlir"),
                     ["bert_decode", "single_head_decode", "einsum_decode",
                      "padded_decode", "gqa_einsum_decode", "gqa_bias_g"])

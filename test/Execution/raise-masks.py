# fa-raise-attention on causal masks, sliding windows and padding biases:
# original (plain linalg lowering) vs raised (fa-cpu-pipeline), same inputs.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-masks.mlir"),
    ["gpt2_where_finfo_min", "causal_iota_select", "causal_bottom_right",
     "causal_additive_constant", "causal_neg_1e9", "sliding_window",
     ("padding_mask_bias", dict(binary=[3])), "gemma2_softcap",
     "bool_mask_select", "two_layers", "causal_additive_neg_1e9"])

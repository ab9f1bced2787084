# Masks whose positions the program computes (issue 34 item 1): the raised
# functions of raise-attention-position-tensors.mlir (position ids folded
# through slices, a concat and tm_tensor.scan; ALiBi slopes by math.powf)
# against the originals on the same inputs.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-position-tensors.mlir"),
    ["packed_detection_causal", "sliced_cache_positions",
     "alibi_pow_slopes"])

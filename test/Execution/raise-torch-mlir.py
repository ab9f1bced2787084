# fa-raise-attention on torch-mlir-style linalg: the original IR (plain linalg
# lowering) and the raised IR (fa.attention through fa-cpu-pipeline) give the
# same outputs on the same random inputs.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-torch-mlir.mlir"),
    ["bert_attention", "single_head", "einsum_softmax",
     ("dynamic_batch_seq", dict(shapes=dict(
         args=[[2, 12, 40, 64], [2, 12, 56, 64], [2, 12, 56, 64]],
         results=[[2, 12, 40, 64]]))),
     "deferred_normalization"])

# fa-raise-attention on a joint forward + backward graph: the original (plain
# linalg: P saved, dV = Pᵀ dO, dP = dO Vᵀ, softmax backward, dQ, dK) and the
# raised (fa.attention with its LSE + fa.attention_grad) give the same O, dQ,
# dK and dV on the same random inputs.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import os

import raise_equiv

raise_equiv.run_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Dialect",
                 "FA", "raise-attention-backward.mlir"),
    ["bert_fwd_bwd", "fused_softmax_backward", "causal_fwd_bwd",
     "torch_mlir_fwd_bwd", "gqa_fwd_bwd", "gqa_mask_fwd_bwd",
     "prescaled_fwd_bwd", "autodiff_softmax_backward"])

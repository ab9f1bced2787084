//===- Passes.td - fa dialect transformations --------------*- tablegen -*-===//
#ifndef FA_DIALECT_FA_TRANSFORMS_PASSES_TD
#define FA_DIALECT_FA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FADecomposeAttention : Pass<"fa-decompose-attention"> {
  let summary = "Rewrite fa ops into plain linalg: the reference semantics";
  let description = [{
    Replaces every `fa.attention` by the textbook computation on tensors:
    S = scale * Q Kᵀ (+ bias, softcap, mask), P = softmax(S) in f32, O = P V;
    and every `fa.attention_grad` by the analytic backward (P recomputed from
    the scores, dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP - rowsum(dO ∘ O)),
    dQ = scale dS K, dK = scale dSᵀ Q, with the softcap derivative; GQA heads
    summed). The full seq_q × seq_k score matrix is materialised: this pass is
    the oracle the optimized lowerings are tested against, written to be
    obviously right rather than fast.

    Input: `fa` ops on ranked tensors. Output: `linalg`, `tensor`, `arith`
    and `math` ops; no `fa` op remains.

    Example:
    ```mlir
    %o = fa.attention %q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x6x8xf32>,
        tensor<1x1x6x8xf32> -> tensor<1x1x4x8xf32>
    // becomes linalg.generic contractions, reductions and elementwise ops.
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // FA_DIALECT_FA_TRANSFORMS_PASSES_TD

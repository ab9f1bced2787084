//===- RaisePatterns.h - fa-raise-attention as rewrite patterns -*- C++ -*-===//
//
// The recognizer of fa-raise-attention as a rewrite pattern anchored on the
// P·V contraction, for pipelines that want to raise attention inside their
// own greedy rewrite (docs/RaiseAttention.md).
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_RAISEPATTERNS_H
#define FA_DIALECT_FA_TRANSFORMS_RAISEPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::fa {

/// Choices of the raise that trade exactness for a faster op.
struct RaiseAttentionOptions {
  /// Attention whose Q, K and V are extended from one low-precision type T
  /// (bf16, f16), computed wider and truncated back to T is raised as a T
  /// op, which rounds P to T as the fused kernels do (PyTorch's sdpa
  /// contract on T inputs; docs/RaiseAttention.md, "Element types"). Off:
  /// the op computes in the wider type, converts around it.
  bool narrowPromoted = true;
};

/// Adds the pattern that replaces attention written as generic ops by
/// fa.attention (and its backward by fa.attention_grad). Every raise and
/// every near miss emits a remark on the P·V contraction; a near miss is
/// reported once and not retried. Run it top-down (the forward's P·V before
/// the backward's contractions).
/// Also adds populateTMTensorAttentionRaisePatterns's and
/// populateIREEAttentionRaisePatterns's patterns.
void populateFARaiseAttentionPatterns(
    RewritePatternSet &patterns, const RaiseAttentionOptions &options = {});

/// Adds the pattern that replaces torch-mlir's tm_tensor.attention by
/// fa.attention (Raising/TMTensor.cpp), with a remark on the op.
void populateTMTensorAttentionRaisePatterns(RewritePatternSet &patterns);

/// Adds the pattern that replaces IREE's iree_linalg_ext.attention by
/// fa.attention (Raising/IREEAttention.cpp), with a remark on the op.
void populateIREEAttentionRaisePatterns(RewritePatternSet &patterns);

/// Folds the reshapes and transposes a raise put around fa.attention with
/// the view ops the program had there (collapse-then-expand pairs,
/// transposes of transposes); only ops the pattern marked are touched.
void foldFARaiseGlue(Operation *root);

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_RAISEPATTERNS_H

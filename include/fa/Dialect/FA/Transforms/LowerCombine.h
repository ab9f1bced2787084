//===- LowerCombine.h - fa.combine as linalg on tensors ---------*- C++ -*-===//
//
// The LSE merge of partial attention results, shared by the tiled lowering
// (split-KV) and the reference decomposition, so that both merge alike.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_LOWERCOMBINE_H
#define FA_DIALECT_FA_TRANSFORMS_LOWERCOMBINE_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fa {

/// Replaces `op` by linalg.generic ops on tensors: a max over the splits,
/// the weighted sums, and the normalisation (output 0, LSE -inf where no
/// split saw a key).
void lowerCombine(CombineOp op, RewriterBase &rewriter);

/// Lowers every fa.combine under `root`.
void lowerCombines(Operation *root, RewriterBase &rewriter);

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_LOWERCOMBINE_H

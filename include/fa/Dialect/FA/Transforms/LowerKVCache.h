//===- LowerKVCache.h - fa.attention_kvcache as per-sequence ops -*- C++ -*-===//
//
// fa.attention_kvcache becomes loops over the sequences whose body is a
// dense fa.attention on that sequence's dynamically sized keys (a slice of a
// contiguous cache, or its pages gathered from a paged one), after the new
// keys are inserted into the caches. The tiled lowering and the reference
// decomposition both run it first and then lower the fa.attention ops as
// they always do, so the two agree by construction on everything but the
// per-sequence attention they already test.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_LOWERKVCACHE_H
#define FA_DIALECT_FA_TRANSFORMS_LOWERKVCACHE_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fa {

/// Replaces every fa.attention_kvcache under `root` by scf/tensor ops and
/// one fa.attention per sequence.
void lowerKVCacheOps(Operation *root, RewriterBase &rewriter);

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_LOWERKVCACHE_H

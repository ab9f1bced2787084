//===- LowerSequences.h - Ragged and cached attention per sequence -*- C++ -*-===//
//
// fa.attention_kvcache and fa.attention_varlen become loops over the
// sequences whose body is a dense fa.attention on that sequence's
// dynamically sized slices (of the packed tensors, of a contiguous cache,
// or its pages gathered from a paged one); a KV cache first gets its new
// keys inserted. The tiled lowering and the reference
// decomposition both run it first and then lower the fa.attention ops as
// they always do, so the two agree by construction on everything but the
// per-sequence attention they already test.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_LOWERSEQUENCES_H
#define FA_DIALECT_FA_TRANSFORMS_LOWERSEQUENCES_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fa {

/// Replaces every fa.attention_kvcache and fa.attention_varlen under `root`
/// by scf/tensor ops and one fa.attention per sequence.
void lowerSequenceOps(Operation *root, RewriterBase &rewriter);

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_LOWERSEQUENCES_H

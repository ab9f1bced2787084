//===- Tiling.h - FlashAttention loop nests for fa ops ----------*- C++ -*-===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILING_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILING_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fa::tiling {

enum class DQAccumulation { deterministic, atomic };

struct TileOptions {
  int64_t blockQ = 64;
  int64_t blockK = 64;
  DQAccumulation dqAccumulation = DQAccumulation::deterministic;
  /// The cores split-KV's heuristic (num_splits = 0) aims to occupy.
  int64_t cores = 16;
};

/// Replaces `op` by the FlashAttention forward loop nest.
LogicalResult tileForward(AttentionOp op, RewriterBase &rewriter,
                          const TileOptions &options);
/// Replaces `op` by the FlashAttention-2 backward loop nests.
LogicalResult tileBackward(AttentionGradOp op, RewriterBase &rewriter,
                           const TileOptions &options);

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILING_H

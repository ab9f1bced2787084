//===- ScoreTile.h - One tile of attention scores ---------------*- C++ -*-===//
//
// A tile of the scores S (scale, bias, softcap, mask: exactly
// AttentionConfig's score function) in the log2 domain, i.e. log2(e) * S, so
// that softmax uses exp2. log2(e) is folded into the scale when nothing
// (bias, softcap) sits between the scale and the exponential. The
// per-element mask is computed only on tiles that cross the mask boundary:
// an scf.if on MaskBounds::fullyVisible picks the unmasked body otherwise.
// The forward, the backward and the dQ nest all take their scores from here.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_SCORETILE_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_SCORETILE_H

#include "MaskBounds.h"
#include "TileBuilder.h"
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"

namespace mlir::fa::tiling {

class ScoreTile {
public:
  ScoreTile(TileBuilder &tb, const AttentionConfig &config, MaskBounds &bounds,
            bool hasBias);

  /// log2(e) * S for the tile rows x cols, -inf where hidden. `qk` holds the
  /// f32 dot products q_i . k_j, `bias` the bias tile (null without bias).
  Value scores(Value qk, Value bias, Span rows, Span cols);

  /// Scalar d S / d(scale qk + bias) given a value of `scores` (log2
  /// domain); null when it is 1 (no softcap).
  Value derivative(Value s2);

private:
  Value body(Value qk, Value bias, Value i, Value j, bool masked);

  TileBuilder &tb;
  AttentionConfig config;
  Log2Score log2Score;
  MaskBounds &bounds;
};

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_SCORETILE_H

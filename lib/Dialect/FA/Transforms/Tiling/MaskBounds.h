//===- MaskBounds.h - Which tiles a causal/window mask hides ----*- C++ -*-===//
//
// The tile-level view of AttentionConfig's mask: for a block of query rows,
// the key columns any of its rows can see (the loop bounds that skip fully
// hidden tiles, in the forward and in the dQ nest); for a block of key
// columns, the query rows that see any of them (the backward's bounds); and
// whether a tile is entirely visible, so that only boundary tiles pay for the
// per-element mask. All three derive from one (off, left, right) triple, so
// the forward and the backward skip exactly the same tiles.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MASKBOUNDS_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MASKBOUNDS_H

#include "TileBuilder.h"
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"

#include <optional>

namespace mlir::fa::tiling {

class MaskBounds {
public:
  /// Emits the diagonal offset (0, or seqK - seqQ for bottom_right).
  MaskBounds(TileBuilder &tb, const AttentionConfig &config, Value seqQ,
             Value seqK);

  bool hasMask() const { return left || right; }

  /// Key columns [lo, hi) seen by some row of `rows` (hi may be <= lo).
  std::pair<Value, Value> keyRange(Span rows);
  /// Query rows [lo, hi) that see some column of `cols`.
  std::pair<Value, Value> queryRange(Span cols);
  /// i1: no element of rows x cols is hidden. Null without a mask.
  Value fullyVisible(Span rows, Span cols);

  /// Tile indices [lo, hi) of size `block` covering positions [lo, hi).
  std::pair<Value, Value> tileRange(std::pair<Value, Value> range,
                                    int64_t block);

private:
  TileBuilder &tb;
  Value seqQ, seqK, off;
  /// Visible: i + off - left <= j <= i + off + right.
  std::optional<int64_t> left, right;
};

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MASKBOUNDS_H

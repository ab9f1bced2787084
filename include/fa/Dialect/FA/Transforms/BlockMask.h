//===- BlockMask.h - mask_mod classified per tile at compile time -*- C++
//-*-===//
//
// FlexAttention's BlockMask, decided at compile time: for every tile of
// block_q query rows x block_k key columns, whether mask_mod hides all of
// it (the tile is skipped), none of it (it takes the unmasked path) or
// part of it (it is masked element by element). The region is evaluated on
// intervals: each argument is the range it takes over the tile (the rows,
// the columns, every batch and head), each integer op maps ranges to a
// range that holds every result, and an i1 whose range is {1} or {0} decides
// the tile. That is sound for any region (an op without a rule, a capture,
// a float, gives an unknown value and so a partial tile) and exact for the
// monotone integer masks positions are written with (causal, windows,
// prefixes, blocks of fixed size), in time linear in the number of tiles.
// It needs static sequence lengths; the lowerings use it where it applies.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_BLOCKMASK_H
#define FA_DIALECT_FA_TRANSFORMS_BLOCKMASK_H

#include "mlir/IR/Region.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mlir::fa {

/// What mask_mod does to the elements of one tile.
enum class TileMask : uint8_t { hidden = 0, partial = 1, visible = 2 };

class BlockMask {
public:
  /// The tiles of a [seqQ x seqK] problem with `blockQ` x `blockK` tiles,
  /// over `batch` x `heads` (0 when dynamic: every value). Null when
  /// mask_mod is absent.
  static std::optional<BlockMask> analyze(Region &maskMod, int64_t batch,
                                          int64_t heads, int64_t seqQ,
                                          int64_t seqK, int64_t blockQ,
                                          int64_t blockK);

  int64_t numQueryTiles() const { return numQ; }
  int64_t numKeyTiles() const { return numK; }
  TileMask at(int64_t qt, int64_t kt) const { return tiles[qt * numK + kt]; }
  /// Key tiles [lo, hi) query tile `qt` must visit: the span of its
  /// non-hidden tiles (lo = hi when there is none).
  std::pair<int64_t, int64_t> keyTiles(int64_t qt) const;
  /// Query tiles [lo, hi) that see some key of key tile `kt`.
  std::pair<int64_t, int64_t> queryTiles(int64_t kt) const;
  /// A hidden tile lies inside some query tile's key span (or key tile's
  /// query span): the loops must test tiles, not only their bounds.
  bool hasHiddenInside() const;
  bool hasVisible() const;
  /// Some tile is hidden or visible (not all partial).
  bool decidesSome() const;

private:
  int64_t numQ = 0, numK = 0;
  std::vector<TileMask> tiles;
};

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_BLOCKMASK_H

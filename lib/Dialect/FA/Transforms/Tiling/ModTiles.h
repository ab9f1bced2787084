//===- ModTiles.h - Tiles mask_mod skips or leaves unmasked ------*- C++
//-*-===//
//
// FlexAttention's BlockMask in the tile nests: for each tile, whether
// mask_mod hides all of it (skipped), none of it (the unmasked score body)
// or part of it (masked element by element).
//
// - Static: when the sequence lengths are static and the interval analysis
//   of the region (BlockMask.h) decides some tile, the answers are constant
//   tables, one entry per tile plus one span of non-hidden tiles per query
//   and per key tile; the loops are narrowed to those spans, and a hidden
//   tile inside a span is skipped.
// - Run time: otherwise (a mask that reads captures, e.g. document ids, or
//   a dynamic length) a pre-nest evaluates mask_mod over every tile once and
//   writes the map [B', H', query tiles, key tiles] (B' and H' are 1 when
//   the region does not read its batch or head argument); the nests read it
//   per tile.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MODTILES_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MODTILES_H

#include "TileBuilder.h"
#include "Tiling.h"

#include "fa/Dialect/FA/Transforms/AttentionConfig.h"
#include "fa/Dialect/FA/Transforms/BlockMask.h"

namespace mlir::fa::tiling {

/// The batch and query head a tile of scores belongs to (index values):
/// with the tile's rows and columns, what score_mod and mask_mod take.
struct TileHead {
  Value batch, head;
};

class ModTiles {
public:
  /// Emits the static tables or the run-time map at b's insertion point.
  ModTiles(TileBuilder &tb, const AttentionConfig &config, const Problem &p,
           const TileOptions &options);

  /// Whether the nests visit tiles by mask_mod at all (there is one, and a
  /// map).
  bool active() const { return bool(kinds); }
  /// `range` (key tiles) narrowed to those mask_mod leaves some visible
  /// element of for the query tile of `rows` (static maps only).
  std::pair<Value, Value> keyTiles(Span rows, std::pair<Value, Value> range);
  /// `range` (query tiles) narrowed to those that see some key of `cols`.
  std::pair<Value, Value> queryTiles(Span cols, std::pair<Value, Value> range);
  /// i1: mask_mod hides the whole tile; null when no tile needs the test.
  Value hidden(Span rows, Span cols, TileHead at);
  /// i1: mask_mod hides nothing of the tile; null when no tile is known
  /// to be.
  Value visible(Span rows, Span cols, TileHead at);
  /// `body()`, or `carried` unchanged where the tile is hidden.
  SmallVector<Value> unlessHidden(Span rows, Span cols, TileHead at,
                                  ValueRange carried,
                                  function_ref<SmallVector<Value>()> body);

private:
  void buildStatic(const BlockMask &mask);
  void buildRuntime(const AttentionConfig &config, const Problem &p);
  /// The number of tiles of `config.maskMod`'s hidden elements -> kind.
  Value tileKind(const AttentionConfig &config, Value bi, Value h, Span rows,
                 Span cols);
  Value table(ArrayRef<int32_t> values, ArrayRef<int64_t> shape);
  Value read(Value table, ValueRange indices);
  Value tileOf(Span span, int64_t block);
  /// `range` intersected with [lo[tile], hi[tile]) (static tables).
  std::pair<Value, Value> narrow(std::pair<Value, Value> range, Value lo,
                                 Value hi, Value tile);
  Value kindIs(Span rows, Span cols, TileHead at, TileMask kind);

  TileBuilder &tb;
  int64_t blockQ, blockK;
  std::optional<BlockMask> mask; // the static map
  /// i32 kinds: [query tiles, key tiles] (static) or [B', H', query tiles,
  /// key tiles] (run time); null when inactive.
  Value kinds;
  Value keyLo, keyHi, queryLo, queryHi; // static only
  bool perBatch = false, perHead = false;
};

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MODTILES_H

//===- OperandTiles.h - Tiles of an attention op's operands -----*- C++ -*-===//
//
// What the nests read from the op's operands for one (batch, head) and a
// span of rows or columns: query, key and value tiles in f32 (FP8 descales
// applied on conversion), the bias tile (broadcast over batch/heads), and the
// grouped-query mapping from a query head to its key/value head.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_OPERANDTILES_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_OPERANDTILES_H

#include "TileBuilder.h"

namespace mlir::fa::tiling {

class OperandTiles {
public:
  OperandTiles(TileBuilder &tb, const Problem &p) : tb(tb), p(p) {}

  /// The key/value head query head `h` reads: h / (heads_q / heads_kv).
  Value kvHead(Value h);
  /// The descale for (bi, kv-head hk) of a per-tensor or per-head descale
  /// operand; null when `descale` is null or per block.
  Value descale(Value descale, Value bi, Value hk);
  /// The descale of each of `rows` of head `head` (a query head for Q, a
  /// kv head for K and V) of a per-block descale operand with blocks of
  /// `block` rows: a [rows.len] f32 tensor; otherwise `descale(...)`. Per
  /// row, so the tile sizes need not nest with the descale blocks.
  Value rowDescales(Value descale, Value bi, Value hk, Value head, Span rows,
                    int64_t block);
  static bool isPerBlock(Value descale);
  /// [rows.len, dim] f32 rows of head h (times `factor` if not null); a
  /// view of `t` when that is f32 already.
  Value rowsF32(Value t, Value bi, Value h, Span rows, Value factor);
  /// [dim, cols.len] f32: rows `cols` of head h transposed.
  Value rowsF32Transposed(Value t, Value bi, Value h, Span cols,
                          Value factor);
  /// The bias tile for (bi, h) of query rows x key cols: [rows, cols] in
  /// the bias's element type; null when `bias` is null.
  Value biasTile(Value bias, Value bi, Value h, Span rows, Span cols);

  /// Whether one bias slice is shared by all batches / all query heads.
  static bool broadcastsBatch(Value bias);
  static bool broadcastsHeads(Value bias);

private:
  TileBuilder &tb;
  const Problem &p;
};

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_OPERANDTILES_H

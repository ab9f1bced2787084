//===- TileBuilder.h - Tensor tiles of an attention problem -----*- C++ -*-===//
//
// The small vocabulary the tiled lowerings are written in: the problem sizes
// of an op, 2-D tiles cut out of its rank-4 operands (in either layout), and
// f32 tile arithmetic as linalg.generic ops on tensors. Contractions put the
// reduction loop in the middle so that the innermost loop runs along a
// contiguous row of both the operand and the accumulator: after
// convert-linalg-to-loops that loop vectorizes without reassociation.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILEBUILDER_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILEBUILDER_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "fa/Dialect/FA/Transforms/MaskRule.h"
#include "fa/Dialect/FA/Transforms/ScalarBuilder.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::fa::tiling {

/// Sizes of an attention problem as index values (constants when static).
struct Problem {
  LayoutDims ld;
  Value batch, headsQ, headsKV, group, seqQ, seqK;
  int64_t headDim = 0, headDimV = 0;

  static Problem get(ImplicitLocOpBuilder &b, Layout layout, Value q, Value k,
                     Value v);
};

using fa::Span;

/// Scalars (the shared ScalarBuilder on `index`) plus tensor tiles.
class TileBuilder : public ScalarBuilder {
public:
  explicit TileBuilder(ImplicitLocOpBuilder &b)
      : ScalarBuilder(b, b.getIndexType()) {}

  Value index(int64_t v) { return constant(v); }
  Value f32(double v) { return constantF32(v); }

  /// Tile `i` of `count` in the order 0, count-1, 1, count-2, ...: under a
  /// causal mask the tiles' work grows (or shrinks) along the sequence, and
  /// OpenMP's static schedule hands each thread a contiguous range of
  /// iterations; interleaved, every range holds as many heavy as light
  /// tiles.
  Value interleaved(Value i, Value count);
  /// The block `i` of size `block` within [0, size): start and length.
  Span block(Value i, int64_t block, Value size);

  // Tiles of rank-4 operands in the op's layout `ld`.
  /// Rows `rows` of head `h`, batch `bi`: a [rows.len, dim] tensor view.
  Value extractRows(Value t, LayoutDims ld, Value bi, Value h, Span rows);
  /// Offsets and sizes of the region [bi, h, rows, :] of a rank-4 tensor
  /// whose head_dim is `dim`, ordered by `ld`.
  void rowsRegion(LayoutDims ld, Value bi, Value h, Span rows, int64_t dim,
                  SmallVectorImpl<OpFoldResult> &offsets,
                  SmallVectorImpl<OpFoldResult> &sizes);
  /// `ofrs` with constant values replaced by attributes.
  SmallVector<OpFoldResult> folded(ArrayRef<OpFoldResult> ofrs);
  /// The region (offsets, sizes) of `t` with its unit dimensions dropped,
  /// except the innermost: that is the tile's own last dim (head dim, key
  /// columns, or the rows of a row vector), also when it is 1.
  Value extractRegion(Value t, ArrayRef<OpFoldResult> offsets,
                      ArrayRef<OpFoldResult> sizes);
  /// Rows `rows` of [batch, heads, seq] tensor (LSE, D): a [rows.len] view.
  Value extractRowVector(Value t, Value bi, Value h, Span rows);

  // f32 tile arithmetic.
  Value emptyF32(ArrayRef<OpFoldResult> sizes);
  Value fillF32(ArrayRef<OpFoldResult> sizes, double v);
  /// Filled with the f32 value `v`.
  Value fillF32(ArrayRef<OpFoldResult> sizes, Value v);
  SmallVector<OpFoldResult> sizesOf(Value t);
  /// f32 copy of a 2-D tile, times `factor` when not null (an f32 scalar,
  /// or a [rows] tensor: one factor per row of `tile`), transposed when
  /// asked.
  Value toF32(Value tile, Value factor, bool transpose);
  /// One linalg.generic; `body` gets the block arguments (inputs then the
  /// output) and returns the value to yield.
  Value generic(ValueRange ins, Value init, ArrayRef<AffineMap> maps,
                ArrayRef<utils::IteratorType> iterators,
                function_ref<Value(ValueRange)> body);
  /// acc[m, n] + sum_k A[m, k] * B[k, n]; A is given as [k, m] when
  /// `transposeA` (and copied into an f32 [m, k] tile). Other non-f32
  /// operands are extended inside the loop.
  Value matmul(Value a, Value bMat, Value acc, bool transposeA = false);
  /// Elementwise over a tile shaped like `shapeLike`; each input is either
  /// a full tile (rank 2) or a per-row vector (rank 1) broadcast along rows.
  Value map2d(ValueRange ins, Value shapeLike,
              function_ref<Value(ValueRange)> body);
  /// `dest` updated in place, elementwise: `body` gets the inputs (full
  /// tiles, or per-row vectors broadcast along rows when `dest` is 2-D) and
  /// then dest's element. Loop-carried values updated this way bufferize
  /// into the loop's own buffers.
  Value update(Value dest, ValueRange ins,
               function_ref<Value(ValueRange)> body);
  /// Elementwise over vectors shaped like `shapeLike` (rank 1).
  Value map1d(ValueRange ins, Value shapeLike,
              function_ref<Value(ValueRange)> body);
  /// Row-wise reduction of a 2-D tile into a vector.
  Value reduceRows(Value tile, double init,
                   function_ref<Value(Value acc, Value x)> combine);
  /// acc (zeros when null) + the sum over columns of a * b elementwise
  /// (both 2-D, any float types).
  Value rowDot(Value a, Value bMat, Value acc = nullptr);
  /// Cast to `type` (truncf/extf) elementwise, keeping the shape.
  Value castTile(Value tile, Type type);

  MLIRContext *ctx() { return b.getContext(); }
  AffineExpr d(unsigned i) { return getAffineDimExpr(i, ctx()); }
  AffineMap map(unsigned numDims, ArrayRef<AffineExpr> results) {
    return AffineMap::get(numDims, 0, results, ctx());
  }
  Value extendF32(Value x);
};

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILEBUILDER_H

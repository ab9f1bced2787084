//===- TileLoops.h - The loops of the tiled nests ---------------*- C++ -*-===//
//
// scf.forall over independent tiles (results written with
// tensor.parallel_insert_slice) and scf.for over a range of tiles carrying
// accumulators: the two loop kinds every nest of the tiled lowering is made
// of.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILELOOPS_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILELOOPS_H

#include "TileBuilder.h"

namespace mlir::fa::tiling {

/// One result tile of a parallel iteration: `source` goes to the region
/// (offsets, sizes, unit strides) of the shared output number `output`.
struct TileWrite {
  Value source;
  unsigned output;
  SmallVector<OpFoldResult> offsets, sizes;
};

/// scf.forall (ivs) in (upperBounds) shared_outs(outputs); `body` gets the
/// induction variables and the shared outputs and returns its writes.
SmallVector<Value>
buildForall(TileBuilder &tb, ArrayRef<OpFoldResult> upperBounds,
            ValueRange outputs,
            function_ref<SmallVector<TileWrite>(ValueRange ivs,
                                                ValueRange shared)>
                body);

/// scf.for %iv = lo to hi carrying `init`; `body` returns the next values.
SmallVector<Value>
buildFor(TileBuilder &tb, Value lo, Value hi, ValueRange init,
         function_ref<SmallVector<Value>(Value iv, ValueRange carried)> body);

/// scf.for over the tiles [tiles.first, tiles.second) of size `block` of
/// [0, size); `body` gets each tile's span.
SmallVector<Value>
buildTileFor(TileBuilder &tb, std::pair<Value, Value> tiles, int64_t block,
             Value size, ValueRange init,
             function_ref<SmallVector<Value>(Span, ValueRange)> body);

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_TILELOOPS_H

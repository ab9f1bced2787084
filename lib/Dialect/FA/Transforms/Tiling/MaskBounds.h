//===- MaskBounds.h - Which tiles a causal/window mask hides ----*- C++ -*-===//
//
// The tile nests use the shared rule of every lowering (MaskRule.h) on index
// values: the loop bounds that skip fully hidden tiles, the backward's query
// ranges, and the boundary-tile test all come from it.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MASKBOUNDS_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MASKBOUNDS_H

#include "fa/Dialect/FA/Transforms/MaskRule.h"

namespace mlir::fa::tiling {

using MaskBounds = fa::MaskRule;

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_MASKBOUNDS_H

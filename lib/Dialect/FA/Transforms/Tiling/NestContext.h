//===- NestContext.h - What every tiled loop nest of an op needs -*- C++ -*-===//
//
// The forward and the backward nests read the same problem sizes, tile the
// same operands and apply the same masks and scores; both build them here so
// that the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_NESTCONTEXT_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_NESTCONTEXT_H

#include "MaskBounds.h"
#include "ModTiles.h"
#include "OperandTiles.h"
#include "ScoreTile.h"
#include "TileBuilder.h"
#include "Tiling.h"

#include "fa/Dialect/FA/Transforms/AttentionConfig.h"

namespace mlir::fa::tiling {

template <typename OpT>
struct NestContext {
  NestContext(OpT op, ImplicitLocOpBuilder &b, const TileOptions &options)
      : op(op), tb(b), options(options), config(AttentionConfig::get(op)),
        p(Problem::get(b, config.layout, op.getQuery(), op.getKey(),
                       op.getValue())),
        tiles(tb, p), bounds(tb, config, p.seqQ, p.seqK),
        modTiles(tb, config, p, options),
        scores(tb, config, bounds, modTiles, bool(op.getBias())) {}

  OpT op;
  TileBuilder tb;
  TileOptions options;
  AttentionConfig config;
  Problem p;
  OperandTiles tiles;
  MaskBounds bounds;
  ModTiles modTiles;
  ScoreTile scores;
};

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_NESTCONTEXT_H

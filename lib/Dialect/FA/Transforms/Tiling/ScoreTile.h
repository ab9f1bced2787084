//===- ScoreTile.h - One tile of attention scores ---------------*- C++ -*-===//
//
// A tile of the scores S (scale, bias, softcap, mask: exactly
// AttentionConfig's score function) in the log2 domain, i.e. log2(e) * S, so
// that softmax uses exp2. log2(e) is folded into the scale when nothing
// (bias, softcap) sits between the scale and the exponential. The
// per-element mask is computed only on tiles that cross the mask boundary:
// an scf.if on MaskBounds::fullyVisible (and, with mask_mod, on
// ModTiles::visible) picks the unmasked body otherwise.
// The forward, the backward and the dQ nest all take their scores from here.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_TILING_SCORETILE_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_TILING_SCORETILE_H

#include "MaskBounds.h"
#include "ModTiles.h"
#include "TileBuilder.h"
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"

namespace mlir::fa::tiling {

class ScoreTile {
public:
  ScoreTile(TileBuilder &tb, const AttentionConfig &config, MaskBounds &bounds,
            ModTiles &modTiles, bool hasBias);

  /// log2(e) * S for the tile rows x cols, -inf where hidden. `qk` holds the
  /// f32 dot products q_i . k_j, `bias` the bias tile (null without bias).
  /// With mask_mod every tile is masked element by element, except those
  /// ModTiles knows mask_mod leaves fully visible.
  Value scores(Value qk, Value bias, Span rows, Span cols, TileHead at);

  /// Scalar d S / d(scale qk + bias) given a value of `scores` (log2
  /// domain); null when it is 1 (no softcap). Not with score_mod: see
  /// `derivatives`.
  Value derivative(Value s2);

  /// The tile of d S / d(scale qk + bias) with score_mod (its derivative,
  /// from the region's ops, times the softcap's).
  Value derivatives(Value qk, Value bias, Span rows, Span cols, TileHead at);

private:
  /// The score of element (i, j), with the causal/window mask when
  /// `bandMask` and mask_mod when `modMask`; `i` and `j` are null on a
  /// tile without a mask and without modifiers.
  Value body(Value qk, Value bias, Value i, Value j, bool bandMask,
             bool modMask, TileHead at);
  /// A generic over the tile with q . k, the bias (null without) and the
  /// element's global row and column (null unless `withIndices`).
  Value overTile(Value qk, Value bias, Span rows, Span cols, bool withIndices,
                 function_ref<Value(Value qk, Value bias, Value i, Value j)>
                     element);

  TileBuilder &tb;
  AttentionConfig config;
  Log2Score log2Score;
  MaskBounds &bounds;
  ModTiles &modTiles;
};

} // namespace mlir::fa::tiling

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_TILING_SCORETILE_H

//===- MaskRule.h - The causal/window rule as integer arithmetic -*- C++ -*-===//
//
// Which keys a query sees under fa.attention's causal and window masks, and
// every tile-level consequence of it, emitted as integer arithmetic in one
// integer type: `index` in the CPU tile nests, `i32` in the sm_90a kernel,
// `i64` in the reference decomposition. Key j is visible to query i iff
//
//     i + off - left  <=  j  <=  i + off + right
//
// with off = seq_k - seq_q for bottom_right alignment (else 0), right = 0 for
// causal (min with the window's right side), and a missing side unbounded.
// The per-element test, a row's visible column range (GPU fragments), the
// key range a block of rows sees (loop bounds that skip hidden tiles), the
// query range a block of columns is seen by (the backward), and whether a
// tile needs a mask at all all derive from that one triple, so a change to
// the rule changes every lowering at once.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_MASKRULE_H
#define FA_DIALECT_FA_TRANSFORMS_MASKRULE_H

#include "fa/Dialect/FA/Transforms/AttentionConfig.h"
#include "fa/Dialect/FA/Transforms/ScalarBuilder.h"

#include <optional>
#include <utility>

namespace mlir::fa {

/// A run of `len` consecutive positions starting at `start`.
struct Span {
  Value start, len;
};

/// The sides of the visibility band, independent of any IR.
struct MaskBand {
  bool bottomRight = false;
  std::optional<int64_t> left, right; // unbounded when empty

  static MaskBand get(const AttentionConfig &config);
  bool hasMask() const { return left || right; }
};

class MaskRule {
public:
  /// `seqQ` and `seqK` are values of `s.intType` (index, i32 or i64); every
  /// value passed to or returned by the methods has that type.
  MaskRule(ScalarBuilder &s, const AttentionConfig &config, Value seqQ,
           Value seqK);

  bool hasMask() const { return band.hasMask(); }
  const MaskBand &getBand() const { return band; }

  /// Columns [lo, hi) that row `i` sees, clamped to [0, seqK).
  std::pair<Value, Value> rowColumns(Value i);
  /// i1: key `j` is hidden from query `i` (null without a mask). Only the
  /// band is tested: j < seqK is the caller's business.
  Value isMasked(Value i, Value j);
  /// Key columns [lo, hi) seen by some row of `rows` (hi may be <= lo).
  std::pair<Value, Value> keyRange(Span rows);
  /// Query rows [lo, hi) that see some column of `cols`.
  std::pair<Value, Value> queryRange(Span cols);
  /// i1: no element of rows x cols is hidden by the band (null without a
  /// mask).
  Value fullyVisible(Span rows, Span cols);
  /// Tile indices [lo, hi) of size `block` covering positions [lo, hi) with
  /// lo >= 0 (as every range above has); an empty position range gives an
  /// empty tile range.
  std::pair<Value, Value> tileRange(std::pair<Value, Value> range,
                                    int64_t block);

private:
  /// ceil(max(end, 0) / block): the tiles that hold a position below `end`.
  Value tilesBefore(Value end, int64_t block);

  ScalarBuilder &s;
  MaskBand band;
  Value seqQ, seqK, off;
};

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_MASKRULE_H

//===- MaskRule.cpp - The causal/window rule as integer arithmetic --------===//
#include "fa/Dialect/FA/Transforms/MaskRule.h"

#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fa;

MaskBand MaskBand::get(const AttentionConfig &config) {
  MaskBand band;
  band.bottomRight = config.alignment == MaskAlignment::bottom_right;
  if (config.causal)
    band.right = 0;
  if (config.window) {
    band.left = config.window->first;
    band.right = std::min(band.right.value_or(config.window->second),
                          config.window->second);
  }
  return band;
}

/// Window sides beyond any sequence length mean "unbounded"; clamping them
/// keeps i + off +- side from overflowing the working type (i32 kernels take
/// sequences below 2^29).
static int64_t clampSide(Type type, int64_t side) {
  int64_t huge = type.isInteger(32) ? (int64_t(1) << 29) : (int64_t(1) << 48);
  return std::min(side, huge);
}

MaskRule::MaskRule(ScalarBuilder &s, const AttentionConfig &config, Value seqQ,
                   Value seqK)
    : s(s), band(MaskBand::get(config)), seqQ(seqQ), seqK(seqK) {
  if (band.left)
    band.left = clampSide(s.intType, *band.left);
  if (band.right)
    band.right = clampSide(s.intType, *band.right);
  off = band.bottomRight ? s.sub(seqK, seqQ) : s.constant(0);
}

std::pair<Value, Value> MaskRule::rowColumns(Value i) {
  Value lo = s.constant(0), hi = seqK;
  Value diag = s.add(i, off);
  if (band.left)
    lo = s.maxSI(lo, s.sub(diag, s.constant(*band.left)));
  if (band.right)
    hi = s.minSI(hi, s.add(diag, s.constant(*band.right + 1)));
  return {lo, hi};
}

Value MaskRule::isMasked(Value i, Value j) {
  if (!hasMask())
    return nullptr;
  Value diag = s.add(i, off), masked;
  if (band.right)
    masked = s.cmp(arith::CmpIPredicate::sgt, j, s.add(diag, s.constant(*band.right)));
  if (band.left) {
    Value before =
        s.cmp(arith::CmpIPredicate::slt, j, s.sub(diag, s.constant(*band.left)));
    masked = masked ? arith::OrIOp::create(s.b, masked, before).getResult()
                    : before;
  }
  return masked;
}

std::pair<Value, Value> MaskRule::keyRange(Span rows) {
  Value lo = s.constant(0), hi = seqK;
  if (band.left)
    lo = s.maxSI(lo, s.sub(s.add(rows.start, off), s.constant(*band.left)));
  if (band.right) {
    // The last row's last visible column, plus one.
    Value last = s.add(rows.start, rows.len);
    hi = s.minSI(hi, s.add(s.add(last, off), s.constant(*band.right)));
  }
  return {lo, hi};
}

std::pair<Value, Value> MaskRule::queryRange(Span cols) {
  Value lo = s.constant(0), hi = seqQ;
  if (band.right)
    lo = s.maxSI(lo, s.sub(s.sub(cols.start, off), s.constant(*band.right)));
  if (band.left) {
    Value last = s.add(cols.start, cols.len);
    hi = s.minSI(hi, s.add(s.sub(last, off), s.constant(*band.left)));
  }
  return {lo, hi};
}

Value MaskRule::fullyVisible(Span rows, Span cols) {
  if (!hasMask())
    return nullptr;
  Value lastCol = s.sub(s.add(cols.start, cols.len), s.constant(1));
  Value lastRow = s.sub(s.add(rows.start, rows.len), s.constant(1));
  Value visible;
  if (band.right)
    // The first row sees the tile's last column.
    visible = s.cmp(arith::CmpIPredicate::sle, lastCol,
                  s.add(s.add(rows.start, off), s.constant(*band.right)));
  if (band.left) {
    // The last row sees the tile's first column.
    Value c = s.cmp(arith::CmpIPredicate::sle,
                  s.sub(s.add(lastRow, off), s.constant(*band.left)), cols.start);
    visible = visible ? arith::AndIOp::create(s.b, visible, c).getResult() : c;
  }
  return visible;
}

Value MaskRule::tilesBefore(Value end, int64_t block) {
  // ceil(min(a, b) / n) = min(ceil(a / n), ceil(b / n)): each bound of a
  // range is divided on its own, so seq_k and seq_q (sizes, never negative)
  // need no clamp. This is the arithmetic the kernel had before the shared
  // layer, and ptxas's schedule of the d64 loop depends on it (signed
  // division plus a select measured 1-5 % slower at d64 on the H200,
  // 2026-12-01). No floordivsi/ceildivsi: the GPU pipeline would need
  // arith-expand for them, which also rewrites maxnumf into compare + select.
  if (auto min = end.getDefiningOp<arith::MinSIOp>())
    return s.minSI(tilesBefore(min.getLhs(), block), tilesBefore(min.getRhs(), block));
  Value nonNegative = (end == seqK || end == seqQ) ? end : s.maxSI(end, s.constant(0));
  return s.divUI(s.add(nonNegative, s.constant(block - 1)), s.constant(block));
}

std::pair<Value, Value> MaskRule::tileRange(std::pair<Value, Value> range,
                                            int64_t block) {
  auto [lo, hi] = range;
  Value tileHi = tilesBefore(hi, block);
  if (matchPattern(lo, m_Zero()))
    return {lo, tileHi}; // hi <= 0 already gives tileHi = 0
  // lo >= 0 (every range above starts at max(0, ...)): signed division floors.
  Value tileLo = s.divSI(lo, s.constant(block));
  Value empty = s.cmp(arith::CmpIPredicate::sle, hi, lo);
  return {tileLo, s.select(empty, tileLo, tileHi)};
}

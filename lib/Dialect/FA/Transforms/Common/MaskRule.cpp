//===- MaskRule.cpp - The causal/window rule as integer arithmetic --------===//
#include "fa/Dialect/FA/Transforms/MaskRule.h"

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

MaskRule::MaskRule(ImplicitLocOpBuilder &b, const AttentionConfig &config,
                   Value seqQ, Value seqK)
    : b(b), type(seqQ.getType()), band(MaskBand::get(config)), seqQ(seqQ),
      seqK(seqK) {
  if (band.left)
    band.left = clampSide(type, *band.left);
  if (band.right)
    band.right = clampSide(type, *band.right);
  off = band.bottomRight ? sub(seqK, seqQ) : constant(0);
}

Value MaskRule::constant(int64_t v) {
  if (type.isIndex())
    return arith::ConstantIndexOp::create(b, v);
  return arith::ConstantOp::create(b, b.getIntegerAttr(type, v));
}
Value MaskRule::add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
Value MaskRule::sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
Value MaskRule::minSI(Value x, Value y) {
  return arith::MinSIOp::create(b, x, y);
}
Value MaskRule::maxSI(Value x, Value y) {
  return arith::MaxSIOp::create(b, x, y);
}
Value MaskRule::cmp(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, p, x, y);
}

std::pair<Value, Value> MaskRule::rowColumns(Value i) {
  Value lo = constant(0), hi = seqK;
  Value diag = add(i, off);
  if (band.left)
    lo = maxSI(lo, sub(diag, constant(*band.left)));
  if (band.right)
    hi = minSI(hi, add(diag, constant(*band.right + 1)));
  return {lo, hi};
}

Value MaskRule::isMasked(Value i, Value j) {
  if (!hasMask())
    return nullptr;
  Value diag = add(i, off), masked;
  if (band.right)
    masked = cmp(arith::CmpIPredicate::sgt, j, add(diag, constant(*band.right)));
  if (band.left) {
    Value before =
        cmp(arith::CmpIPredicate::slt, j, sub(diag, constant(*band.left)));
    masked = masked ? arith::OrIOp::create(b, masked, before).getResult()
                    : before;
  }
  return masked;
}

std::pair<Value, Value> MaskRule::keyRange(Span rows) {
  Value lo = constant(0), hi = seqK;
  if (band.left)
    lo = maxSI(lo, sub(add(rows.start, off), constant(*band.left)));
  if (band.right) {
    // The last row's last visible column, plus one.
    Value last = add(rows.start, rows.len);
    hi = minSI(hi, add(add(last, off), constant(*band.right)));
  }
  return {lo, hi};
}

std::pair<Value, Value> MaskRule::queryRange(Span cols) {
  Value lo = constant(0), hi = seqQ;
  if (band.right)
    lo = maxSI(lo, sub(sub(cols.start, off), constant(*band.right)));
  if (band.left) {
    Value last = add(cols.start, cols.len);
    hi = minSI(hi, add(sub(last, off), constant(*band.left)));
  }
  return {lo, hi};
}

Value MaskRule::fullyVisible(Span rows, Span cols) {
  if (!hasMask())
    return nullptr;
  Value lastCol = sub(add(cols.start, cols.len), constant(1));
  Value lastRow = sub(add(rows.start, rows.len), constant(1));
  Value visible;
  if (band.right)
    // The first row sees the tile's last column.
    visible = cmp(arith::CmpIPredicate::sle, lastCol,
                  add(add(rows.start, off), constant(*band.right)));
  if (band.left) {
    // The last row sees the tile's first column.
    Value c = cmp(arith::CmpIPredicate::sle,
                  sub(add(lastRow, off), constant(*band.left)), cols.start);
    visible = visible ? arith::AndIOp::create(b, visible, c).getResult() : c;
  }
  return visible;
}

std::pair<Value, Value> MaskRule::tileRange(std::pair<Value, Value> range,
                                            int64_t block) {
  Value bs = constant(block);
  auto [lo, hi] = range;
  Value tileLo = arith::FloorDivSIOp::create(b, lo, bs);
  Value tileHi = arith::CeilDivSIOp::create(b, hi, bs);
  Value empty = cmp(arith::CmpIPredicate::sle, hi, lo);
  return {tileLo, arith::SelectOp::create(b, empty, tileLo, tileHi)};
}

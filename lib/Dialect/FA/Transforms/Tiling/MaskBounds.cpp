//===- MaskBounds.cpp - Which tiles a causal/window mask hides ------------===//
#include "MaskBounds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

MaskBounds::MaskBounds(TileBuilder &tb, const AttentionConfig &config,
                       Value seqQ, Value seqK)
    : tb(tb), seqQ(seqQ), seqK(seqK) {
  // The same visibility rule as AttentionConfig::emitIsMasked.
  // Window sizes beyond any sequence length mean "unbounded"; clamping them
  // keeps the index arithmetic below from overflowing.
  constexpr int64_t kHuge = int64_t(1) << 48;
  if (config.causal)
    right = 0;
  if (config.window) {
    left = std::min(config.window->first, kHuge);
    right = std::min(right.value_or(kHuge), config.window->second);
  }
  off = config.alignment == MaskAlignment::bottom_right ? tb.sub(seqK, seqQ)
                                                         : tb.index(0);
}

std::pair<Value, Value> MaskBounds::keyRange(Span rows) {
  Value lo = tb.index(0), hi = seqK;
  if (left)
    lo = tb.maxSI(lo, tb.sub(tb.add(rows.start, off), tb.index(*left)));
  if (right) {
    // Last row's last visible column, plus one.
    Value last = tb.add(rows.start, rows.len);
    hi = tb.minSI(hi, tb.add(tb.add(last, off), tb.index(*right)));
  }
  return {lo, hi};
}

std::pair<Value, Value> MaskBounds::queryRange(Span cols) {
  Value lo = tb.index(0), hi = seqQ;
  if (right)
    lo = tb.maxSI(lo, tb.sub(tb.sub(cols.start, off), tb.index(*right)));
  if (left) {
    Value last = tb.add(cols.start, cols.len);
    hi = tb.minSI(hi, tb.add(tb.sub(last, off), tb.index(*left)));
  }
  return {lo, hi};
}

Value MaskBounds::fullyVisible(Span rows, Span cols) {
  if (!hasMask())
    return nullptr;
  auto sle = [&](Value x, Value y) {
    return arith::CmpIOp::create(tb.b, arith::CmpIPredicate::sle, x, y)
        .getResult();
  };
  Value lastCol = tb.sub(tb.add(cols.start, cols.len), tb.index(1));
  Value lastRow = tb.sub(tb.add(rows.start, rows.len), tb.index(1));
  Value visible;
  if (right)
    // The first row sees the tile's last column.
    visible = sle(lastCol, tb.add(tb.add(rows.start, off), tb.index(*right)));
  if (left) {
    // The last row sees the tile's first column.
    Value c = sle(tb.sub(tb.add(lastRow, off), tb.index(*left)), cols.start);
    visible = visible ? arith::AndIOp::create(tb.b, visible, c).getResult() : c;
  }
  return visible;
}

std::pair<Value, Value> MaskBounds::tileRange(std::pair<Value, Value> range,
                                              int64_t block) {
  Value bs = tb.index(block);
  auto [lo, hi] = range;
  Value tileLo = arith::FloorDivSIOp::create(tb.b, lo, bs);
  Value tileHi = arith::CeilDivSIOp::create(tb.b, hi, bs);
  // An empty position range gives an empty tile range.
  Value empty =
      arith::CmpIOp::create(tb.b, arith::CmpIPredicate::sle, hi, lo);
  return {tileLo, arith::SelectOp::create(tb.b, empty, tileLo, tileHi)};
}

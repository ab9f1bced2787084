//===- ScoreTile.cpp - One tile of attention scores -----------------------===//
#include "ScoreTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

using utils::IteratorType;

static constexpr double kLn2 = 0.6931471805599453;

ScoreTile::ScoreTile(TileBuilder &tb, const AttentionConfig &config,
                     MaskBounds &bounds, bool hasBias)
    : tb(tb), config(config), log2Score(config, hasBias), bounds(bounds) {}

Value ScoreTile::body(Value qk, Value bias, Value i, Value j, bool masked) {
  ImplicitLocOpBuilder &b = tb.b;
  Value s = log2Score.emit(b, qk, bias ? tb.extendF32(bias) : Value());
  if (!masked)
    return s;
  Value hidden = bounds.isMasked(i, j);
  return arith::SelectOp::create(
      b, hidden, tb.f32(-std::numeric_limits<double>::infinity()), s);
}

Value ScoreTile::scores(Value qk, Value bias, Span rows, Span cols) {
  ImplicitLocOpBuilder &b = tb.b;
  auto emit = [&](bool masked) {
    SmallVector<Value> ins = {qk};
    if (bias)
      ins.push_back(bias);
    SmallVector<AffineMap> maps(ins.size() + 1, tb.map(2, {tb.d(0), tb.d(1)}));
    return tb.generic(ins, tb.emptyF32(tb.sizesOf(qk)), maps,
                      {IteratorType::parallel, IteratorType::parallel},
                      [&](ValueRange a) -> Value {
                        Value i, j;
                        if (masked) {
                          i = tb.add(linalg::IndexOp::create(b, 0), rows.start);
                          j = tb.add(linalg::IndexOp::create(b, 1), cols.start);
                        }
                        return body(a[0], bias ? a[1] : Value(), i, j, masked);
                      });
  };
  Value visible = bounds.fullyVisible(rows, cols);
  if (!visible)
    return emit(false);
  auto ifOp = scf::IfOp::create(b, TypeRange{qk.getType()}, visible,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, emit(false));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, emit(true));
  return ifOp.getResult(0);
}

Value ScoreTile::derivative(Value s2) {
  if (!config.softcap)
    return nullptr;
  Value s = arith::MulFOp::create(tb.b, s2, tb.f32(kLn2));
  return config.emitScoreDerivative(tb.b, s);
}

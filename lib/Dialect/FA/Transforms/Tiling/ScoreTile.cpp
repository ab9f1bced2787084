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
                     MaskBounds &bounds, ModTiles &modTiles, bool hasBias)
    : tb(tb), config(config), log2Score(config, hasBias), bounds(bounds),
      modTiles(modTiles) {}

Value ScoreTile::body(Value qk, Value bias, Value i, Value j, bool bandMask,
                      bool modMask, TileHead at) {
  ImplicitLocOpBuilder &b = tb.b;
  Value biasF32 = bias ? tb.extendF32(bias) : Value();
  std::optional<ScorePosition> pos;
  if (config.hasModifiers())
    pos = ScorePosition{at.batch, at.head, i, j};
  Value s = pos ? log2Score.emit(b, qk, biasF32, *pos)
                : log2Score.emit(b, qk, biasF32);
  Value hidden = bandMask ? bounds.isMasked(i, j) : Value();
  if (Value hides = modMask && pos ? config.emitMaskModHides(b, *pos) : Value())
    hidden = hidden ? arith::OrIOp::create(b, hidden, hides).getResult()
                    : hides;
  if (!hidden)
    return s;
  return arith::SelectOp::create(
      b, hidden, tb.f32(-std::numeric_limits<double>::infinity()), s);
}

Value ScoreTile::overTile(
    Value qk, Value bias, Span rows, Span cols, bool withIndices,
    function_ref<Value(Value, Value, Value, Value)> element) {
  ImplicitLocOpBuilder &b = tb.b;
  SmallVector<Value> ins = {qk};
  if (bias)
    ins.push_back(bias);
  SmallVector<AffineMap> maps(ins.size() + 1, tb.map(2, {tb.d(0), tb.d(1)}));
  return tb.generic(ins, tb.emptyF32(tb.sizesOf(qk)), maps,
                    {IteratorType::parallel, IteratorType::parallel},
                    [&](ValueRange a) -> Value {
                      Value i, j;
                      if (withIndices) {
                        i = tb.add(linalg::IndexOp::create(b, 0), rows.start);
                        j = tb.add(linalg::IndexOp::create(b, 1), cols.start);
                      }
                      return element(a[0], bias ? a[1] : Value(), i, j);
                    });
}

Value ScoreTile::scores(Value qk, Value bias, Span rows, Span cols,
                        TileHead at) {
  ImplicitLocOpBuilder &b = tb.b;
  // mask_mod is evaluated on every tile unless ModTiles tells the tiles it
  // leaves fully visible.
  Value modVisible =
      config.maskMod ? modTiles.visible(rows, cols, at) : Value();
  bool modOnEveryTile = config.maskMod && !modVisible;
  auto emit = [&](bool masked) {
    return overTile(qk, bias, rows, cols, masked || config.hasModifiers(),
                    [&](Value qkv, Value biasv, Value i, Value j) {
                      return body(qkv, biasv, i, j, masked && bounds.hasMask(),
                                  masked || modOnEveryTile, at);
                    });
  };
  Value visible = bounds.fullyVisible(rows, cols);
  if (modVisible)
    visible = visible
                  ? arith::AndIOp::create(b, visible, modVisible).getResult()
                  : modVisible;
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

Value ScoreTile::derivatives(Value qk, Value bias, Span rows, Span cols,
                             TileHead at) {
  return overTile(qk, bias, rows, cols, /*withIndices=*/true,
                  [&](Value qkv, Value biasv, Value i, Value j) {
                    Value biasF32 = biasv ? tb.extendF32(biasv) : Value();
                    return config
                        .emitScoreAndDerivative(tb.b, qkv, biasF32,
                                                {at.batch, at.head, i, j})
                        .second;
                  });
}

Value ScoreTile::derivative(Value s2) {
  if (!config.softcap || config.scoreMod)
    return nullptr;
  Value s = arith::MulFOp::create(tb.b, s2, tb.f32(kLn2));
  return config.emitScoreDerivative(tb.b, s);
}

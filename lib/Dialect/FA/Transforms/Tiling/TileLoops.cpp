//===- TileLoops.cpp - The loops of the tiled nests -----------------------===//
#include "TileLoops.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

SmallVector<Value>
mlir::fa::tiling::buildForall(TileBuilder &tb,
                              ArrayRef<OpFoldResult> upperBounds,
                              ValueRange outputs,
                              function_ref<SmallVector<TileWrite>(
                                  ValueRange, ValueRange)>
                                  body) {
  ImplicitLocOpBuilder &b = tb.b;
  auto forall =
      scf::ForallOp::create(b, upperBounds, outputs, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  SmallVector<TileWrite> writes =
      body(forall.getInductionVars(), forall.getRegionIterArgs());
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  for (TileWrite &w : writes) {
    SmallVector<OpFoldResult> strides(w.offsets.size(), b.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(
        b, w.source, forall.getRegionIterArgs()[w.output], w.offsets, w.sizes,
        strides);
  }
  return SmallVector<Value>(forall.getResults());
}

SmallVector<Value> mlir::fa::tiling::buildFor(
    TileBuilder &tb, Value lo, Value hi, ValueRange init,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  ImplicitLocOpBuilder &b = tb.b;
  auto loop = scf::ForOp::create(b, lo, hi, tb.index(1), init);
  OpBuilder::InsertionGuard guard(b);
  if (init.empty()) {
    // The builder already added the (empty) terminator.
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar(), loop.getRegionIterArgs());
    return {};
  }
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> next =
      body(loop.getInductionVar(), loop.getRegionIterArgs());
  scf::YieldOp::create(b, next);
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> mlir::fa::tiling::buildTileFor(
    TileBuilder &tb, std::pair<Value, Value> tiles, int64_t block, Value size,
    ValueRange init, function_ref<SmallVector<Value>(Span, ValueRange)> body) {
  return buildFor(tb, tiles.first, tiles.second, init,
                  [&](Value iv, ValueRange carried) {
                    return body(tb.block(iv, block, size), carried);
                  });
}

//===- OperandTiles.cpp - Tiles of an attention op's operands -------------===//
#include "OperandTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

Value OperandTiles::kvHead(Value h) {
  return arith::DivUIOp::create(tb.b, h, p.group);
}

bool OperandTiles::isPerBlock(Value descale) {
  return descale && cast<RankedTensorType>(descale.getType()).getRank() == 3;
}

Value OperandTiles::descale(Value descale, Value bi, Value hk) {
  if (!descale || isPerBlock(descale))
    return nullptr;
  auto type = cast<RankedTensorType>(descale.getType());
  if (type.getRank() == 0)
    return tensor::ExtractOp::create(tb.b, descale, ValueRange{});
  return tensor::ExtractOp::create(tb.b, descale, ValueRange{bi, hk});
}

Value OperandTiles::rowDescales(Value descale, Value bi, Value hk, Value head,
                                Span rows, int64_t block) {
  if (!isPerBlock(descale))
    return this->descale(descale, bi, hk);
  ImplicitLocOpBuilder &b = tb.b;
  Value init = tb.emptyF32({rows.len});
  return tb.generic({}, init, {tb.map(1, {tb.d(0)})},
                    {utils::IteratorType::parallel}, [&](ValueRange) -> Value {
                      Value row = tb.add(rows.start,
                                         linalg::IndexOp::create(b, 0));
                      Value blk = arith::DivUIOp::create(b, row,
                                                         tb.index(block));
                      return tensor::ExtractOp::create(
                          b, descale, ValueRange{bi, head, blk});
                    });
}

Value OperandTiles::rowsF32(Value t, Value bi, Value h, Span rows,
                            Value factor) {
  Value tile = tb.extractRows(t, p.ld, bi, h, rows);
  if (!factor && cast<RankedTensorType>(t.getType()).getElementType().isF32())
    return tile;
  return tb.toF32(tile, factor, /*transpose=*/false);
}

Value OperandTiles::rowsF32Transposed(Value t, Value bi, Value h, Span cols,
                                      Value factor) {
  return tb.toF32(tb.extractRows(t, p.ld, bi, h, cols), factor,
                  /*transpose=*/true);
}

bool OperandTiles::broadcastsBatch(Value bias) {
  return cast<RankedTensorType>(bias.getType()).getDimSize(0) == 1;
}
bool OperandTiles::broadcastsHeads(Value bias) {
  return cast<RankedTensorType>(bias.getType()).getDimSize(1) == 1;
}

Value OperandTiles::biasTile(Value bias, Value bi, Value h, Span rows,
                             Span cols) {
  if (!bias)
    return nullptr;
  ImplicitLocOpBuilder &b = tb.b;
  auto type = cast<RankedTensorType>(bias.getType());
  SmallVector<OpFoldResult> offsets = {
      broadcastsBatch(bias) ? OpFoldResult(b.getIndexAttr(0)) : bi,
      broadcastsHeads(bias) ? OpFoldResult(b.getIndexAttr(0)) : h,
      rows.start, cols.start};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     rows.len, cols.len};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  auto tileType = RankedTensorType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic}, type.getElementType());
  return tensor::ExtractSliceOp::create(b, tileType, bias, offsets, sizes,
                                        strides);
}

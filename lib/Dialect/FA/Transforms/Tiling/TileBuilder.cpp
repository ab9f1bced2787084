//===- TileBuilder.cpp - Tensor tiles of an attention problem -------------===//
#include "TileBuilder.h"
#include "fa/Dialect/FA/Transforms/Float8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::tiling;

using utils::IteratorType;

Problem Problem::get(ImplicitLocOpBuilder &b, Layout layout, Value q, Value k,
                     Value v) {
  Problem p;
  p.ld = getLayoutDims(layout);
  auto sizeOf = [&](Value t, unsigned dim) {
    return getValueOrCreateConstantIndexOp(
        b, b.getLoc(), tensor::getMixedSize(b, b.getLoc(), t, dim));
  };
  p.batch = sizeOf(q, p.ld.batch);
  p.headsQ = sizeOf(q, p.ld.heads);
  p.seqQ = sizeOf(q, p.ld.seq);
  p.headsKV = sizeOf(k, p.ld.heads);
  p.seqK = sizeOf(k, p.ld.seq);
  p.group = arith::DivUIOp::create(b, p.headsQ, p.headsKV);
  p.headDim = cast<RankedTensorType>(q.getType()).getDimSize(p.ld.dim);
  p.headDimV = cast<RankedTensorType>(v.getType()).getDimSize(p.ld.dim);
  return p;
}

Value TileBuilder::interleaved(Value i, Value count) {
  Value half = arith::DivUIOp::create(b, i, index(2));
  Value odd = cmp(arith::CmpIPredicate::ne,
                  arith::RemUIOp::create(b, i, index(2)), index(0));
  return select(odd, sub(sub(count, index(1)), half), half);
}

Span TileBuilder::block(Value i, int64_t blockSize, Value size) {
  Value start = mul(i, index(blockSize));
  return {start, minSI(index(blockSize), sub(size, start))};
}

void TileBuilder::rowsRegion(LayoutDims ld, Value bi, Value h, Span rows,
                             int64_t dim,
                             SmallVectorImpl<OpFoldResult> &offsets,
                             SmallVectorImpl<OpFoldResult> &sizes) {
  offsets.assign(4, b.getIndexAttr(0));
  sizes.assign(4, b.getIndexAttr(1));
  offsets[ld.batch] = bi;
  offsets[ld.heads] = h;
  offsets[ld.seq] = rows.start;
  sizes[ld.seq] = rows.len;
  sizes[ld.dim] = b.getIndexAttr(dim);
}

Value TileBuilder::extractRows(Value t, LayoutDims ld, Value bi, Value h,
                               Span rows) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t dim = type.getDimSize(ld.dim);
  SmallVector<OpFoldResult> offsets, sizes;
  rowsRegion(ld, bi, h, rows, dim, offsets, sizes);
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  auto tileType = RankedTensorType::get({ShapedType::kDynamic, dim},
                                        type.getElementType());
  return tensor::ExtractSliceOp::create(b, tileType, t, offsets, sizes,
                                        strides);
}

SmallVector<OpFoldResult> TileBuilder::folded(ArrayRef<OpFoldResult> ofrs) {
  SmallVector<OpFoldResult> result;
  for (OpFoldResult ofr : ofrs) {
    std::optional<int64_t> c = getConstantIntValue(ofr);
    result.push_back(c ? OpFoldResult(b.getIndexAttr(*c)) : ofr);
  }
  return result;
}

Value TileBuilder::extractRegion(Value t, ArrayRef<OpFoldResult> offsetsIn,
                                 ArrayRef<OpFoldResult> sizesIn) {
  auto type = cast<RankedTensorType>(t.getType());
  // Constant values become attributes so that the dropped unit dimensions
  // are visible to the verifier.
  SmallVector<OpFoldResult> offsets = folded(offsetsIn);
  SmallVector<OpFoldResult> sizes = folded(sizesIn);
  SmallVector<int64_t> shape;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    std::optional<int64_t> c = getConstantIntValue(size);
    if (c && *c == 1 && i + 1 != sizes.size())
      continue;
    shape.push_back(c.value_or(ShapedType::kDynamic));
  }
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, RankedTensorType::get(shape, type.getElementType()), t, offsets,
      sizes, strides);
}

Value TileBuilder::extractRowVector(Value t, Value bi, Value h, Span rows) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> offsets = {bi, h, rows.start};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     rows.len};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto tileType =
      RankedTensorType::get({ShapedType::kDynamic}, type.getElementType());
  return tensor::ExtractSliceOp::create(b, tileType, t, offsets, sizes,
                                        strides);
}

Value TileBuilder::emptyF32(ArrayRef<OpFoldResult> sizes) {
  return tensor::EmptyOp::create(b, folded(sizes), b.getF32Type());
}

Value TileBuilder::fillF32(ArrayRef<OpFoldResult> sizes, double v) {
  return fillF32(sizes, f32(v));
}

Value TileBuilder::fillF32(ArrayRef<OpFoldResult> sizes, Value v) {
  return linalg::FillOp::create(b, v, emptyF32(sizes)).getResult(0);
}

SmallVector<OpFoldResult> TileBuilder::sizesOf(Value t) {
  return tensor::getMixedSizes(b, b.getLoc(), t);
}

Value TileBuilder::extendF32(Value x) {
  if (x.getType().isF32())
    return x;
  if (isa<Float8E4M3FNType>(x.getType()))
    return decodeF8E4M3FN(b, x);
  return arith::ExtFOp::create(b, b.getF32Type(), x);
}

Value TileBuilder::generic(ValueRange ins, Value init,
                           ArrayRef<AffineMap> maps,
                           ArrayRef<IteratorType> iterators,
                           function_ref<Value(ValueRange)> body) {
  return linalg::GenericOp::create(
             b, init.getType(), ins, ValueRange{init}, maps, iterators, "",
             "",
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               OpBuilder::InsertionGuard guard(b);
               b.setInsertionPoint(nb.getInsertionBlock(),
                                   nb.getInsertionPoint());
               Location saved = b.getLoc();
               b.setLoc(loc);
               Value r = body(args);
               linalg::YieldOp::create(b, ValueRange{r});
               b.setLoc(saved);
             })
      .getResult(0);
}

Value TileBuilder::toF32(Value tile, Value factor, bool transpose) {
  SmallVector<OpFoldResult> sizes = sizesOf(tile);
  if (transpose)
    std::swap(sizes[0], sizes[1]);
  SmallVector<Value> ins = {tile};
  SmallVector<AffineMap> maps = {
      transpose ? map(2, {d(1), d(0)}) : map(2, {d(0), d(1)})};
  // A per-row factor follows the tile's rows, the result's columns when
  // transposed.
  bool perRow = factor && isa<RankedTensorType>(factor.getType());
  if (perRow) {
    ins.push_back(factor);
    maps.push_back(map(2, {transpose ? d(1) : d(0)}));
  }
  maps.push_back(map(2, {d(0), d(1)}));
  return generic(ins, emptyF32(sizes), maps,
                 {IteratorType::parallel, IteratorType::parallel},
                 [&](ValueRange a) -> Value {
                   Value x = extendF32(a[0]);
                   if (factor)
                     x = arith::MulFOp::create(b, x, perRow ? a[1] : factor);
                   return x;
                 });
}

Value TileBuilder::matmul(Value a, Value bMat, Value acc, bool transposeA) {
  // Aᵀ is copied out first: fa-cpu-tile-blocks vectorizes only contractions
  // whose maps run in loop order, and the copy reads A once where the
  // contraction reads it once per column block of B.
  if (transposeA)
    a = toF32(a, /*factor=*/nullptr, /*transpose=*/true);
  // Loops (m, k, n): n innermost runs along rows of B and of the result.
  return generic({a, bMat}, acc,
                 {map(3, {d(0), d(1)}), map(3, {d(1), d(2)}),
                  map(3, {d(0), d(2)})},
                 {IteratorType::parallel, IteratorType::reduction,
                  IteratorType::parallel},
                 [&](ValueRange x) -> Value {
                   // contract: the multiply-add may become one FMA (one
                   // rounding instead of two).
                   auto contract = arith::FastMathFlagsAttr::get(
                       ctx(), arith::FastMathFlags::contract);
                   Value prod = arith::MulFOp::create(
                       b, extendF32(x[0]), extendF32(x[1]), contract);
                   return arith::AddFOp::create(b, x[2], prod, contract);
                 });
}

Value TileBuilder::map2d(ValueRange ins, Value shapeLike,
                         function_ref<Value(ValueRange)> body) {
  SmallVector<AffineMap> maps;
  for (Value in : ins)
    maps.push_back(cast<RankedTensorType>(in.getType()).getRank() == 2
                       ? map(2, {d(0), d(1)})
                       : map(2, {d(0)}));
  maps.push_back(map(2, {d(0), d(1)}));
  return generic(ins, emptyF32(sizesOf(shapeLike)), maps,
                 {IteratorType::parallel, IteratorType::parallel},
                 [&](ValueRange a) { return body(a.drop_back()); });
}

Value TileBuilder::update(Value dest, ValueRange ins,
                          function_ref<Value(ValueRange)> body) {
  unsigned rank = cast<RankedTensorType>(dest.getType()).getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx());
  SmallVector<AffineMap> maps;
  for (Value in : ins)
    maps.push_back(cast<RankedTensorType>(in.getType()).getRank() == rank
                       ? id
                       : map(rank, {d(0)}));
  maps.push_back(id);
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  return generic(ins, dest, maps, iterators, body);
}

Value TileBuilder::map1d(ValueRange ins, Value shapeLike,
                         function_ref<Value(ValueRange)> body) {
  SmallVector<AffineMap> maps(ins.size() + 1, map(1, {d(0)}));
  return generic(ins, emptyF32(sizesOf(shapeLike)), maps,
                 {IteratorType::parallel},
                 [&](ValueRange a) { return body(a.drop_back()); });
}

Value TileBuilder::reduceRows(Value tile, double init,
                              function_ref<Value(Value, Value)> combine) {
  Value acc = fillF32({sizesOf(tile)[0]}, init);
  return generic({tile}, acc, {map(2, {d(0), d(1)}), map(2, {d(0)})},
                 {IteratorType::parallel, IteratorType::reduction},
                 [&](ValueRange a) { return combine(a[1], a[0]); });
}

Value TileBuilder::rowDot(Value a, Value bMat, Value acc) {
  if (!acc)
    acc = fillF32({sizesOf(a)[0]}, 0.0);
  return generic({a, bMat}, acc,
                 {map(2, {d(0), d(1)}), map(2, {d(0), d(1)}), map(2, {d(0)})},
                 {IteratorType::parallel, IteratorType::reduction},
                 [&](ValueRange x) -> Value {
                   Value prod = arith::MulFOp::create(b, extendF32(x[0]),
                                                      extendF32(x[1]));
                   return arith::AddFOp::create(b, x[2], prod);
                 });
}

Value TileBuilder::castTile(Value tile, Type type) {
  auto tt = cast<RankedTensorType>(tile.getType());
  if (tt.getElementType() == type)
    return tile;
  unsigned rank = tt.getRank();
  Value init = tensor::EmptyOp::create(b, sizesOf(tile), type);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx());
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  return generic({tile}, init, {id, id}, iterators, [&](ValueRange a) -> Value {
    if (type.getIntOrFloatBitWidth() <
        a[0].getType().getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, type, a[0]);
    return arith::ExtFOp::create(b, type, a[0]);
  });
}

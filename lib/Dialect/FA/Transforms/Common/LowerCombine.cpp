//===- LowerCombine.cpp - fa.combine as linalg on tensors -----------------===//
//
//   m   = max_c L_c                 (0 in place of -inf: exp stays finite)
//   w_c = exp(L_c - m)              (0 for a split that saw no key)
//   s   = sum_c w_c;  acc = sum_c w_c O_c
//   O   = s > 0 ? acc / s : 0;  L = s > 0 ? m + log s : -inf
//
// A split's weight is selected, not multiplied, into the sum, so that a
// split with LSE -inf adds 0 whatever its partial output holds.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/Transforms/LowerCombine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

class CombineLowering {
public:
  CombineLowering(CombineOp op, ImplicitLocOpBuilder &b) : op(op), b(b) {
    outRank = cast<RankedTensorType>(op.getOutput().getType()).getRank();
  }

  SmallVector<Value> build();

private:
  Value f32(double v) { return arith::ConstantOp::create(b, b.getF32FloatAttr(v)); }
  /// A tensor of `rank` dims sized like dims 1.. of `partial`, filled with v.
  Value filled(Value partial, unsigned rank, double v, Type element);
  AffineMap dims(unsigned numDims, ArrayRef<unsigned> which);
  SmallVector<utils::IteratorType> iterators(unsigned numDims, bool reduce);
  /// One linalg.generic into `init`; dim 0 is a reduction when
  /// `reduceSplits`.
  Value generic(ValueRange ins, Value init, ArrayRef<AffineMap> maps,
                bool reduceSplits, function_ref<Value(ValueRange)> body);
  Value zeroIfNone(Value max);
  /// The weight exp(L_c - m) of a split, 0 when L_c is -inf.
  Value weight(Value lse, Value max);

  CombineOp op;
  ImplicitLocOpBuilder &b;
  int64_t outRank;
};

Value CombineLowering::filled(Value partial, unsigned rank, double v,
                              Type element) {
  SmallVector<OpFoldResult> sizes;
  for (unsigned d = 1; d <= rank; ++d)
    sizes.push_back(tensor::getMixedSize(b, b.getLoc(), partial, d));
  Value empty = tensor::EmptyOp::create(b, sizes, element);
  Value cst = arith::ConstantOp::create(b, FloatAttr::get(element, v));
  return linalg::FillOp::create(b, cst, empty).getResult(0);
}

AffineMap CombineLowering::dims(unsigned numDims, ArrayRef<unsigned> which) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : which)
    exprs.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(numDims, 0, exprs, b.getContext());
}

SmallVector<utils::IteratorType> CombineLowering::iterators(unsigned numDims,
                                                            bool reduce) {
  SmallVector<utils::IteratorType> its(numDims, utils::IteratorType::parallel);
  if (reduce)
    its[0] = utils::IteratorType::reduction;
  return its;
}

Value CombineLowering::zeroIfNone(Value max) {
  Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, max, f32(-kInf));
  return arith::SelectOp::create(b, none, f32(0), max);
}

Value CombineLowering::weight(Value lse, Value max) {
  Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, lse, f32(-kInf));
  Value w = math::ExpOp::create(b, arith::SubFOp::create(b, lse, zeroIfNone(max)));
  return arith::SelectOp::create(b, none, f32(0), w);
}

Value CombineLowering::generic(ValueRange ins, Value init,
                               ArrayRef<AffineMap> maps, bool reduceSplits,
                               function_ref<Value(ValueRange)> body) {
  unsigned numDims = maps.front().getNumDims();
  return linalg::GenericOp::create(
             b, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
             iterators(numDims, reduceSplits),
             [&](OpBuilder &, Location, ValueRange a) {
               linalg::YieldOp::create(b, body(a));
             })
      .getResult(0);
}

SmallVector<Value> CombineLowering::build() {
  Value po = op.getPartialOutput(), pl = op.getPartialLse();
  Type f32Type = b.getF32Type();
  unsigned rowRank = outRank - 1; // the merged LSE's rank
  // Iteration spaces: (split, rows...) for the LSE sums, (split, rows...,
  // dim) for the output sum; dim 0 is the split.
  unsigned lseDims = rowRank + 1, outDims = outRank + 1;
  auto range = [](unsigned lo, unsigned hi) {
    return llvm::to_vector(llvm::seq<unsigned>(lo, hi));
  };
  AffineMap splitRows = dims(lseDims, range(0, lseDims));
  AffineMap rows = dims(lseDims, range(1, lseDims));
  SmallVector<unsigned> splitRowsOfOut = {0};
  splitRowsOfOut.append(range(1, outDims - 1));

  Value max = generic({pl}, filled(pl, rowRank, -kInf, f32Type),
                      {splitRows, rows}, true, [&](ValueRange a) -> Value {
                        return arith::MaximumFOp::create(b, a[0], a[1]);
                      });
  Value sum = generic({pl, max}, filled(pl, rowRank, 0.0, f32Type),
                      {splitRows, rows, rows}, true, [&](ValueRange a) -> Value {
                        return arith::AddFOp::create(b, a[2], weight(a[0], a[1]));
                      });
  Value acc = generic(
      {po, pl, max}, filled(po, outRank, 0.0, f32Type),
      {dims(outDims, range(0, outDims)), dims(outDims, splitRowsOfOut),
       dims(outDims, range(1, outDims - 1)), dims(outDims, range(1, outDims))},
      true, [&](ValueRange a) -> Value {
        Value w = weight(a[1], a[2]);
        Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, w, f32(0));
        Value term = arith::SelectOp::create(
            b, none, f32(0), arith::MulFOp::create(b, w, a[0]));
        return arith::AddFOp::create(b, a[3], term);
      });

  Type outElt = cast<RankedTensorType>(op.getOutput().getType()).getElementType();
  AffineMap outAll = dims(outRank, range(0, outRank));
  Value out = generic(
      {acc, sum}, filled(po, outRank, 0.0, outElt),
      {outAll, dims(outRank, range(0, outRank - 1)), outAll}, false,
      [&](ValueRange a) -> Value {
        Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[1], f32(0));
        Value x = arith::SelectOp::create(b, empty, f32(0),
                                          arith::DivFOp::create(b, a[0], a[1]));
        return outElt.isF32() ? x : arith::TruncFOp::create(b, outElt, x).getResult();
      });
  AffineMap lseAll = dims(rowRank, range(0, rowRank));
  Value lse = generic(
      {max, sum}, filled(pl, rowRank, 0.0, f32Type), {lseAll, lseAll, lseAll},
      false, [&](ValueRange a) -> Value {
        Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, a[1], f32(0));
        Value v = arith::AddFOp::create(b, zeroIfNone(a[0]), math::LogOp::create(b, a[1]));
        return arith::SelectOp::create(b, empty, f32(-kInf), v);
      });

  SmallVector<Value> results = {out, lse};
  for (auto [r, expected] : llvm::zip(results, op.getResults()))
    if (r.getType() != expected.getType())
      r = tensor::CastOp::create(b, expected.getType(), r);
  return results;
}

} // namespace

void mlir::fa::lowerCombine(CombineOp op, RewriterBase &rewriter) {
  rewriter.setInsertionPoint(op);
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  CombineLowering lowering(op, b);
  rewriter.replaceOp(op, lowering.build());
}

void mlir::fa::lowerCombines(Operation *root, RewriterBase &rewriter) {
  SmallVector<CombineOp> ops;
  root->walk([&](CombineOp op) { ops.push_back(op); });
  for (CombineOp op : ops)
    lowerCombine(op, rewriter);
}

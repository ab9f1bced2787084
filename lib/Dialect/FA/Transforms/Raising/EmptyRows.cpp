//===- EmptyRows.cpp - Rows a finite fill hides entirely ------------------===//
//
// transformers' eager attention adds where(mask, 0, finfo.min) to the
// scores. Where a row keeps a visible key, exp(finfo.min - rowmax) is 0 and
// the fill acts as -inf. Where padding and the causal (or window) part hide
// every key of a row, every score of the row becomes finfo.min (the fill
// absorbs the score), so the original's softmax is uniform and the row is
// the mean of V over all keys; fa.attention gives 0 there (or, with the
// finite padding fill as its bias, a mean over the causally visible keys).
// The raise keeps fa.attention and replaces exactly those rows: which rows
// are empty follows from the op's own mask (causal / window / alignment and
// the 0 / fill bias), a boolean reduction over the keys; the mean of V is a
// sum over the keys. Nothing [.., Sq, Sk] is stored.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

namespace {

/// Sizes of an attention in its layout.
struct Dims {
  int64_t batch, headsQ, headsKV, seqQ, seqK, dimV;
};

/// A tensor of `shape` filled with `zero` (the accumulator of a reduction).
Value zeros(ImplicitLocOpBuilder &b, ArrayRef<int64_t> shape,
            TypedAttr zero) {
  Value empty = tensor::EmptyOp::create(b, shape, zero.getType());
  return linalg::FillOp::create(
             b, ValueRange{arith::ConstantOp::create(b, zero)},
             ValueRange{empty})
      .getResult(0);
}

/// Three parallel loops and a reduction over the fourth (the keys).
SmallVector<utils::IteratorType> reduceLast() {
  SmallVector<utils::IteratorType> its(3, utils::IteratorType::parallel);
  its.push_back(utils::IteratorType::reduction);
  return its;
}

/// Whether fa.attention's causal / window attributes keep (i, j).
Value positionVisible(OpBuilder &b, Location loc, const MaskConfig &m,
                      const Dims &d, Value i, Value j) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, p, x, y);
  };
  using P = arith::CmpIPredicate;
  Value at = arith::AddIOp::create(
      b, loc, i, constant(m.bottomRight ? d.seqK - d.seqQ : 0));
  Value keep = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto hideAbove = [&](int64_t right) {
    Value hi = arith::AddIOp::create(b, loc, at, constant(right));
    keep = arith::AndIOp::create(b, loc, keep, cmp(P::sle, j, hi));
  };
  if (m.causal)
    hideAbove(0);
  if (m.window) {
    Value lo = arith::SubIOp::create(b, loc, at, constant(m.window->first));
    keep = arith::AndIOp::create(b, loc, keep, cmp(P::sge, j, lo));
    hideAbove(m.window->second);
  }
  return keep;
}

/// [B, Hq, Sq] i1: whether row (b, h, i) keeps a key, a reduction over the
/// keys of the positional mask and the bias (visible where it is 0).
Value rowsWithKey(ImplicitLocOpBuilder &b, const MaskConfig &m,
                  const Dims &d, Value bias) {
  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned k) { return getAffineDimExpr(k, ctx); };
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  if (bias) {
    auto bt = cast<RankedTensorType>(bias.getType());
    maps.push_back(AffineMap::get(
        4, 0,
        {bt.getDimSize(0) == 1 ? zero : dim(0),
         bt.getDimSize(1) == 1 ? zero : dim(1), dim(2), dim(3)},
        ctx));
    ins.push_back(bias);
  }
  maps.push_back(AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx));
  Value init = zeros(b, {d.batch, d.headsQ, d.seqQ}, b.getBoolAttr(false));
  return linalg::GenericOp::create(
             b, init.getType(), ins, ValueRange{init}, maps, reduceLast(),
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               Value i = linalg::IndexOp::create(nb, loc, 2);
               Value j = linalg::IndexOp::create(nb, loc, 3);
               Value keep = positionVisible(nb, loc, m, d, i, j);
               if (bias) {
                 Value z = arith::ConstantOp::create(
                     nb, loc, nb.getFloatAttr(args[0].getType(), 0.0));
                 keep = arith::AndIOp::create(
                     nb, loc, keep,
                     arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OEQ,
                                           args[0], z));
               }
               linalg::YieldOp::create(
                   nb, loc, Value(arith::OrIOp::create(nb, loc, args.back(), keep)));
             })
      .getResult(0);
}

/// [B, Hkv, Dv] f32: V summed over the keys.
Value sumOverKeys(ImplicitLocOpBuilder &b, Layout layout, const Dims &d,
                  Value v) {
  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned k) { return getAffineDimExpr(k, ctx); };
  // Loops (b, h, d, j).
  AffineMap vMap =
      layout == Layout::bhsd
          ? AffineMap::get(4, 0, {dim(0), dim(1), dim(3), dim(2)}, ctx)
          : AffineMap::get(4, 0, {dim(0), dim(3), dim(1), dim(2)}, ctx);
  AffineMap outMap = AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx);
  Value init = zeros(b, {d.batch, d.headsKV, d.dimV}, b.getF32FloatAttr(0));
  return linalg::GenericOp::create(
             b, init.getType(), ValueRange{v}, ValueRange{init},
             ArrayRef<AffineMap>{vMap, outMap}, reduceLast(),
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               Value x = args[0];
               if (!x.getType().isF32())
                 x = arith::ExtFOp::create(nb, loc, nb.getF32Type(), x);
               linalg::YieldOp::create(
                   nb, loc, Value(arith::AddFOp::create(nb, loc, args[1], x)));
             })
      .getResult(0);
}

} // namespace

FailureOr<Value> mlir::fa::raising::averageEmptyRows(
    ImplicitLocOpBuilder &b, const MaskConfig &m, Layout layout, Value out,
    Value v, Value bias, std::string &why) {
  auto ot = cast<RankedTensorType>(out.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  if (!ot.hasStaticShape() || !vt.hasStaticShape()) {
    why = "rows a finite mask fill hides entirely, with dynamic shapes";
    return failure();
  }
  bool bhsd = layout == Layout::bhsd;
  Dims d{ot.getDimSize(0),
         ot.getDimSize(bhsd ? 1 : 2),
         vt.getDimSize(bhsd ? 1 : 2),
         ot.getDimSize(bhsd ? 2 : 1),
         vt.getDimSize(bhsd ? 2 : 1),
         ot.getDimSize(3)};
  Value hasKey = rowsWithKey(b, m, d, bias);
  Value sums = sumOverKeys(b, layout, d, v);

  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned k) { return getAffineDimExpr(k, ctx); };
  // Loops over the output: (b, h, i, e) in bhsd, (b, i, h, e) in bshd.
  AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap rowMap =
      AffineMap::get(4, 0,
                     bhsd ? ArrayRef<AffineExpr>{dim(0), dim(1), dim(2)}
                          : ArrayRef<AffineExpr>{dim(0), dim(2), dim(1)},
                     ctx);
  int64_t group = d.headsQ / d.headsKV;
  Type elt = ot.getElementType();
  Value init = tensor::EmptyOp::create(b, ot.getShape(), elt);
  SmallVector<utils::IteratorType> its(4, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, ot, ValueRange{out, hasKey}, ValueRange{init},
             ArrayRef<AffineMap>{id, rowMap, id}, its,
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               // Query head h reads kv head h / group.
               Value bi = linalg::IndexOp::create(nb, loc, 0);
               Value h = linalg::IndexOp::create(nb, loc, bhsd ? 1 : 2);
               Value e = linalg::IndexOp::create(nb, loc, 3);
               Value kvHead = arith::DivUIOp::create(
                   nb, loc, h, arith::ConstantIndexOp::create(nb, loc, group));
               Value sum = tensor::ExtractOp::create(
                   nb, loc, sums, ValueRange{bi, kvHead, e});
               Value mean = arith::DivFOp::create(
                   nb, loc, sum,
                   arith::ConstantOp::create(
                       nb, loc,
                       nb.getF32FloatAttr(static_cast<float>(d.seqK))));
               if (!elt.isF32())
                 mean = arith::TruncFOp::create(nb, loc, elt, mean);
               linalg::YieldOp::create(
                   nb, loc,
                   Value(arith::SelectOp::create(nb, loc, args[1], args[0], mean)));
             })
      .getResult(0);
}

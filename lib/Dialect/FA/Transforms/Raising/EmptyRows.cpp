//===- EmptyRows.cpp - Rows a finite fill hides entirely ------------------===//
//
// transformers' eager attention adds where(mask, 0, finfo.min) to the
// scores. Where a row keeps a visible key, exp(finfo.min - rowmax) is 0 and
// the fill acts as -inf. Where padding and the causal (or window) part hide
// every key of a row, every score of the row becomes finfo.min (the fill
// absorbs the score), so the original's softmax is uniform and the row is
// the mean of V over all keys; fa.attention gives 0 there.
// The raise keeps fa.attention, with the padding in its mask_mod, and
// replaces exactly those rows: which rows are empty follows from the op's
// own mask (causal / window / alignment and mask_mod, whose body is cloned
// into the reduction), a boolean reduction over the keys; the mean of V is
// a sum over the keys. Nothing [.., Sq, Sk] is stored.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

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

/// mask_mod's visibility of the key at loops (b, h, i, j): its body
/// cloned with the loop indices for its arguments and the op's captures
/// for theirs; true without the region.
Value maskModVisible(OpBuilder &b, Location loc, AttentionOp attn,
                     ValueRange indices) {
  Region &r = attn.getMaskMod();
  if (r.empty())
    return arith::ConstantIntOp::create(b, loc, 1, 1);
  Block &body = r.front();
  IRMapping map;
  for (auto [arg, index] :
       llvm::zip(body.getArguments().take_front(4), indices))
    map.map(arg, index);
  for (auto [arg, capture] :
       llvm::zip(body.getArguments().drop_front(4), attn.getCaptures()))
    map.map(arg, capture);
  for (Operation &op : body.without_terminator())
    b.clone(op, map);
  return map.lookup(body.getTerminator()->getOperand(0));
}

/// [B, Hq, Sq] i1: whether row (b, h, i) keeps a key, a reduction over the
/// keys of the op's positional mask and mask_mod.
Value rowsWithKey(ImplicitLocOpBuilder &b, const MaskConfig &m, const Dims &d,
                  AttentionOp attn) {
  MLIRContext *ctx = b.getContext();
  auto dim = [&](unsigned k) { return getAffineDimExpr(k, ctx); };
  // The keys' loop is read from an unused [Sk] tensor: linalg wants every
  // loop in some map.
  Value keys = tensor::EmptyOp::create(b, {d.seqK}, b.getI1Type());
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {dim(3)}, ctx),
      AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx)};
  Value init = zeros(b, {d.batch, d.headsQ, d.seqQ}, b.getBoolAttr(false));
  return linalg::GenericOp::create(
             b, init.getType(), ValueRange{keys}, ValueRange{init}, maps,
             reduceLast(),
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               SmallVector<Value> idx;
               for (unsigned k = 0; k < 4; ++k)
                 idx.push_back(linalg::IndexOp::create(nb, loc, k));
               Value keep = arith::AndIOp::create(
                   nb, loc, positionVisible(nb, loc, m, d, idx[2], idx[3]),
                   maskModVisible(nb, loc, attn, idx));
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

FailureOr<Value> mlir::fa::raising::averageEmptyRows(ImplicitLocOpBuilder &b,
                                                     const MaskConfig &m,
                                                     Layout layout,
                                                     AttentionOp attn, Value v,
                                                     std::string &why) {
  Value out = attn.getOutput();
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
  Value hasKey = rowsWithKey(b, m, d, attn);
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

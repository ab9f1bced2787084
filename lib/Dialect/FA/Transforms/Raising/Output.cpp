//===- Output.cpp - What P·V's result becomes -----------------------------===//
//
// The replaced value is not P·V's result but the end of the single-use chain
// of view ops after it (expand back to [B, H, S, D], transpose to
// [B, S, H, D], merge heads), so that the frontend's layout change folds
// away. A truncation to bf16 / f16 on that chain is walked too: whether it
// becomes part of the raised op is the precision rule's decision (Match.cpp).
// When P is exp(x - max) unnormalized, the division by the row sum after
// P·V is part of the attention as well.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace mlir::fa::raising;

/// Whether `user` only moves `v` (a view op reading it as its first operand).
static bool isOutputView(Operation *user, Value v) {
  if (!isViewOp(user) || user->getNumResults() != 1 || user->getOperand(0) != v)
    return false;
  auto from = cast<RankedTensorType>(v.getType());
  auto to = dyn_cast<RankedTensorType>(user->getResult(0).getType());
  bool sameCount = to && to.hasStaticShape() && from.hasStaticShape() &&
                   to.getNumElements() == from.getNumElements();
  // Without static counts, only ops that cannot broadcast.
  bool reshapeOrTranspose =
      isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, linalg::TransposeOp>(
          user);
  return to && (sameCount || reshapeOrTranspose);
}

/// Whether `user` rounds `v` elementwise to bf16 or f16, nothing else.
static bool isTruncation(Operation *user, Value v) {
  if (user->getNumResults() != 1)
    return false;
  Type to = getElementTypeOrSelf(user->getResult(0).getType());
  if (!to.isBF16() && !to.isF16())
    return false;
  if (user->getResult(0).getType() !=
      cast<RankedTensorType>(v.getType()).clone(to))
    return false;
  if (isa<arith::TruncFOp, tosa::CastOp>(user))
    return user->getOperand(0) == v;
  auto g = dyn_cast<linalg::LinalgOp>(user);
  if (!g || g.getNumDpsInputs() != 1 || g.getDpsInputs()[0] != v ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  Block *body = g.getBlock();
  if (!body || body->getOperations().size() != 2)
    return false;
  auto tr = dyn_cast<arith::TruncFOp>(&body->front());
  return tr && tr.getIn() == body->getArgument(0) &&
         body->getTerminator()->getOperand(0) == tr.getResult();
}

/// The end of the single-use view chain starting at `v`.
static Value followViews(Value v) {
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    if (!isOutputView(user, v))
      break;
    v = user->getResult(0);
  }
  return v;
}

OutputChain mlir::fa::raising::findOutputChain(Operation *pv,
                                               AtomTable &atoms) {
  Value result = pv->getResult(0);
  Value beforeTrunc = followViews(result);
  Value final = beforeTrunc;
  Operation *trunc = nullptr;
  if (beforeTrunc.hasOneUse() &&
      isTruncation(*beforeTrunc.getUsers().begin(), beforeTrunc)) {
    trunc = *beforeTrunc.getUsers().begin();
    final = followViews(trunc->getResult(0));
  }
  OutputChain out;
  out.final = result;
  out.finalAccess =
      atoms.freshAccess(cast<RankedTensorType>(result.getType()).getShape());
  out.pvAccess = out.finalAccess;
  if (final == result)
    return out;
  Access finalAccess =
      atoms.freshAccess(cast<RankedTensorType>(final.getType()).getShape());
  auto [src, srcAccess] = resolveViews(final, finalAccess, atoms, nullptr);
  Access truncAccess;
  if (trunc) {
    // The truncation is elementwise with identity maps.
    if (src != trunc->getResult(0))
      return out;
    truncAccess = srcAccess;
    std::tie(src, srcAccess) =
        resolveViews(beforeTrunc, truncAccess, atoms, nullptr);
  }
  if (src != result)
    return out;
  out.final = final;
  out.finalAccess = finalAccess;
  out.pvAccess = srcAccess;
  if (trunc) {
    out.truncation = trunc;
    out.beforeTrunc = beforeTrunc;
    out.beforeTruncAccess = truncAccess;
  }
  return out;
}

FailureOr<Operation *> mlir::fa::raising::matchDeferredNormalization(
    Plan &plan, const SoftmaxMatch &sm, int valueDimAtom, ExprBuilder &eb,
    std::string &why) {
  AtomTable &atoms = eb.atoms;
  Value o = plan.pv->getResult(0);
  why = "an unnormalized softmax whose P·V is not divided by the row sum";
  if (plan.finalValue != o || !o.hasOneUse())
    return failure();
  Operation *d = *o.getUsers().begin();
  if (d->getNumResults() != 1 || d->getResult(0).getType() != o.getType())
    return failure();
  ExprP t = eb.deref(eb.leaf(d->getResult(0), plan.outAccess));
  // select(l == 0, 0, o / l): fully masked rows give 0, as in fa.attention.
  ExprP guard;
  if (t->kind == Expr::Select) {
    ExprP cond = eb.deref(t->ops[0]);
    ExprP zero = eb.deref(t->ops[1]);
    ExprP c0 = cond->kind == Expr::CmpF ? eb.deref(cond->ops[1]) : nullptr;
    if (c0 && cond->pred == (int64_t)arith::CmpFPredicate::OEQ &&
        c0->isConst() && c0->fval == 0.0 && zero->isConst() &&
        zero->fval == 0.0) {
      guard = cond->ops[0];
      t = eb.deref(t->ops[2]);
    }
  }
  ExprP quotient, rowSum;
  splitQuotient(t, eb, quotient, rowSum);
  if (!quotient || quotient->kind != Expr::Leaf || quotient->value != o ||
      atoms.leaves(quotient->access) != atoms.leaves(plan.outAccess))
    return failure();
  ExprP l = eb.derefAll(rowSum);
  if (l->kind != Expr::Leaf)
    return failure();
  if (guard && !exprEqual(guard, rowSum, atoms, eb))
    return failure();
  AtomList outLeaves = atoms.flatLeaves(plan.outAccess);
  AtomList rowLeaves = atoms.flatLeaves(l->access);
  if (outLeaves.size() != rowLeaves.size() + 1 ||
      llvm::is_contained(rowLeaves, valueDimAtom) ||
      !llvm::all_of(rowLeaves,
                    [&](int a) { return llvm::is_contained(outLeaves, a); }))
    return failure();
  std::string whySum;
  FailureOr<Reduction> sum =
      matchReduction(l->value, l->access, ReductionKind::Sum, eb, whySum);
  if (failed(sum))
    return failure();
  ExprP summed = sum->input;
  while (summed->kind == Expr::ExtF || summed->kind == Expr::TruncF ||
         summed->kind == Expr::Leaf) {
    ExprP next = summed->kind == Expr::Leaf ? eb.deref(summed)
                                            : eb.deref(summed->ops[0]);
    if (next == summed)
      break;
    summed = next;
  }
  if (!exprEqual(summed, sm.deferredExp, atoms, eb,
                 {{sum->reducedAtom, sm.keyAtom}}))
    return failure();
  plan.finalValue = d->getResult(0);
  why.clear();
  return d;
}

//===- Softmax.cpp - Recognizing softmax in its spellings -----------------===//
//
// P = softmax(X) along the key dimension, as `linalg.softmax` or as the
// chain m = rowmax(X); E = exp(X - m); l = rowsum(E); P = E / l (or E * 1/l,
// or E * reciprocal(l)), with extf / truncf anywhere around it. The row max
// and the row sum must reduce exactly the X and the E of this chain, over
// the one atom that P has and the rows do not: that atom is the key.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::fa::raising;

static ExprP stripCasts(ExprP e, ExprBuilder &eb) {
  e = eb.deref(e);
  while (e->kind == Expr::ExtF || e->kind == Expr::TruncF)
    e = eb.deref(e->ops[0]);
  return e;
}

/// The single atom of `full` missing from `row`, or -1.
static int missingAtom(const Access &full, const Access &row,
                       const AtomTable &atoms) {
  AtomList f = atoms.flatLeaves(full), r = atoms.flatLeaves(row);
  int found = -1;
  for (int a : f) {
    if (llvm::is_contained(r, a))
      continue;
    if (found != -1)
      return -1;
    found = a;
  }
  for (int a : r)
    if (!llvm::is_contained(f, a))
      return -1;
  return found;
}

FailureOr<SoftmaxMatch> mlir::fa::raising::matchSoftmax(Value p,
                                                        const Access &access,
                                                        ExprBuilder &eb,
                                                        std::string &why,
                                                        bool *nearMiss) {
  SoftmaxMatch m;
  if (auto softmax = p.getDefiningOp<linalg::SoftmaxOp>()) {
    AtomList key = eb.atoms.leaves(access[softmax.getDimension()]);
    if (key.size() != 1) {
      why = "linalg.softmax over a unit or collapsed dimension";
      return failure();
    }
    if (eb.record)
      eb.record->insert(softmax);
    m.scores = eb.leaf(softmax.getInput(), access);
    m.keyAtom = key[0];
    m.anchor = softmax;
    return m;
  }
  ExprP e = stripCasts(eb.leaf(p, access), eb);
  m.anchor = p.getDefiningOp();
  ExprP num, den;
  if (e->kind == Expr::Div) {
    num = e->ops[0];
    den = e->ops[1];
  } else if (e->kind == Expr::Mul) {
    for (unsigned i = 0; i < 2 && !den; ++i) {
      ExprP r = stripCasts(e->ops[i], eb);
      if (r->kind == Expr::Recip) {
        den = r->ops[0];
        num = e->ops[1 - i];
      }
    }
  }
  if (!num) {
    why = "not a softmax: no division by a row sum";
    return failure();
  }
  ExprP ex = stripCasts(num, eb);
  if (ex->kind != Expr::Exp) {
    why = "not a softmax: the numerator is not an exp";
    return failure();
  }
  ExprP diff = stripCasts(ex->ops[0], eb);
  if (diff->kind != Expr::Sub) {
    why = "not a softmax: exp of something other than x - rowmax(x)";
    return failure();
  }
  if (nearMiss)
    *nearMiss = true;
  ExprP x = diff->ops[0];
  ExprP maxLeaf = eb.derefAll(diff->ops[1]);
  while (maxLeaf->kind == Expr::ExtF || maxLeaf->kind == Expr::TruncF)
    maxLeaf = eb.derefAll(maxLeaf->ops[0]);
  if (maxLeaf->kind != Expr::Leaf) {
    why = "not a softmax: the subtracted value is not a reduction";
    return failure();
  }
  int key = missingAtom(access, maxLeaf->access, eb.atoms);
  if (key < 0) {
    why = "the row max is not broadcast along exactly one dimension of the "
          "scores";
    return failure();
  }
  FailureOr<Reduction> rmax = matchReduction(
      maxLeaf->value, maxLeaf->access, ReductionKind::Max, eb, why);
  if (failed(rmax))
    return failure();
  if (!exprEqual(rmax->input, x, eb.atoms, eb, {{rmax->reducedAtom, key}})) {
    why = "the row max reduces a different tensor than the one the softmax "
          "normalizes";
    return failure();
  }
  ExprP sumLeaf = eb.derefAll(den);
  while (sumLeaf->kind == Expr::ExtF || sumLeaf->kind == Expr::TruncF)
    sumLeaf = eb.derefAll(sumLeaf->ops[0]);
  if (sumLeaf->kind != Expr::Leaf) {
    why = "not a softmax: the divisor is not a reduction";
    return failure();
  }
  if (missingAtom(access, sumLeaf->access, eb.atoms) != key) {
    why = "the row sum and the row max reduce different dimensions";
    return failure();
  }
  FailureOr<Reduction> rsum = matchReduction(
      sumLeaf->value, sumLeaf->access, ReductionKind::Sum, eb, why);
  if (failed(rsum))
    return failure();
  ExprP summed = stripCasts(rsum->input, eb);
  if (!exprEqual(summed, ex, eb.atoms, eb, {{rsum->reducedAtom, key}})) {
    why = "the row sum adds a different tensor than the exponentials";
    return failure();
  }
  m.scores = x;
  m.keyAtom = key;
  return m;
}

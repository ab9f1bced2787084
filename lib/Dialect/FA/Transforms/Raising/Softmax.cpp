//===- Softmax.cpp - Recognizing softmax in its spellings -----------------===//
//
// P = softmax(X) along the key dimension, as `linalg.softmax` or as the
// chain m = rowmax(X); E = exp(X - m); l = rowsum(E); P = E / l (or E * 1/l,
// or E * reciprocal(l), or the log-sum-exp form exp(X - m - log l)), with
// extf / truncf anywhere around it. The row max
// and the row sum must reduce exactly the X and the E of this chain, over
// the one atom that P has and the rows do not: that atom is the key.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::fa::raising;

static ExprP stripCasts(ExprP e, ExprBuilder &eb) {
  e = eb.deref(e);
  while (e->kind == Expr::ExtF || e->kind == Expr::TruncF)
    e = eb.deref(e->ops[0]);
  return e;
}

/// x when `e` is `x == -inf` (either operand order), with x looked through
/// extensions (PyTorch's _safe_softmax compares the scores extended to f64:
/// exact, -inf stays -inf and nothing else becomes it); null otherwise.
static ExprP isNegInfTest(ExprP e, ExprBuilder &eb) {
  if (!e || e->kind != Expr::CmpF ||
      e->pred != (int64_t)arith::CmpFPredicate::OEQ)
    return nullptr;
  for (unsigned i = 0; i < 2; ++i) {
    ExprP c = eb.deref(e->ops[1 - i]);
    if (!c->isConst() || !std::isinf(c->fval) || c->fval > 0)
      continue;
    ExprP x = eb.deref(e->ops[i]);
    while (x->kind == Expr::ExtF)
      x = eb.deref(x->ops[0]);
    return x;
  }
  return nullptr;
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

/// PyTorch's _safe_softmax: where(all(x == -inf, dim), 0, softmax(x)).
/// Those rows are NaN in the plain softmax and 0 in fa.attention, so the
/// select only makes the two agree; it must zero exactly those rows. None
/// when `p` is not such a select (the ops it recorded are forgotten).
static std::optional<FailureOr<SoftmaxMatch>>
matchSafeSoftmax(Value p, const Access &access, ExprBuilder &eb,
                 std::string &why, bool *nearMiss) {
  OpSet saved;
  if (eb.record)
    saved = *eb.record;
  ExprP e = eb.deref(eb.leaf(p, access));
  ExprP zero = e->kind == Expr::Select ? eb.deref(e->ops[1]) : nullptr;
  ExprP inner = e->kind == Expr::Select ? e->ops[2] : nullptr;
  if (!zero || !zero->isConst() || zero->fval != 0.0 ||
      inner->kind != Expr::Leaf) {
    if (eb.record)
      *eb.record = saved;
    return std::nullopt;
  }
  ExprP safeCond = e->ops[0];
  auto [v, a] = resolveViews(inner->value, inner->access, eb.atoms, eb.record);
  FailureOr<SoftmaxMatch> sm = matchSoftmax(v, a, eb, why, nearMiss);
  if (failed(sm))
    return FailureOr<SoftmaxMatch>(failure());
  if (nearMiss)
    *nearMiss = true;
  // The all-reduction itself, through views only: deref would unroll a
  // short TOSA reduce_all into an and-chain (a read at positions).
  ExprP c = safeCond->kind == Expr::Leaf ? safeCond : eb.derefAll(safeCond);
  Access condAccess = c->access;
  std::string whyAll;
  FailureOr<Reduction> all = failure();
  if (c->kind == Expr::Leaf) {
    auto [cv, ca] = resolveViews(c->value, c->access, eb.atoms, eb.record);
    condAccess = ca;
    all = matchReduction(cv, ca, ReductionKind::All, eb, whyAll);
  }
  ExprP cmp = succeeded(all) ? eb.deref(all->input) : nullptr;
  ExprP compared = isNegInfTest(cmp, eb);
  if (!compared || missingAtom(access, condAccess, eb.atoms) != sm->keyAtom ||
      !exprEqual(compared, sm->scores, eb.atoms, eb,
                 {{all->reducedAtom, sm->keyAtom}})) {
    why = "the softmax's rows are zeroed by a condition other than "
          "'every score is -inf' (_safe_softmax)";
    return FailureOr<SoftmaxMatch>(failure());
  }
  return sm;
}

/// The log-sum-exp form exp(x - m - log(rowsum(exp(x - m)))): the same as
/// exp(x - m) / rowsum(exp(x - m)), up to rounding. Sets `num` and `den`
/// when `e` is one.
static void splitLogSumExp(const ExprP &e, ExprBuilder &eb, ExprP &num,
                           ExprP &den) {
  ExprP d = stripCasts(e->ops[0], eb);
  ExprP lg = d->kind == Expr::Sub ? stripCasts(d->ops[1], eb) : nullptr;
  if (!lg || lg->kind != Expr::Log)
    return;
  auto ex = std::make_shared<Expr>();
  ex->kind = Expr::Exp;
  ex->ops = {d->ops[0]};
  ex->type = e->type;
  num = ex;
  den = lg->ops[0];
}

/// The row max under select(m == -inf, 0, m), the guard that keeps a fully
/// masked row at exp(-inf - 0) = 0 instead of NaN (any finite value gives
/// the same P), and under casts.
static ExprP stripMaxGuard(ExprP maxLeaf, ExprBuilder &eb) {
  while (maxLeaf->kind == Expr::ExtF || maxLeaf->kind == Expr::TruncF)
    maxLeaf = eb.derefAll(maxLeaf->ops[0]);
  if (maxLeaf->kind != Expr::Select)
    return maxLeaf;
  ExprP cond = eb.deref(maxLeaf->ops[0]);
  ExprP zero = eb.deref(maxLeaf->ops[1]);
  ExprP ninf = cond->kind == Expr::CmpF ? eb.deref(cond->ops[1]) : nullptr;
  if (ninf && cond->pred == (int64_t)arith::CmpFPredicate::OEQ &&
      ninf->isConst() && std::isinf(ninf->fval) && ninf->fval < 0 &&
      zero->isConst() && std::isfinite(zero->fval) &&
      exprEqual(cond->ops[0], maxLeaf->ops[2], eb.atoms, eb))
    return eb.derefAll(maxLeaf->ops[2]);
  return maxLeaf;
}

FailureOr<SoftmaxMatch> mlir::fa::raising::matchSoftmax(Value p,
                                                        const Access &access,
                                                        ExprBuilder &eb,
                                                        std::string &why,
                                                        bool *nearMiss) {
  SoftmaxMatch m;
  if (std::optional<FailureOr<SoftmaxMatch>> safe =
          matchSafeSoftmax(p, access, eb, why, nearMiss))
    return *safe;
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
  splitQuotient(e, eb, num, den);
  bool deferred = false;
  if (!num && e->kind == Expr::Exp)
    splitLogSumExp(e, eb, num, den);
  if (!num) {
    // exp(x - rowmax(x)) alone: the division by the row sum may come after
    // P·V (the caller checks).
    if (e->kind != Expr::Exp) {
      why = "not a softmax: no division by a row sum";
      return failure();
    }
    num = e;
    deferred = true;
  }
  ExprP ex = stripCasts(num, eb);
  if (ex->kind != Expr::Exp) {
    why = "not a softmax: the numerator is not an exp";
    return failure();
  }
  ExprP diff = stripCasts(ex->ops[0], eb);
  if (diff->kind != Expr::Sub) {
    // exp(x) / rowsum(exp(x)) is a softmax too, but it overflows where
    // fa.attention does not: a near miss, not raised.
    ExprP sumLeaf = den ? eb.derefAll(den) : e;
    if (den && sumLeaf->kind == Expr::Leaf &&
        succeeded(matchReduction(sumLeaf->value, sumLeaf->access,
                                 ReductionKind::Sum, eb, why))) {
      if (nearMiss)
        *nearMiss = true;
      why = "a softmax without the max subtraction (exp(x) overflows where "
            "fa.attention does not)";
      return failure();
    }
    why = "not a softmax: exp of something other than x - rowmax(x)";
    return failure();
  }
  if (nearMiss)
    *nearMiss = true;
  ExprP x = diff->ops[0];
  ExprP maxLeaf = stripMaxGuard(eb.derefAll(diff->ops[1]), eb);
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
  if (deferred) {
    m.scores = x;
    m.keyAtom = key;
    m.deferredExp = ex;
    return m;
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

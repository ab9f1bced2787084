//===- ScoreFloor.cpp - Scores clamped at the mask fill -------------------===//
//
// XGLM (and transformers' older OPT) clamp the masked scores from below:
// `max(s + mask, finfo.min)` (linalg: `select(x > c, x, c)`, TOSA:
// `tosa.maximum`). The clamp is an identity wherever the scores it clamps
// are at or above the constant, so it is dropped when the masks and biases
// under it can be shown to stay there: every select fill finite and at or
// above it, and the lowest fill plus the negative parts of all biases,
// evaluated on the (batch, head, row, key) grid, at or above it. Visible
// scores are assumed finite and far above a mask fill (as the finite-fill
// rules of docs/RaiseAttention.md assume).
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::fa::raising;

/// Whether `cond` is `x > c` (or `c < x`) when `greater`, `x < c` otherwise,
/// with `>=` / `<=` alike.
static bool comparesWith(const ExprP &cond, const ExprP &x, double c,
                         bool greater, ExprBuilder &eb) {
  if (cond->kind != Expr::CmpF || cond->ops.size() != 2)
    return false;
  using P = arith::CmpFPredicate;
  auto pred = static_cast<P>(cond->pred);
  bool gt =
      pred == P::OGT || pred == P::OGE || pred == P::UGT || pred == P::UGE;
  bool lt =
      pred == P::OLT || pred == P::OLE || pred == P::ULT || pred == P::ULE;
  for (unsigned i = 0; i < 2; ++i) {
    ExprP k = eb.deref(cond->ops[1 - i]);
    if (!k->isConst() || k->fval != c ||
        !exprEqual(cond->ops[i], x, eb.atoms, eb))
      continue;
    // x ? c as written (i == 0) or c ? x (i == 1, the predicate flips).
    bool xGreater = i == 0 ? gt : lt;
    bool xLess = i == 0 ? lt : gt;
    return greater ? xGreater : xLess;
  }
  return false;
}

/// matchScoreFloor without recording the ops it looks at: a select's
/// condition may be a mask tensor that every layer reads.
static std::optional<std::pair<ExprP, double>>
matchFloorQuietly(const ExprP &e, ExprBuilder &eb) {
  auto constant = [&](const ExprP &o) -> std::optional<double> {
    ExprP d = eb.deref(o);
    if (d->isConst())
      return d->fval;
    return std::nullopt;
  };
  if (e->kind == Expr::Max && e->ops.size() == 2 && isFloatType(e->type)) {
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<double> c = constant(e->ops[i]))
        return std::make_pair(e->ops[1 - i], *c);
    return std::nullopt;
  }
  if (e->kind != Expr::Select)
    return std::nullopt;
  ExprP cond = eb.deref(e->ops[0]);
  // select(x > c, x, c) or select(x < c, c, x).
  if (std::optional<double> c = constant(e->ops[2]))
    if (comparesWith(cond, e->ops[1], *c, /*greater=*/true, eb))
      return std::make_pair(e->ops[1], *c);
  if (std::optional<double> c = constant(e->ops[1]))
    if (comparesWith(cond, e->ops[2], *c, /*greater=*/false, eb))
      return std::make_pair(e->ops[2], *c);
  return std::nullopt;
}

std::optional<std::pair<ExprP, double>>
mlir::fa::raising::matchScoreFloor(const ExprP &e, ExprBuilder &eb) {
  OpSet *record = eb.record;
  eb.record = nullptr;
  std::optional<std::pair<ExprP, double>> m = matchFloorQuietly(e, eb);
  eb.record = record;
  // A match's condition reads the scores: its op is part of the attention.
  if (m && e->kind == Expr::Select)
    eb.deref(e->ops[0]);
  return m;
}

bool mlir::fa::raising::isFloatType(Type t) {
  return isa_and_nonnull<FloatType>(t);
}

static std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

LogicalResult mlir::fa::raising::checkScoreFloor(const ScoreForm &form,
                                                 ArrayRef<int> grid,
                                                 AtomTable &atoms,
                                                 std::string &why) {
  double floor = *form.floor;
  auto clampWhy = [&](const std::string &what) {
    why = "the scores are clamped at " + fmt(floor) + " (max(x, c)), and " +
          what + " may go below it";
    return failure();
  };
  double lowest = 0.0;
  for (const SelectTerm &s : form.selects) {
    if (std::isinf(s.fill) || s.fill < floor)
      return clampWhy("a mask fill of " + fmt(s.fill));
    lowest = std::min(lowest, s.fill);
  }
  if (form.biases.empty())
    return success();
  for (int a : grid)
    if (ShapedType::isDynamic(atoms.size(a)))
      return clampWhy("a bias over a dynamic dimension");
  ExprBuilder eb{atoms, nullptr, {}};
  std::vector<double> negative;
  for (const ExprP &b : form.biases) {
    std::string w;
    FailureOr<std::vector<double>> vals = evaluateOnAtoms(b, grid, eb, w);
    if (failed(vals))
      return clampWhy("a bias (" + describeNode(*eb.derefAll(b)) +
                      ", not evaluated: " + w + ")");
    negative.resize(vals->size(), 0.0);
    for (size_t k = 0; k < vals->size(); ++k)
      negative[k] += std::min(0.0, (*vals)[k]);
  }
  for (double n : negative)
    if (!(lowest + n >= floor))
      return clampWhy("the sum of its masks and biases (" + fmt(lowest + n) +
                      ")");
  return success();
}

//===- Backward.cpp - The training backward of attention ------------------===//
//
// Autograd of softmax attention, as a joint forward+backward graph spells it:
//   dV = Pᵀ dO                      (contraction of P over the query rows)
//   dP = dO Vᵀ                      (contraction over the value head dim)
//   dS = P ∘ (dP - rowsum(P ∘ dP))  or  P∘dP - P ∘ rowsum(P∘dP)
//   dS' = scale * dS                (possibly in the same elementwise op)
//   dQ = dS' K,  dK = dS'ᵀ Q
// Every contraction has its own fresh loop atoms; they are unified with the
// forward's atoms through the tensors both read (P, Q, K, V, dS').
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa::raising;

namespace {

using AtomMap = llvm::DenseMap<int, int>;

AtomList renamedList(const AtomList &l, const AtomMap &map) {
  AtomList out;
  for (int a : l) {
    auto it = map.find(a);
    out.push_back(it == map.end() ? a : it->second);
  }
  return out;
}

Access renamedAccess(const Access &access, const AtomTable &atoms,
                     const AtomMap &map) {
  Access out;
  for (const AtomList &l : atoms.leaves(access))
    out.push_back(renamedList(l, map));
  return out;
}

/// Extends `map` so that `fresh`, renamed, reads like `known`.
bool unify(const Access &fresh, const Access &known, AtomTable &atoms,
           AtomMap &map) {
  Access f = atoms.leaves(fresh), k = atoms.leaves(known);
  if (f.size() != k.size())
    return false;
  for (auto [fl, kl] : llvm::zip(f, k)) {
    if (fl.size() != kl.size()) {
      // The known side is finer (a head atom split into kv heads x group):
      // split the fresh atoms the same way.
      SmallVector<int64_t> sizes;
      for (int a : kl)
        sizes.push_back(atoms.size(a));
      if (failed(atoms.partition(fl, sizes)))
        return false;
      fl = atoms.leaves(fl);
      if (fl.size() != kl.size())
        return false;
    }
    for (auto [a, b] : llvm::zip(fl, kl)) {
      auto it = map.find(a);
      if (it != map.end()) {
        if (it->second != b)
          return false;
        continue;
      }
      if (a == b)
        continue;
      if (atoms.size(a) != atoms.size(b))
        return false;
      map[a] = b;
    }
  }
  return true;
}

class BackwardMatcher {
public:
  BackwardMatcher(const BackwardInput &in, AtomTable &atoms, std::string &why)
      : in(in), atoms(atoms), why(why), eb{atoms, &m.ops, {}} {}

  FailureOr<BackwardMatch> run();

private:
  /// Whether `e` reads P at the forward's access (after renaming).
  bool isP(const ExprP &e) { return isP(e, AtomMap()); }
  bool isP(const ExprP &e, const AtomMap &map);
  ExprP peel(const ExprP &e);
  /// Strips constant factors around `t` into inlineFactor.
  ExprP stripFactors(ExprP t);
  double inlineFactor = 1.0;
  /// dS at the forward's access: sets dP.
  LogicalResult matchDS(Value ds);
  /// P ∘ dP in a row-sum reduction, renamed by `map`.
  bool isPTimesDP(const ExprP &e, const AtomMap &map);
  LogicalResult matchDP();
  /// Follows constant scalings (and the mask's zeroing) from dS; returns
  /// dS' and sets dsFactor.
  FailureOr<Value> scaled(Value ds);
  /// dQ or dK after the views and constant scalings that follow its
  /// contraction, with its access in the forward's atoms; the scalings
  /// times `factor` must give the forward's scale.
  FailureOr<std::pair<Value, Access>>
  afterScaling(Value result, const Access &access, double factor);
  double dsFactor = 1.0;
  /// Follows dK or dV (read at `access`) through the sum over the GQA group
  /// when `access` has atoms that the forward's K or V (`root`) lacks.
  LogicalResult sumOverGroup(Value &grad, Access &access, const Access &root);
  /// The gradient contractions reading `t` (dS' or P) through views.
  SmallVector<Operation *> contractionsReading(Value t);

  const BackwardInput &in;
  AtomTable &atoms;
  std::string &why;
  BackwardMatch m;
  ExprBuilder eb;
  Value dP;
  Access dPAccess;
};

bool BackwardMatcher::isP(const ExprP &e, const AtomMap &map) {
  if (e->kind != Expr::Leaf)
    return false;
  auto [v, a] = resolveViews(e->value, e->access, atoms, nullptr);
  return v == in.p && renamedAccess(a, atoms, map) == atoms.leaves(in.pAccess);
}

ExprP BackwardMatcher::peel(const ExprP &e) {
  if (isP(e))
    return e;
  ExprP d = eb.deref(e);
  while (d->kind == Expr::ExtF || d->kind == Expr::TruncF)
    d = eb.deref(d->ops[0]);
  return d;
}

bool BackwardMatcher::isPTimesDP(const ExprP &e, const AtomMap &map) {
  ExprP t = e;
  if (!isP(t, map))
    t = eb.deref(t);
  if (t->kind != Expr::Mul)
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    ExprP other = t->ops[1 - i];
    if (!isP(t->ops[i], map) || other->kind != Expr::Leaf)
      continue;
    auto [v, a] = resolveViews(other->value, other->access, atoms, nullptr);
    if (v == dP && renamedAccess(a, atoms, map) == atoms.leaves(dPAccess))
      return true;
  }
  return false;
}

ExprP BackwardMatcher::stripFactors(ExprP t) {
  // Constants are looked up without recording: the other operand may be P.
  ExprBuilder scratch{atoms, nullptr, {}};
  while (t->kind == Expr::Mul || t->kind == Expr::Div) {
    ExprP a = t->ops[0], c = scratch.deref(t->ops[1]);
    if (t->kind == Expr::Mul && !c->isConst() && scratch.deref(a)->isConst())
      std::swap(a, c), c = scratch.deref(c);
    if (!c->isConst() || c->fval == 0.0)
      break;
    inlineFactor *= t->kind == Expr::Mul ? c->fval : 1.0 / c->fval;
    t = peel(a);
  }
  return t;
}

LogicalResult BackwardMatcher::matchDS(Value ds) {
  inlineFactor = 1.0;
  // The scale may be multiplied in the same elementwise op as dS.
  ExprP t = stripFactors(peel(eb.leaf(ds, in.pAccess)));
  ExprP dpLeaf, rowLeaf;
  if (t->kind == Expr::Mul) {
    // P ∘ (dP - R)
    for (unsigned i = 0; i < 2 && !dpLeaf; ++i) {
      if (!isP(t->ops[i]))
        continue;
      ExprP d = stripFactors(peel(t->ops[1 - i]));
      if (d->kind == Expr::Sub) {
        dpLeaf = d->ops[0];
        rowLeaf = d->ops[1];
      }
    }
  } else if (t->kind == Expr::Sub) {
    // P ∘ dP - P ∘ R
    ExprP a = peel(t->ops[0]), b = peel(t->ops[1]);
    if (a->kind == Expr::Mul && b->kind == Expr::Mul) {
      for (unsigned i = 0; i < 2; ++i)
        if (isP(a->ops[i]))
          dpLeaf = a->ops[1 - i];
      for (unsigned i = 0; i < 2; ++i)
        if (isP(b->ops[i]))
          rowLeaf = b->ops[1 - i];
    }
  }
  if (!dpLeaf || !rowLeaf || dpLeaf->kind != Expr::Leaf)
    return failure();
  std::tie(dP, dPAccess) =
      resolveViews(dpLeaf->value, dpLeaf->access, atoms, &m.ops);
  ExprP r = eb.derefAll(rowLeaf);
  if (r->kind != Expr::Leaf)
    return failure();
  std::string ignored;
  FailureOr<Reduction> sum =
      matchReduction(r->value, r->access, ReductionKind::Sum, eb, ignored);
  if (failed(sum))
    return failure();
  AtomMap map;
  map[sum->reducedAtom] = in.keyAtom;
  if (!isPTimesDP(sum->input, map)) {
    why = "the softmax backward sums something other than P ∘ dP";
    return failure();
  }
  return success();
}

LogicalResult BackwardMatcher::matchDP() {
  FailureOr<Contraction> c = matchContraction(dP, dPAccess, atoms, why);
  if (failed(c))
    return failure();
  m.ops.insert(c->op);
  AtomList lf = atoms.leaves(c->lhsFree), rf = atoms.leaves(c->rhsFree);
  bool vIsRhs;
  if (rf == AtomList{in.keyAtom} && lf == AtomList{in.rowAtom})
    vIsRhs = true;
  else if (lf == AtomList{in.keyAtom} && rf == AtomList{in.rowAtom})
    vIsRhs = false;
  else {
    why = "dP = dO Vᵀ does not keep the query rows and the keys";
    return failure();
  }
  double s = 1.0;
  auto [v, va] = traceOperand(vIsRhs ? c->rhs : c->lhs,
                              vIsRhs ? c->rhsAccess : c->lhsAccess, atoms, s);
  auto [dO, dOa] = traceOperand(vIsRhs ? c->lhs : c->rhs,
                                vIsRhs ? c->lhsAccess : c->rhsAccess, atoms, s);
  AtomMap map;
  if (v != in.v || s != 1.0 || !unify(va, in.vAccess, atoms, map)) {
    why = "dP = dO Vᵀ does not read the forward's V";
    return failure();
  }
  m.dO = dO;
  m.dOAccess = renamedAccess(dOa, atoms, map);
  return success();
}

FailureOr<Value> BackwardMatcher::scaled(Value ds) {
  double total = 1.0;
  Value cur = ds;
  while (cur.hasOneUse()) {
    Operation *user = *cur.getUsers().begin();
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
        linalgOp->getNumResults() != 1 ||
        cast<ShapedType>(user->getResult(0).getType()).getShape() !=
            cast<ShapedType>(cur.getType()).getShape())
      break;
    Value next = user->getResult(0);
    ExprBuilder scratch{atoms, nullptr, {}};
    ExprP e = scratch.deref(scratch.leaf(next, in.pAccess));
    // An identity op (x * 1, x + 0): dS' read through it.
    if (exprEqual(e, scratch.deref(scratch.leaf(cur, in.pAccess)), atoms,
                  scratch)) {
      m.ops.insert(user);
      cur = next;
      continue;
    }
    if (e->kind == Expr::Select) {
      // where(mask, g, 0): exactly the forward's mask, where P and hence dS
      // are 0 already.
      ExprP t = scratch.deref(e->ops[1]), f = scratch.deref(e->ops[2]);
      bool keepTrue = f->isConst() && f->fval == 0.0 &&
                      e->ops[1]->kind == Expr::Leaf && e->ops[1]->value == cur;
      bool keepFalse = t->isConst() && t->fval == 0.0 &&
                       e->ops[2]->kind == Expr::Leaf &&
                       e->ops[2]->value == cur;
      bool same = false;
      for (const SelectTerm &term : in.selects)
        if ((keepTrue && term.visibleWhenTrue) ||
            (keepFalse && !term.visibleWhenTrue))
          same |= exprEqual(e->ops[0], term.cond, atoms, scratch);
      if (!same)
        break;
      m.ops.insert(user);
      cur = next;
      continue;
    }
    if (e->kind != Expr::Mul && e->kind != Expr::Div)
      break;
    ExprP a = e->ops[0], c = scratch.deref(e->ops[1]);
    if (e->kind == Expr::Mul && !c->isConst())
      std::swap(a, c), c = scratch.deref(c);
    if (!c->isConst() || a->kind != Expr::Leaf || a->value != cur)
      break;
    total *= e->kind == Expr::Mul ? c->fval : 1.0 / c->fval;
    m.ops.insert(user);
    cur = next;
  }
  dsFactor = total * inlineFactor;
  return cur;
}

FailureOr<std::pair<Value, Access>>
BackwardMatcher::afterScaling(Value result, const Access &access,
                              double factor) {
  // The single-use chain after the contraction: views and constant
  // scalings (dq = dq' * sqrt(scale) when Q and K were pre-scaled).
  SmallVector<Value> chain = {result};
  for (Value cur = result; cur.hasOneUse() && chain.size() < 6;) {
    Operation *user = *cur.getUsers().begin();
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    bool elementwise = linalgOp && linalgOp.getNumDpsInits() == 1 &&
                       linalgOp.getNumParallelLoops() == linalgOp.getNumLoops();
    if (user->getNumResults() != 1 || !(isViewOp(user) || elementwise))
      break;
    cur = user->getResult(0);
    chain.push_back(cur);
  }
  // The shortest chain that carries the scale: later views (the reshape
  // before a GQA group sum) stay for the caller.
  for (Value end : chain) {
    auto type = dyn_cast<RankedTensorType>(end.getType());
    if (!type)
      continue;
    Access endAccess = atoms.freshAccess(type.getShape());
    double post = 1.0;
    auto [root, rootAccess] = traceOperand(end, endAccess, atoms, post);
    AtomMap map;
    if (root != result || !unify(rootAccess, access, atoms, map))
      continue;
    if (std::abs(factor * post - in.scale) > 1e-6 * std::abs(in.scale))
      continue;
    for (Value v : chain) {
      if (v == end)
        break;
      for (Operation *user : v.getUsers())
        m.ops.insert(user);
    }
    return std::make_pair(end, renamedAccess(endAccess, atoms, map));
  }
  return failure();
}

SmallVector<Operation *> BackwardMatcher::contractionsReading(Value t) {
  SmallVector<Operation *> out;
  SmallVector<Value> worklist = {t};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isContractionOp(user))
        out.push_back(user);
      else if (isViewOp(user) && user->getNumResults() == 1)
        worklist.push_back(user->getResult(0));
    }
  }
  return out;
}

FailureOr<BackwardMatch> BackwardMatcher::run() {
  Value p = in.p;
  Block *block = p.getParentBlock();
  auto pType = cast<ShapedType>(in.p.getType());
  bool found = false;
  for (Operation &op : *block) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
    if (!linalgOp || op.getNumResults() != 1 || !in.p.getDefiningOp() ||
        !in.p.getDefiningOp()->isBeforeInBlock(&op) ||
        cast<ShapedType>(op.getResult(0).getType()).getShape() !=
            pType.getShape() ||
        linalgOp.getNumParallelLoops() != linalgOp.getNumLoops())
      continue;
    OpSet saved = m.ops;
    if (succeeded(matchDS(op.getResult(0)))) {
      m.ops.insert(&op);
      found = true;
      if (failed(matchDP()))
        return failure();
      FailureOr<Value> dss = scaled(op.getResult(0));
      if (failed(dss))
        return failure();

      // dQ (sums the keys) and dK (sums the query rows).
      for (Operation *c : contractionsReading(*dss)) {
        Value result = c->getResult(0);
        Access access = atoms.freshAccess(
            cast<RankedTensorType>(result.getType()).getShape());
        std::string ignored;
        FailureOr<Contraction> cc =
            matchContraction(result, access, atoms, ignored);
        if (failed(cc))
          continue;
        for (unsigned side = 0; side < 2; ++side) {
          auto [t, ta] = resolveViews(side == 0 ? cc->lhs : cc->rhs,
                                      side == 0 ? cc->lhsAccess
                                                : cc->rhsAccess,
                                      atoms, nullptr);
          AtomMap map;
          if (t != *dss || !unify(ta, in.pAccess, atoms, map))
            continue;
          AtomList red = renamedList(atoms.leaves(cc->reduction), map);
          bool isDQ = red == AtomList{in.keyAtom};
          bool isDK = red == AtomList{in.rowAtom};
          double s = 1.0;
          auto [o, oa] = traceOperand(side == 0 ? cc->rhs : cc->lhs,
                                      side == 0 ? cc->rhsAccess
                                                : cc->lhsAccess,
                                      atoms, s);
          bool dq = isDQ && o == in.k && unify(oa, in.kAccess, atoms, map);
          bool dk = !dq && isDK && o == in.q &&
                    unify(oa, in.qAccess, atoms, map);
          if (!dq && !dk)
            continue;
          // scale = (factor on dS') * (scale on the K or Q it reads) *
          //         (constant scalings after the contraction).
          FailureOr<std::pair<Value, Access>> out = afterScaling(
              result, renamedAccess(access, atoms, map), dsFactor * s);
          if (failed(out)) {
            why = "the gradient of Q or K is not scaled by the forward's "
                  "scale";
            return failure();
          }
          m.ops.insert(c);
          (dq ? m.dQ : m.dK) = out->first;
          (dq ? m.dQAccess : m.dKAccess) = out->second;
          // Views from dS' to the contraction are the backward's.
          resolveViews(side == 0 ? cc->lhs : cc->rhs,
                       side == 0 ? cc->lhsAccess : cc->rhsAccess, atoms,
                       &m.ops);
        }
      }
      break;
    }
    m.ops = saved;
  }
  if (!found) {
    why = "P is read outside the attention, but not by a softmax backward";
    return failure();
  }
  if (!m.dQ || !m.dK) {
    why = "the softmax backward does not feed both dQ = dS K and dK = dSᵀ Q";
    return failure();
  }

  // dV = Pᵀ dO.
  for (Operation *c : contractionsReading(in.p)) {
    Value result = c->getResult(0);
    Access access =
        atoms.freshAccess(cast<RankedTensorType>(result.getType()).getShape());
    std::string ignored;
    FailureOr<Contraction> cc = matchContraction(result, access, atoms, ignored);
    if (failed(cc))
      continue;
    for (unsigned side = 0; side < 2; ++side) {
      auto [t, ta] = resolveViews(side == 0 ? cc->lhs : cc->rhs,
                                  side == 0 ? cc->lhsAccess : cc->rhsAccess,
                                  atoms, nullptr);
      AtomMap map;
      if (t != in.p || !unify(ta, in.pAccess, atoms, map))
        continue;
      if (renamedList(atoms.leaves(cc->reduction), map) !=
          AtomList{in.rowAtom})
        continue;
      double s = 1.0;
      auto [o, oa] = traceOperand(side == 0 ? cc->rhs : cc->lhs,
                                  side == 0 ? cc->rhsAccess : cc->lhsAccess,
                                  atoms, s);
      if (o != m.dO || s != 1.0 || !unify(oa, m.dOAccess, atoms, map))
        continue;
      m.dV = result;
      m.ops.insert(c);
      m.dVAccess = renamedAccess(access, atoms, map);
      resolveViews(side == 0 ? cc->lhs : cc->rhs,
                   side == 0 ? cc->lhsAccess : cc->rhsAccess, atoms, &m.ops);
    }
  }
  if (!m.dV) {
    why = "no dV = Pᵀ dO next to the softmax backward";
    return failure();
  }
  // Grouped-query attention: dK and dV come per query head and are summed
  // over the group (the backward of broadcasting K and V).
  if (failed(sumOverGroup(m.dK, m.dKAccess, in.kAccess)) ||
      failed(sumOverGroup(m.dV, m.dVAccess, in.vAccess)))
    return failure();
  return m;
}

LogicalResult BackwardMatcher::sumOverGroup(Value &grad, Access &access,
                                            const Access &root) {
  AtomList rootLeaves = atoms.flatLeaves(root);
  AtomList group;
  for (int a : atoms.flatLeaves(access))
    if (!llvm::is_contained(rootLeaves, a))
      group.push_back(a);
  if (group.empty())
    return success();
  // Views, then a sum reduction over exactly the group atoms.
  Value cur = grad;
  while (cur.hasOneUse() && isViewOp(*cur.getUsers().begin()) &&
         cur.getUsers().begin()->getNumResults() == 1)
    cur = cur.getUsers().begin()->getResult(0);
  if (!cur.hasOneUse()) {
    why = "the per-query-head gradient of K or V is not summed over the group";
    return failure();
  }
  Operation *user = *cur.getUsers().begin();
  if (user->getNumResults() != 1) {
    why = "the per-query-head gradient of K or V is not summed over the group";
    return failure();
  }
  Value summed = user->getResult(0);
  auto type = dyn_cast<RankedTensorType>(summed.getType());
  if (!type || !type.hasStaticShape())
    return failure();
  Access fresh = atoms.freshAccess(type.getShape());
  std::string ignored;
  FailureOr<Reduction> r =
      matchReduction(summed, fresh, ReductionKind::Sum, eb, ignored);
  ExprP in0 = succeeded(r) ? eb.derefAll(r->input) : nullptr;
  if (!in0 || in0->kind != Expr::Leaf) {
    why = "the per-query-head gradient of K or V is not summed over the group";
    return failure();
  }
  auto [v, va] = resolveViews(in0->value, in0->access, atoms, &m.ops);
  AtomMap map;
  if (v != grad || !unify(va, access, atoms, map) ||
      group.size() != 1 || map.lookup(r->reducedAtom) != group[0]) {
    // unify maps fresh atoms to known ones; the reduced atom must be the
    // group.
    AtomMap inverse;
    bool ok = v == grad && unify(va, access, atoms, inverse) &&
              group.size() == 1 &&
              (inverse.lookup(r->reducedAtom) == group[0] ||
               r->reducedAtom == group[0]);
    if (!ok) {
      why = "the gradient of K or V is summed over something else than the "
            "group of query heads sharing a kv head";
      return failure();
    }
    map = inverse;
  }
  m.ops.insert(user);
  grad = summed;
  access = renamedAccess(fresh, atoms, map);
  return success();
}

} // namespace

FailureOr<BackwardMatch>
mlir::fa::raising::matchBackward(const BackwardInput &in, AtomTable &atoms,
                                 std::string &why) {
  BackwardMatcher matcher(in, atoms, why);
  return matcher.run();
}

//===- Match.cpp - The attention matcher, stage by stage ------------------===//
//
// Anchored on a contraction (the candidate P·V): one of its operands must be
// a softmax (Softmax.cpp), whose input must be a scaled, biased, masked
// Q Kᵀ (Score.cpp) over the same keys P·V sums. Then: only the attention
// reads its intermediates (constants are not intermediates), Q, K and V are
// traced to the tensors the program holds, the atoms get their roles
// (Roles.cpp), masks are evaluated (Masks.cpp), the precision the IR rounds
// at is read off (below), a training backward is matched (Backward.cpp),
// and a layout is chosen (Layout.cpp).
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

namespace {

/// Whether `op` computes its results from constants only (a shared scale,
/// fill value or mask buffer): such ops are not intermediates of one
/// attention, whoever else reads them.
class ConstantSubgraphs {
public:
  bool contains(Operation *op) {
    if (auto it = memo.find(op); it != memo.end())
      return it->second;
    memo[op] = false; // cycles are not constant
    bool isConst = isConstantOp(op);
    memo[op] = isConst;
    return isConst;
  }

private:
  bool isConstantOp(Operation *op) {
    if (op->hasTrait<OpTrait::ConstantLike>())
      return true;
    if (op->getNumRegions() > 0 && !isa<linalg::LinalgOp>(op))
      return false;
    if (!isMemoryEffectFree(op) && !isa<linalg::LinalgOp>(op))
      return false;
    if (auto l = dyn_cast<linalg::LinalgOp>(op))
      if (!l.hasPureTensorSemantics())
        return false;
    bool readsAnything = false;
    for (Value v : op->getOperands()) {
      // A linalg init is only a shape unless the body reads it.
      if (auto l = dyn_cast<linalg::LinalgOp>(op))
        if (auto *o = llvm::find_if(op->getOpOperands(),
                                    [&](OpOperand &x) { return x.get() == v; });
            o != op->getOpOperands().end() && l.isDpsInit(&*o) &&
            !l.payloadUsesValueFromOperand(&*o))
          continue;
      Operation *def = v.getDefiningOp();
      if (!def || !contains(def))
        return false;
      readsAnything = true;
    }
    // Ops reading nothing but shapes (tensor.empty) hold no value.
    return readsAnything || op->getNumOperands() == 0;
  }
  DenseMap<Operation *, bool> memo;
};

class Matcher {
public:
  Matcher(Operation *pv, AtomTable &atoms) : pv(pv), atoms(atoms) {}

  FailureOr<Plan> match(std::string &why, bool &nearMiss);

private:
  /// Everything about one choice of P's side.
  struct Side {
    unsigned index;
    Value p, vOperand;
    Access pAccess, vAccess;
    OpSet pViews;
    SoftmaxMatch softmax;
    ScoreForm form;
    Contraction qk;
    bool kIsLhs = false;
    AtomList extras; // atoms only Q has besides the rows (the GQA group)
    Operation *normalizer = nullptr;
    OpSet pReaders; // users of P outside the forward: the backward
  };

  LogicalResult matchSide(Side &s, Plan &plan, std::string &why,
                          bool &nearMiss);
  LogicalResult matchScores(Side &s, Plan &plan, std::string &why);
  LogicalResult checkBatch(Side &s, Plan &plan, std::string &why);
  LogicalResult checkEscapes(Side &s, std::string &why);
  LogicalResult checkFloor(const ScoreForm &form, const Plan &plan,
                           std::string &why);
  void traceRoots(Side &s, Plan &plan);
  LogicalResult matchTrainingBackward(Side &s, Plan &plan, std::string &why);
  void explainMiss(Value operand, const Access &access, std::string &why,
                   bool &nearMiss);

  Operation *pv;
  AtomTable &atoms;
  Contraction cpv;
  OutputChain chain;
  OpSet internal;
  ConstantSubgraphs constants;
};

FailureOr<Plan> Matcher::match(std::string &why, bool &nearMiss) {
  // Batch, heads and sequence lengths may be dynamic when each dynamic
  // dimension stays one atom (or one dynamic factor of a merged dimension);
  // head dims must be static.
  if (llvm::any_of(pv->getOperandTypes(),
                   [](Type t) { return !isa<RankedTensorType>(t); }))
    return failure();
  chain = findOutputChain(pv, atoms);
  FailureOr<Contraction> c =
      matchContraction(pv->getResult(0), chain.pvAccess, atoms, why);
  if (failed(c)) {
    for (Value operand : pv->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(operand.getType());
      std::string ignored;
      bool saw = false;
      if (t)
        explainMiss(operand, atoms.freshAccess(t.getShape()), ignored, saw);
      nearMiss |= saw;
    }
    return failure();
  }
  cpv = *c;
  for (unsigned index = 0; index < 2; ++index) {
    internal.clear();
    Plan plan;
    plan.pv = pv;
    plan.outAccess = chain.finalAccess;
    plan.finalValue = chain.final;
    Side s;
    s.index = index;
    std::string whySide;
    bool saw = false;
    if (succeeded(matchSide(s, plan, whySide, saw)))
      return plan;
    if (saw && !nearMiss) {
      nearMiss = true;
      why = whySide;
    }
  }
  return failure();
}

/// When `operand` is not a softmax: a near miss (with the reason) if a
/// softmax is one op away from it (a scale after the softmax, P multiplied
/// by a tensor such as a dropout mask).
void Matcher::explainMiss(Value operand, const Access &access,
                          std::string &why, bool &nearMiss) {
  OpSet scratch;
  ExprBuilder eb{atoms, &scratch, {}};
  auto [p, pAccess] = resolveViews(operand, access, atoms, nullptr);
  std::string ignored;
  if (succeeded(matchSoftmax(p, pAccess, eb, ignored))) {
    nearMiss = true;
    return;
  }
  ExprP top = eb.deref(eb.leaf(p, pAccess));
  for (const ExprP &o : top->ops) {
    ExprP inner = eb.derefAll(o);
    if (inner->kind == Expr::Const)
      continue;
    Value v = inner->kind == Expr::Leaf ? inner->value : inner->origin;
    Access a = inner->kind == Expr::Leaf ? inner->access : inner->originAccess;
    if (!v || failed(matchSoftmax(v, a, eb, ignored)))
      continue;
    nearMiss = true;
    ExprP other = top->ops.size() == 2
                      ? eb.derefAll(top->ops[&o == &top->ops[0] ? 1 : 0])
                      : nullptr;
    if ((top->kind == Expr::Mul || top->kind == Expr::Div) && other &&
        other->isConst())
      why = "the probabilities are scaled after the softmax (by " +
            std::to_string(other->fval) +
            "): fa.attention's scale applies to the scores";
    else if (top->kind == Expr::Mul && other)
      why = "the probabilities are multiplied by another tensor (" +
            (other->kind != Expr::Leaf ? std::string("a computed tensor")
             : other->value.getDefiningOp()
                 ? "'" + describeOp(other->value.getDefiningOp()) + "'"
                 : std::string("an argument")) +
            ") before P·V, e.g. a dropout mask";
    else
      why = "an op that is not part of a softmax sits between the softmax "
            "and P·V";
    return;
  }
}

LogicalResult Matcher::matchSide(Side &s, Plan &plan, std::string &why,
                                 bool &nearMiss) {
  s.p = s.index == 0 ? cpv.lhs : cpv.rhs;
  s.vOperand = s.index == 0 ? cpv.rhs : cpv.lhs;
  Access pOperandAccess = s.index == 0 ? cpv.lhsAccess : cpv.rhsAccess;
  s.vAccess = s.index == 0 ? cpv.rhsAccess : cpv.lhsAccess;
  Value pOperand = s.p;
  std::tie(s.p, s.pAccess) =
      resolveViews(pOperand, pOperandAccess, atoms, &s.pViews);
  internal.insert(s.pViews.begin(), s.pViews.end());
  ExprBuilder eb{atoms, &internal, {}};
  FailureOr<SoftmaxMatch> sm = matchSoftmax(s.p, s.pAccess, eb, why, &nearMiss);
  if (failed(sm)) {
    if (!nearMiss)
      explainMiss(pOperand, pOperandAccess, why, nearMiss);
    return failure();
  }
  nearMiss = true;
  s.softmax = *sm;
  if (failed(matchScores(s, plan, why)) || failed(checkBatch(s, plan, why)) ||
      failed(checkEscapes(s, why)))
    return failure();
  traceRoots(s, plan);
  if (ShapedType::isDynamic(atoms.size(plan.dimAtom)) ||
      ShapedType::isDynamic(atoms.size(plan.dimVAtom))) {
    why = "dynamic head dims are not supported";
    return failure();
  }
  // Tracing may have split atoms (a head atom into kv heads x group).
  AtomList batch = s.extras;
  for (const AtomList &l : s.qk.batch)
    for (int a : atoms.leaves(l))
      batch.push_back(a);
  batch = atoms.leaves(batch);
  AtomList batchOrder;
  if (failed(assignHeadRoles(plan, batch, atoms, batchOrder, why)) ||
      failed(analyzeMasks(s.form, plan.rowAtom, plan.keyAtom, plan.batchPart,
                          plan.allHeads(), atoms.size(plan.rowAtom),
                          atoms.size(plan.keyAtom), atoms, plan.mask, why)) ||
      failed(checkFloor(s.form, plan, why)) ||
      failed(checkBiasRoles(plan, batchOrder, atoms, why)))
    return failure();
  selectPrecision(plan, pOperand, chain);
  if (failed(matchTrainingBackward(s, plan, why)))
    return failure();
  plan.layout = chooseLayout(plan, atoms);
  return success();
}

/// A clamp of the scores at a mask fill must be an identity
/// (ScoreFloor.cpp): checked over the plan's batch, heads, rows and keys.
LogicalResult Matcher::checkFloor(const ScoreForm &form, const Plan &plan,
                                  std::string &why) {
  if (!form.floor)
    return success();
  AtomList grid = plan.batchPart;
  grid.append(plan.allHeads());
  grid.push_back(plan.rowAtom);
  grid.push_back(plan.keyAtom);
  return checkScoreFloor(form, grid, atoms, why);
}

/// The scores: parsed down to Q Kᵀ, whose free atoms give rows and keys.
LogicalResult Matcher::matchScores(Side &s, Plan &plan, std::string &why) {
  ExprBuilder eb{atoms, &internal, {}};
  int key = s.softmax.keyAtom;
  // P·V must sum over the keys.
  AtomList pvRed = atoms.leaves(cpv.reduction);
  if (pvRed.size() != 1 || pvRed[0] != key) {
    why = "P·V sums over a different dimension than the one the softmax "
          "normalizes";
    return failure();
  }
  if (failed(parseScore(s.softmax.scores, s.form, eb, why)))
    return failure();
  FailureOr<Contraction> cqk =
      matchContraction(s.form.qk, s.form.qkAccess, atoms, why);
  if (failed(cqk))
    return failure();
  s.qk = *cqk;
  internal.insert(cqk->op);

  AtomList lhsFree = atoms.leaves(cqk->lhsFree);
  AtomList rhsFree = atoms.leaves(cqk->rhsFree);
  if (rhsFree == AtomList{key})
    s.kIsLhs = false;
  else if (lhsFree == AtomList{key})
    s.kIsLhs = true;
  else {
    why = "the softmax does not run over the key dimension of Q Kᵀ";
    return failure();
  }
  AtomList rows = s.kIsLhs ? rhsFree : lhsFree;
  AtomList dims = atoms.leaves(cqk->reduction);
  if (dims.size() != 1) {
    why = "Q Kᵀ with a unit or collapsed head dimension";
    return failure();
  }
  // Decode (one query token): the row is a unit dimension without an atom.
  plan.unitRow = rows.empty();
  // Several atoms only Q has (einsum "bhgid,bhjd->bhgij": K read without the
  // GQA group): the one next to the key in the scores is the query row, the
  // others are batch-like atoms that K and V lack (the group).
  int row = plan.unitRow ? atoms.fresh(1) : rows.front();
  for (int a : atoms.flatLeaves(s.pAccess))
    if (llvm::is_contained(rows, a))
      row = a;
  for (int a : rows)
    if (a != row)
      s.extras.push_back(a);
  AtomList pFree = atoms.leaves(s.index == 0 ? cpv.lhsFree : cpv.rhsFree);
  AtomList vFree = atoms.leaves(s.index == 0 ? cpv.rhsFree : cpv.lhsFree);
  if (!sameSet(pFree, rows)) {
    why = "the P·V contraction keeps a dimension other than the query rows";
    return failure();
  }
  if (vFree.size() != 1) {
    why = "P·V with a unit or collapsed value head dimension";
    return failure();
  }
  plan.rowAtom = row;
  plan.keyAtom = key;
  plan.dimAtom = dims[0];
  plan.dimVAtom = vFree[0];
  plan.scale = s.form.scale;
  plan.softcap = s.form.softcap;
  if (s.softmax.deferredExp) {
    FailureOr<Operation *> d =
        matchDeferredNormalization(plan, s.softmax, vFree[0], eb, why);
    if (failed(d))
      return failure();
    s.normalizer = *d;
    internal.erase(*d); // its result is the output
  }
  return success();
}

/// Q Kᵀ and P·V agree on their batch atoms, and P holds exactly them, the
/// rows and the keys.
LogicalResult Matcher::checkBatch(Side &s, Plan &plan, std::string &why) {
  AtomList batchQK = s.extras, batchPV = s.extras;
  for (const AtomList &l : s.qk.batch)
    for (int a : atoms.leaves(l))
      batchQK.push_back(a);
  for (const AtomList &l : cpv.batch)
    for (int a : atoms.leaves(l))
      batchPV.push_back(a);
  AtomList expected = batchQK;
  if (!plan.unitRow)
    expected.push_back(plan.rowAtom);
  expected.push_back(plan.keyAtom);
  if (!sameSet(batchQK, batchPV) ||
      !sameSet(atoms.flatLeaves(s.pAccess), expected)) {
    why = "Q Kᵀ and P·V do not share their batch dimensions";
    return failure();
  }
  return success();
}

/// Only the match may use the intermediates; P (or its views) may also feed
/// the training backward (collected in pReaders, matched later). Constants
/// are not intermediates.
LogicalResult Matcher::checkEscapes(Side &s, std::string &why) {
  for (Operation *op : internal) {
    if (constants.contains(op))
      continue;
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers()) {
        if (internal.contains(user) || user == pv || user == s.normalizer)
          continue;
        bool isScores = op == s.qk.op;
        bool isProbs = llvm::is_contained(op->getResults(), s.p);
        if (isProbs || s.pViews.contains(op)) {
          s.pReaders.insert(user);
          continue;
        }
        why = "'" + describeOp(user) + "' outside the attention also reads " +
              (isScores  ? std::string("the scores (Q Kᵀ)")
               : isProbs ? std::string("the probabilities")
                         : "an intermediate ('" + describeOp(op) + "')");
        return failure();
      }
  }
  return success();
}

/// Q, K, V as the program holds them; constant scalings of Q and K go into
/// the scale.
void Matcher::traceRoots(Side &s, Plan &plan) {
  double scale = plan.scale;
  const Contraction &qk = s.qk;
  auto trace = [&](Value v, const Access &a, double &sc) -> Root {
    auto [root, access] = traceOperand(v, a, atoms, sc);
    return {root, access};
  };
  plan.q = trace(s.kIsLhs ? qk.rhs : qk.lhs,
                 s.kIsLhs ? qk.rhsAccess : qk.lhsAccess, scale);
  plan.k = trace(s.kIsLhs ? qk.lhs : qk.rhs,
                 s.kIsLhs ? qk.lhsAccess : qk.rhsAccess, scale);
  plan.v = traceValueOperand(s.vOperand, s.vAccess, atoms);
  plan.vRead = {s.vOperand, s.vAccess};
  plan.scale = scale;
}

/// Whether `user` is another P·V of the same probabilities: a contraction
/// that reads `p` (through views) and sums over its keys. torch-mlir
/// splits P·[V1 | V2] into P·V1 and P·V2 (DiffLlama); each is raised on its
/// own and P dies with the last. The backward's Pᵀ·dO sums over the rows.
static bool isSiblingValueProduct(Operation *user, Value p,
                                  const Access &pAccess, int keyAtom,
                                  AtomTable &atoms) {
  if (!isContractionOp(user) || user->getNumResults() != 1)
    return false;
  auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
  if (!type)
    return false;
  std::string w;
  FailureOr<Contraction> c = matchContraction(
      user->getResult(0), atoms.freshAccess(type.getShape()), atoms, w);
  if (failed(c))
    return false;
  Access pDims = atoms.leaves(pAccess);
  auto *keyDim = llvm::find_if(
      pDims, [&](const AtomList &d) { return d == AtomList{keyAtom}; });
  if (keyDim == pDims.end())
    return false;
  AtomList reduced = atoms.leaves(c->reduction);
  for (const auto &[operand, access] :
       {std::pair{c->lhs, c->lhsAccess}, std::pair{c->rhs, c->rhsAccess}}) {
    auto [root, rootAccess] = resolveViews(operand, access, atoms, nullptr);
    if (root != p)
      continue;
    AtomList read = atoms.leaves(rootAccess)[keyDim - pDims.begin()];
    if (!read.empty() && sameSet(read, reduced))
      return true;
  }
  return false;
}

LogicalResult Matcher::matchTrainingBackward(Side &s, Plan &plan,
                                             std::string &why) {
  plan.bwd.reset();
  s.pReaders.remove_if([&](Operation *user) {
    return isSiblingValueProduct(user, s.p, s.pAccess, plan.keyAtom, atoms);
  });
  if (s.pReaders.empty())
    return success();
  auto escape = [&](const std::string &reason) {
    why = "'" + describeOp(*s.pReaders.begin()) +
          "' outside the attention also reads the probabilities, and " +
          reason;
    return failure();
  };
  BackwardInput in{s.p,          s.pAccess,     plan.q.value,  plan.k.value,
                   plan.v.value, plan.q.access, plan.k.access, plan.v.access,
                   plan.rowAtom, plan.keyAtom,  plan.dimAtom,  plan.dimVAtom,
                   plan.scale,   s.form.selects};
  std::string whyBwd;
  FailureOr<BackwardMatch> bwd = matchBackward(in, atoms, whyBwd);
  if (failed(bwd))
    return escape("it is not a recognized backward (" + whyBwd + ")");
  for (Operation *user : s.pReaders)
    if (!bwd->ops.contains(user))
      return escape("not only the backward does");
  Operation *outs[] = {bwd->dQ.getDefiningOp(), bwd->dK.getDefiningOp(),
                       bwd->dV.getDefiningOp()};
  for (Operation *op : bwd->ops) {
    if (llvm::is_contained(outs, op) || constants.contains(op))
      continue;
    for (Operation *user : op->getUsers())
      if (!bwd->ops.contains(user) && !internal.contains(user))
        return escape("an intermediate of its backward ('" + describeOp(op) +
                      "') has another user ('" + describeOp(user) + "')");
  }
  // A bias passes the score gradient through unchanged (its own gradient,
  // which the original does not compute, is dropped); a softcap would put
  // its derivative between dS and dS'.
  if (plan.softcap)
    return escape("raising the backward with a softcap is not supported");
  plan.bwd = std::move(*bwd);
  return success();
}

} // namespace

Root mlir::fa::raising::traceValueOperand(Value v, const Access &access,
                                          AtomTable &atoms) {
  double vScale = 1.0;
  auto [root, rootAccess] = traceOperand(v, access, atoms, vScale);
  if (vScale == 1.0)
    return {root, rootAccess};
  // A scaled V scales the output: not an attention parameter.
  auto [vv, va] = resolveViews(v, access, atoms, nullptr);
  return {vv, va};
}

FailureOr<Plan> mlir::fa::raising::matchAttention(Operation *pv,
                                                  AtomTable &atoms,
                                                  std::string &why,
                                                  bool &nearMiss) {
  Matcher m(pv, atoms);
  return m.match(why, nearMiss);
}

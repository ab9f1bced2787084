//===- RaiseAttention.cpp - fa-raise-attention ----------------------------===//
//
// Finds attention written as generic ops and replaces it by fa.attention.
// Anchored on every contraction (the candidate P·V): one of its operands must
// be a softmax (Raising/Softmax.cpp), whose input must be a scaled, biased,
// masked Q Kᵀ (Raising/Score.cpp) over the same keys the P·V contraction
// sums. Q, K and V are then traced up through view ops and scalings to the
// tensors the program really holds, and every dimension is given its role
// (batch, heads, seq_q, seq_k, head_dim) from the atoms that index it
// (Raising/Atoms.cpp). See docs/RaiseAttention.md for the recognized forms
// and the soundness rules.
//
//===----------------------------------------------------------------------===//
#include "Raising/Raising.h"
#include "fa/Dialect/FA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>

namespace mlir::fa {
#define GEN_PASS_DEF_FARAISEATTENTION
#include "fa/Dialect/FA/Transforms/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

namespace {

/// A tensor the program holds and the atoms that index it.
struct Root {
  Value value;
  Access access;
};

/// Everything needed to build the replacement.
struct Plan {
  Operation *pv = nullptr;
  Root q, k, v;
  double scale = 1.0;
  std::optional<double> softcap;
  MaskConfig mask;
  AtomList batchPart, headsPresent, headsMissing;
  int rowAtom = -1, keyAtom = -1, dimAtom = -1, dimVAtom = -1;
  Access outAccess;
  /// The value replaced: P·V's result or the end of its view chain.
  Value finalValue;
  /// The training backward, when P also feeds one.
  std::optional<BackwardMatch> bwd;
  Layout layout = Layout::bhsd;
};

Root traceRoot(Value v, Access access, AtomTable &atoms, double &scale) {
  auto [root, rootAccess] = raising::traceOperand(v, access, atoms, scale);
  return {root, rootAccess};
}

bool sameSet(AtomList a, AtomList b) {
  llvm::sort(a);
  llvm::sort(b);
  return a == b;
}

std::string describeOp(Operation *op) {
  return op->getName().getStringRef().str();
}

LogicalResult treeAtoms(const ExprP &e, const AtomTable &atoms,
                        AtomList &out);
void foldGlue(Value replacement, ArrayRef<Operation *> users);

class Matcher {
public:
  Matcher(Operation *pv) : pv(pv) {}

  /// Matches with `pv` as the P·V contraction. `sawSoftmax` tells whether a
  /// failure is a near miss worth a remark.
  LogicalResult match(Plan &plan, std::string &why, bool &sawSoftmax);

  AtomTable atoms;
  OpSet internal;

private:
  LogicalResult matchSide(unsigned side, const Contraction &cpv, Plan &plan,
                          std::string &why, bool &sawSoftmax);
  Operation *pv;
};

LogicalResult Matcher::match(Plan &plan, std::string &why, bool &sawSoftmax) {
  Value result = pv->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  // Batch, heads and sequence lengths may be dynamic when each dynamic
  // dimension stays one atom (or one dynamic factor of a merged dimension);
  // head dims must be static.
  if (llvm::any_of(pv->getOperandTypes(), [](Type t) {
        return !isa<RankedTensorType>(t);
      }))
    return failure();
  // The output is what the single-use chain of view ops after P·V gives
  // (expand back to [B, H, S, D], transpose to [B, S, H, D], merge heads):
  // replacing that value lets the layout change fold away.
  Value final = result;
  SmallVector<Operation *> outViews;
  while (final.hasOneUse()) {
    Operation *user = *final.getUsers().begin();
    if (!isViewOp(user) || user->getNumResults() != 1 ||
        user->getOperand(0) != final)
      break;
    auto from = cast<RankedTensorType>(final.getType());
    auto to = dyn_cast<RankedTensorType>(user->getResult(0).getType());
    bool sameCount = to && to.hasStaticShape() && from.hasStaticShape() &&
                     to.getNumElements() == from.getNumElements();
    // Without static counts, only ops that cannot broadcast.
    bool reshapeOrTranspose =
        isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
            linalg::TransposeOp>(user);
    if (!to || (!sameCount && !reshapeOrTranspose))
      break;
    outViews.push_back(user);
    final = user->getResult(0);
  }
  Access finalAccess =
      atoms.freshAccess(cast<RankedTensorType>(final.getType()).getShape());
  Access outAccess;
  if (final != result) {
    auto [src, srcAccess] = resolveViews(final, finalAccess, atoms, nullptr);
    if (src == result) {
      outAccess = srcAccess;
    } else {
      final = result;
      outViews.clear();
    }
  }
  if (final == result) {
    finalAccess = atoms.freshAccess(type.getShape());
    outAccess = finalAccess;
  }
  FailureOr<Contraction> cpv = matchContraction(result, outAccess, atoms, why);
  if (failed(cpv)) {
    // A near miss when an operand is a softmax.
    for (Value operand : pv->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(operand.getType());
      if (!t)
        continue;
      OpSet scratch;
      ExprBuilder eb{atoms, &scratch, {}};
      auto [p, pAccess] = resolveViews(
          operand, atoms.freshAccess(t.getShape()), atoms, nullptr);
      std::string ignored;
      if (succeeded(matchSoftmax(p, pAccess, eb, ignored)))
        sawSoftmax = true;
    }
    return failure();
  }
  plan.outAccess = finalAccess;
  plan.finalValue = final;
  plan.pv = pv;
  for (unsigned side = 0; side < 2; ++side) {
    internal.clear();
    std::string whySide;
    bool saw = false;
    if (succeeded(matchSide(side, *cpv, plan, whySide, saw)))
      return success();
    if (saw && !sawSoftmax) {
      sawSoftmax = true;
      why = whySide;
    }
  }
  return failure();
}

LogicalResult Matcher::matchSide(unsigned side, const Contraction &cpv,
                                 Plan &plan, std::string &why,
                                 bool &sawSoftmax) {
  ExprBuilder eb{atoms, &internal, {}};
  Value pOperand = side == 0 ? cpv.lhs : cpv.rhs;
  Value vOperand = side == 0 ? cpv.rhs : cpv.lhs;
  OpSet pViews;
  auto [p, pAccess] = resolveViews(
      pOperand, side == 0 ? cpv.lhsAccess : cpv.rhsAccess, atoms, &pViews);
  internal.insert(pViews.begin(), pViews.end());
  bool nearMiss = false;
  FailureOr<SoftmaxMatch> sm = matchSoftmax(p, pAccess, eb, why, &nearMiss);
  if (failed(sm)) {
    sawSoftmax = nearMiss;
    return failure();
  }
  sawSoftmax = true;
  int key = sm->keyAtom;

  // P·V must sum over the keys.
  AtomList pvRed = atoms.leaves(cpv.reduction);
  if (pvRed.size() != 1 || pvRed[0] != key) {
    why = "P·V sums over a different dimension than the one the softmax "
          "normalizes";
    return failure();
  }

  ScoreForm form;
  if (failed(parseScore(sm->scores, form, eb, why)))
    return failure();
  FailureOr<Contraction> cqk =
      matchContraction(form.qk, form.qkAccess, atoms, why);
  if (failed(cqk))
    return failure();
  internal.insert(cqk->op);

  bool kIsLhs;
  AtomList lhsFree = atoms.leaves(cqk->lhsFree);
  AtomList rhsFree = atoms.leaves(cqk->rhsFree);
  if (rhsFree == AtomList{key})
    kIsLhs = false;
  else if (lhsFree == AtomList{key})
    kIsLhs = true;
  else {
    why = "the softmax does not run over the key dimension of Q Kᵀ";
    return failure();
  }
  AtomList rows = kIsLhs ? rhsFree : lhsFree;
  AtomList dims = atoms.leaves(cqk->reduction);
  if (rows.empty() || dims.size() != 1) {
    why = "Q Kᵀ with a unit or collapsed row or head dimension";
    return failure();
  }
  // Several atoms only Q has (einsum "bhgid,bhjd->bhgij": K read without the
  // GQA group): the one next to the key in the scores is the query row, the
  // others are batch-like atoms that K and V lack (the group).
  AtomList scoreOrder = atoms.flatLeaves(pAccess);
  int row = rows.front();
  for (int a : scoreOrder)
    if (llvm::is_contained(rows, a))
      row = a;
  AtomList extras;
  for (int a : rows)
    if (a != row)
      extras.push_back(a);
  AtomList pFree = atoms.leaves(side == 0 ? cpv.lhsFree : cpv.rhsFree);
  AtomList vFree = atoms.leaves(side == 0 ? cpv.rhsFree : cpv.lhsFree);
  if (!sameSet(pFree, rows)) {
    why = "the P·V contraction keeps a dimension other than the query rows";
    return failure();
  }
  if (vFree.size() != 1) {
    why = "P·V with a unit or collapsed value head dimension";
    return failure();
  }

  // exp(x - max) unnormalized: P·V must be divided by the row sum of the
  // same exponentials, right after.
  Operation *normalizer = nullptr;
  if (sm->deferredExp) {
    Value o = pv->getResult(0);
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
    if (t->kind == Expr::Div) {
      quotient = t->ops[0];
      rowSum = t->ops[1];
    } else if (t->kind == Expr::Mul) {
      for (unsigned i = 0; i < 2 && !rowSum; ++i) {
        ExprP r = eb.deref(t->ops[i]);
        if (r->kind == Expr::Recip) {
          rowSum = r->ops[0];
          quotient = t->ops[1 - i];
        }
      }
    }
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
        llvm::is_contained(rowLeaves, vFree[0]) ||
        !llvm::all_of(rowLeaves, [&](int a) {
          return llvm::is_contained(outLeaves, a);
        }))
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
    if (!exprEqual(summed, sm->deferredExp, atoms, eb,
                   {{sum->reducedAtom, key}}))
      return failure();
    normalizer = d;
    internal.erase(d); // its result is the output
    plan.finalValue = d->getResult(0);
    why.clear();
  }

  // Batch atoms agree everywhere.
  AtomList batchQK = extras, batchPV = extras;
  for (const AtomList &l : cqk->batch)
    for (int a : atoms.leaves(l))
      batchQK.push_back(a);
  for (const AtomList &l : cpv.batch)
    for (int a : atoms.leaves(l))
      batchPV.push_back(a);
  AtomList scoreAtoms = atoms.flatLeaves(pAccess);
  AtomList expected = batchQK;
  expected.push_back(row);
  expected.push_back(key);
  if (!sameSet(batchQK, batchPV) || !sameSet(scoreAtoms, expected)) {
    why = "Q Kᵀ and P·V do not share their batch dimensions";
    return failure();
  }

  // Only the match may use the intermediates; P (or its views) may also
  // feed the training backward, matched below.
  OpSet pReaders;
  for (Operation *op : internal)
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (!internal.contains(user) && user != pv && user != normalizer) {
          bool isScores = op == cqk->op;
          bool isProbs = llvm::is_contained(op->getResults(), p);
          if (isProbs || pViews.contains(op)) {
            pReaders.insert(user);
            continue;
          }
          why = "'" + describeOp(user) +
                "' outside the attention also reads " +
                (isScores  ? std::string("the scores (Q Kᵀ)")
                 : isProbs ? std::string("the probabilities")
                           : "an intermediate ('" + describeOp(op) + "')");
          return failure();
        }

  // Q, K, V as the program holds them.
  double scale = form.scale;
  plan.q = traceRoot(kIsLhs ? cqk->rhs : cqk->lhs,
                        kIsLhs ? cqk->rhsAccess : cqk->lhsAccess, atoms, scale);
  plan.k = traceRoot(kIsLhs ? cqk->lhs : cqk->rhs,
                        kIsLhs ? cqk->lhsAccess : cqk->rhsAccess, atoms, scale);
  double unused = 1.0;
  plan.v = traceRoot(vOperand, side == 0 ? cpv.rhsAccess : cpv.lhsAccess,
                        atoms, unused);
  if (unused != 1.0) {
    // A scaled V scales the output: not an attention parameter.
    auto [vv, va] = resolveViews(
        vOperand, side == 0 ? cpv.rhsAccess : cpv.lhsAccess, atoms, nullptr);
    plan.v = {vv, va};
  }
  plan.scale = scale;
  plan.softcap = form.softcap;
  plan.rowAtom = row;
  plan.keyAtom = key;
  plan.dimAtom = dims[0];
  plan.dimVAtom = vFree[0];

  if (ShapedType::isDynamic(atoms.size(dims[0])) ||
      ShapedType::isDynamic(atoms.size(vFree[0]))) {
    why = "dynamic head dims are not supported";
    return failure();
  }

  // Tracing may have split atoms (a head atom into kv heads x group).
  batchQK = atoms.leaves(batchQK);

  // Roles of the batch atoms: which are heads, which are the GQA group.
  AtomList qLeaves = atoms.flatLeaves(plan.q.access);
  AtomList kLeaves = atoms.flatLeaves(plan.k.access);
  AtomList vLeaves = atoms.flatLeaves(plan.v.access);
  AtomList qExpected = batchQK;
  qExpected.push_back(row);
  qExpected.push_back(dims[0]);
  if (!sameSet(qLeaves, qExpected)) {
    why = "Q is broadcast along a batch or head dimension";
    return failure();
  }
  AtomList batchOrder; // batch atoms in Q's order
  for (int a : qLeaves)
    if (a != row && a != dims[0])
      batchOrder.push_back(a);
  auto kvBatch = [&](const AtomList &leaves, int x, int y,
                     AtomList &out) -> bool {
    for (int a : leaves) {
      if (a == x || a == y)
        continue;
      if (!llvm::is_contained(batchOrder, a))
        return false;
      out.push_back(a);
    }
    return llvm::is_contained(leaves, x) && llvm::is_contained(leaves, y);
  };
  AtomList kBatch, vBatch;
  if (!kvBatch(kLeaves, key, dims[0], kBatch) ||
      !kvBatch(vLeaves, key, vFree[0], vBatch)) {
    why = "K or V is not indexed by the keys and the head dimension";
    return failure();
  }
  if (!sameSet(kBatch, vBatch)) {
    why = "K and V are broadcast differently";
    return failure();
  }
  plan.batchPart.clear();
  plan.headsPresent.clear();
  plan.headsMissing.clear();
  // The batch is what Q holds in a dimension of its own before the heads;
  // when Q has a single dimension of batch atoms ([B*H] or [H] with B = 1)
  // the batch is 1.
  SmallVector<AtomList> qBatchDims;
  for (const AtomList &l : atoms.leaves(plan.q.access)) {
    AtomList b;
    for (int a : l)
      if (llvm::is_contained(batchOrder, a))
        b.push_back(a);
    if (!b.empty())
      qBatchDims.push_back(b);
  }
  if (qBatchDims.size() >= 2)
    plan.batchPart = qBatchDims.front();
  for (int a : batchOrder) {
    if (llvm::is_contained(plan.batchPart, a))
      continue;
    (llvm::is_contained(kBatch, a) ? plan.headsPresent : plan.headsMissing)
        .push_back(a);
  }
  for (int a : plan.batchPart)
    if (!llvm::is_contained(kBatch, a)) {
      why = "K and V are shared across the batch";
      return failure();
    }

  // Masks and biases.
  if (failed(analyzeMasks(form, row, key, atoms.size(row), atoms.size(key),
                          atoms, plan.mask, why)))
    return failure();
  if (plan.mask.bias || plan.mask.biasExpr) {
    AtomList b;
    if (plan.mask.bias)
      b = atoms.flatLeaves(plan.mask.biasAccess);
    else if (failed(treeAtoms(plan.mask.biasExpr, atoms, b))) {
      why = "a bias computed from tensors read in an unsupported way";
      return failure();
    }
    auto has = [&](const AtomList &l) {
      return llvm::all_of(l, [&](int a) { return llvm::is_contained(b, a); });
    };
    auto none = [&](const AtomList &l) {
      return llvm::none_of(l, [&](int a) { return llvm::is_contained(b, a); });
    };
    AtomList heads = plan.headsPresent;
    heads.append(plan.headsMissing);
    AtomList allowed = batchOrder;
    allowed.push_back(row);
    allowed.push_back(key);
    if (!(has(plan.batchPart) || none(plan.batchPart)) ||
        !(has(heads) || none(heads)) ||
        !llvm::all_of(b, [&](int a) { return llvm::is_contained(allowed, a); })) {
      why = "the bias is not [batch|1, heads|1, seq_q, seq_k]";
      return failure();
    }
  }

  plan.bwd.reset();
  if (!pReaders.empty()) {
    auto escape = [&](const std::string &reason) {
      why = "'" + describeOp(*pReaders.begin()) +
            "' outside the attention also reads the probabilities, and " +
            reason;
      return failure();
    };
    BackwardInput in{p,           pAccess,         plan.q.value,
                     plan.k.value, plan.v.value,   plan.q.access,
                     plan.k.access, plan.v.access, row,
                     key,          dims[0],        vFree[0],
                     scale,        form.selects};
    std::string whyBwd;
    FailureOr<BackwardMatch> bwd = matchBackward(in, atoms, whyBwd);
    if (failed(bwd))
      return escape("it is not a recognized backward (" + whyBwd + ")");
    for (Operation *user : pReaders)
      if (!bwd->ops.contains(user))
        return escape("not only the backward does");
    Operation *outs[] = {bwd->dQ.getDefiningOp(), bwd->dK.getDefiningOp(),
                         bwd->dV.getDefiningOp()};
    for (Operation *op : bwd->ops) {
      if (llvm::is_contained(outs, op))
        continue;
      for (Operation *user : op->getUsers())
        if (!bwd->ops.contains(user) && !internal.contains(user))
          return escape("an intermediate of its backward ('" +
                        describeOp(op) + "') has another user ('" +
                        describeOp(user) + "')");
    }
    // A bias passes the score gradient through unchanged (its own gradient,
    // which the original does not compute, is dropped); a softcap would
    // put its derivative between dS and dS'.
    if (plan.softcap)
      return escape("raising the backward with a softcap is not supported");
    plan.bwd = std::move(*bwd);
  }

  // bshd when every operand already is.
  auto isBshd = [&](const Root &r, const AtomList &heads, int seq, int d) {
    AtomList want = plan.batchPart;
    want.push_back(seq);
    want.append(heads);
    want.push_back(d);
    return atoms.flatLeaves(r.access) == want;
  };
  AtomList allHeads = plan.headsPresent;
  allHeads.append(plan.headsMissing);
  auto isBhsd = [&](const Root &r, const AtomList &heads, int seq, int d) {
    AtomList want = plan.batchPart;
    want.append(heads);
    want.push_back(seq);
    want.push_back(d);
    return atoms.flatLeaves(r.access) == want;
  };
  bool bhsd = isBhsd(plan.q, allHeads, row, dims[0]) &&
              isBhsd(plan.k, plan.headsPresent, key, dims[0]) &&
              isBhsd(plan.v, plan.headsPresent, key, vFree[0]);
  plan.layout = !bhsd && isBshd(plan.q, allHeads, row, dims[0]) &&
                        isBshd(plan.k, plan.headsPresent, key, dims[0]) &&
                        isBshd(plan.v, plan.headsPresent, key, vFree[0])
                    ? Layout::bshd
                    : Layout::bhsd;
  return success();
}

/// [batch, heads, seq, dim] atoms in the plan's layout.
Access layoutAccess(const Plan &plan, const AtomList &heads, int seq, int d) {
  if (plan.layout == Layout::bshd)
    return {plan.batchPart, {seq}, heads, {d}};
  return {plan.batchPart, heads, {seq}, {d}};
}

Value convertElementType(ImplicitLocOpBuilder &b, Value v, Type to) {
  auto t = cast<RankedTensorType>(v.getType());
  Type from = t.getElementType();
  if (from == to)
    return v;
  unsigned rank = t.getRank();
  Value init = tensor::EmptyOp::create(
      b, tensor::getMixedSizes(b, b.getLoc(), v), to);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> its(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, init.getType(), ValueRange{v}, ValueRange{init}, maps, its,
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               Value x = args[0];
               if (cast<FloatType>(from).getWidth() <
                   cast<FloatType>(to).getWidth())
                 x = arith::ExtFOp::create(nb, loc, to, x);
               else
                 x = arith::TruncFOp::create(nb, loc, to, x);
               linalg::YieldOp::create(nb, loc, x);
             })
      .getResult(0);
}

/// A boolean visibility tensor as an additive 0 / -inf f32 bias.
Value boolToBias(ImplicitLocOpBuilder &b, Value v, bool visibleWhenTrue) {
  auto t = cast<RankedTensorType>(v.getType());
  unsigned rank = t.getRank();
  Value init = tensor::EmptyOp::create(
      b, tensor::getMixedSizes(b, b.getLoc(), v), b.getF32Type());
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> its(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, init.getType(), ValueRange{v}, ValueRange{init}, maps, its,
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               Value zero = arith::ConstantOp::create(
                   nb, loc, nb.getF32FloatAttr(0.0));
               Value ninf = arith::ConstantOp::create(
                   nb, loc,
                   nb.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
               Value r = visibleWhenTrue
                             ? arith::SelectOp::create(nb, loc, args[0], zero,
                                                       ninf)
                             : arith::SelectOp::create(nb, loc, args[0], ninf,
                                                       zero);
               linalg::YieldOp::create(nb, loc, r);
             })
      .getResult(0);
}

/// [b, h, 1|sq, 1|sk] -> [b, h, sq, sk]: a padding mask repeated on rows.
Value broadcastSeq(ImplicitLocOpBuilder &b, Value v, int64_t seqQ,
                   int64_t seqK) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  shape[2] = seqQ;
  shape[3] = seqK;
  Value init = tensor::EmptyOp::create(b, shape, t.getElementType());
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> in;
  for (unsigned i = 0; i < 4; ++i)
    in.push_back(t.getDimSize(i) == 1 && shape[i] != 1
                     ? getAffineConstantExpr(0, ctx)
                     : getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, in, ctx),
                                 b.getMultiDimIdentityMap(4)};
  SmallVector<utils::IteratorType> its(4, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, init.getType(), ValueRange{v}, ValueRange{init}, maps, its,
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               linalg::YieldOp::create(nb, loc, args[0]);
             })
      .getResult(0);
}

/// The leaf atoms a tree reads; every tensor dimension it reads must be
/// indexed by one atom or be a unit dimension.
LogicalResult treeAtoms(const ExprP &e, const AtomTable &atoms,
                        AtomList &out) {
  if (e->kind == Expr::Index || e->kind == Expr::Unknown)
    return failure();
  if (e->kind == Expr::Leaf) {
    for (const AtomList &l : atoms.leaves(e->access)) {
      if (l.size() > 1)
        return failure();
      if (l.size() == 1 && !llvm::is_contained(out, l[0]))
        out.push_back(l[0]);
    }
    return success();
  }
  for (const ExprP &o : e->ops)
    if (failed(treeAtoms(o, atoms, out)))
      return failure();
  return success();
}

/// Emits the scalar computation of a bias tree in f32; leaves are the
/// block arguments in `leaves` order.
Value emitTree(OpBuilder &b, Location loc, const ExprP &e,
               ArrayRef<const Expr *> leaves, ValueRange args) {
  auto sub = [&](unsigned i) { return emitTree(b, loc, e->ops[i], leaves, args); };
  Type f32 = b.getF32Type();
  switch (e->kind) {
  case Expr::Leaf: {
    Value v = args[llvm::find(leaves, e.get()) - leaves.begin()];
    if (isa<FloatType>(v.getType()) && !v.getType().isF32())
      v = arith::ExtFOp::create(b, loc, f32, v);
    return v;
  }
  case Expr::Const:
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(e->fval));
  case Expr::IConst:
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(e->ival != 0));
  case Expr::Add:
    return arith::AddFOp::create(b, loc, sub(0), sub(1));
  case Expr::Sub:
    return arith::SubFOp::create(b, loc, sub(0), sub(1));
  case Expr::Mul:
    return arith::MulFOp::create(b, loc, sub(0), sub(1));
  case Expr::Div:
    return arith::DivFOp::create(b, loc, sub(0), sub(1));
  case Expr::Max:
    return arith::MaximumFOp::create(b, loc, sub(0), sub(1));
  case Expr::Neg:
    return arith::NegFOp::create(b, loc, sub(0));
  case Expr::Recip:
    return arith::DivFOp::create(
        b, loc, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0)),
        sub(0));
  case Expr::ExtF:
  case Expr::TruncF:
    return sub(0);
  case Expr::Select:
    return arith::SelectOp::create(b, loc, sub(0), sub(1), sub(2));
  case Expr::CmpF:
    return arith::CmpFOp::create(
        b, loc, static_cast<arith::CmpFPredicate>(e->pred), sub(0), sub(1));
  case Expr::And:
    return arith::AndIOp::create(b, loc, sub(0), sub(1));
  case Expr::Or:
    return arith::OrIOp::create(b, loc, sub(0), sub(1));
  case Expr::Xor:
    return arith::XOrIOp::create(b, loc, sub(0), sub(1));
  default:
    return nullptr;
  }
}

bool emittable(const ExprP &e) {
  switch (e->kind) {
  case Expr::Leaf:
  case Expr::Const:
  case Expr::IConst:
  case Expr::Add: case Expr::Sub: case Expr::Mul: case Expr::Div:
  case Expr::Max: case Expr::Neg: case Expr::Recip: case Expr::ExtF:
  case Expr::TruncF: case Expr::Select: case Expr::CmpF: case Expr::And:
  case Expr::Or: case Expr::Xor:
    return llvm::all_of(e->ops, emittable);
  default:
    return false;
  }
}

void collectLeaves(const ExprP &e, SmallVectorImpl<const Expr *> &out) {
  if (e->kind == Expr::Leaf) {
    out.push_back(e.get());
    return;
  }
  for (const ExprP &o : e->ops)
    collectLeaves(o, out);
}

/// Rebuilds a bias tree as a [batch|1, heads|1, seq_q, seq_k] f32 tensor.
FailureOr<Value> materializeBias(ImplicitLocOpBuilder &b, const Plan &plan,
                                 const AtomTable &atoms) {
  const ExprP &e = plan.mask.biasExpr;
  AtomList used;
  if (!emittable(e) || failed(treeAtoms(e, atoms, used)))
    return failure();
  AtomList allHeads = plan.headsPresent;
  allHeads.append(plan.headsMissing);
  AtomList loops;
  Access groups(4);
  for (int a : plan.batchPart)
    if (llvm::is_contained(used, a)) {
      loops.push_back(a);
      groups[0].push_back(a);
    }
  for (int a : allHeads)
    if (llvm::is_contained(used, a)) {
      loops.push_back(a);
      groups[1].push_back(a);
    }
  loops.push_back(plan.rowAtom);
  loops.push_back(plan.keyAtom);
  groups[2] = {plan.rowAtom};
  groups[3] = {plan.keyAtom};
  SmallVector<const Expr *> leaves;
  collectLeaves(e, leaves);
  MLIRContext *ctx = b.getContext();
  unsigned n = loops.size();
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  for (const Expr *l : leaves) {
    SmallVector<AffineExpr> exprs;
    for (const AtomList &dim : atoms.leaves(l->access))
      exprs.push_back(dim.empty()
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(llvm::find(loops, dim[0]) -
                                                 loops.begin(),
                                             ctx));
    ins.push_back(l->value);
    maps.push_back(AffineMap::get(n, 0, exprs, ctx));
  }
  SmallVector<int64_t> shape;
  Access loopAccess;
  for (int a : loops) {
    shape.push_back(atoms.size(a));
    loopAccess.push_back({a});
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(n, ctx));
  Value init = tensor::EmptyOp::create(b, shape, b.getF32Type());
  SmallVector<utils::IteratorType> its(n, utils::IteratorType::parallel);
  bool ok = true;
  Value t = linalg::GenericOp::create(
                b, init.getType(), ins, ValueRange{init}, maps, its,
                [&](OpBuilder &nb, Location loc, ValueRange args) {
                  Value r = emitTree(nb, loc, e, leaves, args.drop_back());
                  if (!r || !r.getType().isF32()) {
                    ok = false;
                    r = arith::ConstantOp::create(nb, loc,
                                                  nb.getF32FloatAttr(0));
                  }
                  linalg::YieldOp::create(nb, loc, r);
                })
                .getResult(0);
  if (!ok)
    return failure();
  return rearrange(b, t, loopAccess, groups, atoms);
}

bool isAttentionFloat(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

FailureOr<Value> build(const Plan &plan, AtomTable &atoms, RewriterBase &rw,
                       std::string &why, std::string &summary,
                       SmallVectorImpl<Operation *> &backwardRoots) {
  Value result = plan.finalValue;
  Type outElt = getElementTypeOrSelf(result.getType());
  Type qt = getElementTypeOrSelf(plan.q.value.getType());
  Type kt = getElementTypeOrSelf(plan.k.value.getType());
  Type vt = getElementTypeOrSelf(plan.v.value.getType());
  for (Type t : {qt, kt, vt, outElt})
    if (!isAttentionFloat(t)) {
      why = "element types other than f32, f16, bf16";
      return failure();
    }
  Type elt = (qt == kt && kt == vt && vt == outElt) ? qt : rw.getF32Type();
  if (!std::isfinite(plan.scale) || plan.scale == 0.0) {
    why = "the scale is zero or not finite";
    return failure();
  }

  rw.setInsertionPoint(plan.pv);
  ImplicitLocOpBuilder b(plan.pv->getLoc(), rw);
  AtomList allHeads = plan.headsPresent;
  allHeads.append(plan.headsMissing);
  auto operand = [&](const Root &r, const AtomList &heads, int seq,
                     int d) -> FailureOr<Value> {
    FailureOr<Value> v = rearrange(b, r.value, r.access,
                                   layoutAccess(plan, heads, seq, d), atoms);
    if (failed(v))
      return failure();
    return convertElementType(b, *v, elt);
  };
  FailureOr<Value> q = operand(plan.q, allHeads, plan.rowAtom, plan.dimAtom);
  FailureOr<Value> k =
      operand(plan.k, plan.headsPresent, plan.keyAtom, plan.dimAtom);
  FailureOr<Value> v =
      operand(plan.v, plan.headsPresent, plan.keyAtom, plan.dimVAtom);
  if (failed(q) || failed(k) || failed(v)) {
    why = "Q, K or V cannot be rearranged into the attention layout";
    return failure();
  }
  Value bias;
  if (plan.mask.biasExpr) {
    FailureOr<Value> bv = materializeBias(b, plan, atoms);
    if (failed(bv)) {
      why = "the bias cannot be rebuilt as a tensor";
      return failure();
    }
    bias = *bv;
  } else if (plan.mask.bias) {
    AtomList b0 = atoms.flatLeaves(plan.mask.biasAccess);
    auto present = [&](const AtomList &l) -> AtomList {
      return !l.empty() && llvm::is_contained(b0, l[0]) ? l : AtomList{};
    };
    AtomList rowL = present({plan.rowAtom}), keyL = present({plan.keyAtom});
    Access dst = {present(plan.batchPart), present(allHeads), rowL, keyL};
    FailureOr<Value> bv =
        rearrange(b, plan.mask.bias, plan.mask.biasAccess, dst, atoms);
    if (failed(bv)) {
      why = "the bias cannot be rearranged to [batch|1, heads|1, seq_q, seq_k]";
      return failure();
    }
    bias = *bv;
    if (rowL.empty() || keyL.empty()) {
      if (ShapedType::isDynamic(atoms.size(plan.rowAtom)) ||
          ShapedType::isDynamic(atoms.size(plan.keyAtom))) {
        why = "a bias broadcast along a dynamic sequence";
        return failure();
      }
      bias = broadcastSeq(b, bias, atoms.size(plan.rowAtom),
                          atoms.size(plan.keyAtom));
    }
    if (plan.mask.biasIsBoolean)
      bias = boolToBias(b, bias, plan.mask.boolVisibleWhenTrue);
    Type bt = getElementTypeOrSelf(bias.getType());
    if (!isAttentionFloat(bt)) {
      why = "a bias of element type other than f32, f16, bf16";
      return failure();
    }
    if (bt != elt && !bt.isF32())
      bias = convertElementType(b, bias, rw.getF32Type());
  }

  Access outLayout = layoutAccess(plan, allHeads, plan.rowAtom, plan.dimVAtom);
  SmallVector<int64_t> outShape;
  for (const AtomList &l : outLayout)
    outShape.push_back(atoms.size(l));
  auto outType = RankedTensorType::get(outShape, elt);
  const MaskConfig &m = plan.mask;
  MaskAlignmentAttr align;
  if (m.bottomRight)
    align = MaskAlignmentAttr::get(b.getContext(), MaskAlignment::bottom_right);
  DenseI64ArrayAttr window;
  if (m.window)
    window = b.getDenseI64ArrayAttr({m.window->first, m.window->second});
  Operation *gradAt = nullptr;
  Type lseType;
  if (plan.bwd) {
    // The gradient op goes before the first gradient contraction, which
    // must come after the forward's output.
    for (Value g : {plan.bwd->dQ, plan.bwd->dK, plan.bwd->dV}) {
      Operation *op = g.getDefiningOp();
      if (op->getBlock() != plan.pv->getBlock()) {
        why = "the backward is in another block than the forward";
        return failure();
      }
      if (!gradAt || op->isBeforeInBlock(gradAt))
        gradAt = op;
    }
    if (!plan.pv->isBeforeInBlock(gradAt)) {
      why = "the backward starts before the forward's output";
      return failure();
    }
    lseType = RankedTensorType::get(
        {atoms.size(plan.batchPart), atoms.size(allHeads),
         atoms.size(plan.rowAtom)},
        rw.getF32Type());
  }
  auto attn = AttentionOp::create(
      b, outType, lseType, *q, *k, *v, bias, Value(), Value(), Value(),
      plan.layout, b.getF32FloatAttr(plan.scale), m.causal, align, window,
      plan.softcap ? b.getF32FloatAttr(*plan.softcap) : FloatAttr());
  if (failed(mlir::verify(attn))) {
    rw.eraseOp(attn);
    why = "the raised op does not verify";
    return failure();
  }
  FailureOr<Value> out =
      rearrange(b, attn.getOutput(), outLayout, plan.outAccess, atoms);
  if (failed(out)) {
    why = "the output cannot be rearranged back";
    return failure();
  }
  Value o = convertElementType(b, *out, outElt);
  if (o.getType() != result.getType())
    o = tensor::CastOp::create(b, result.getType(), o);

  if (plan.bwd) {
    const BackwardMatch &g = *plan.bwd;
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(gradAt);
    ImplicitLocOpBuilder gb(gradAt->getLoc(), rw);
    FailureOr<Value> dO = rearrange(
        gb, g.dO, g.dOAccess,
        layoutAccess(plan, allHeads, plan.rowAtom, plan.dimVAtom), atoms);
    if (failed(dO)) {
      why = "dO cannot be rearranged into the attention layout";
      return failure();
    }
    Value dOv = convertElementType(gb, *dO, elt);
    auto grad = AttentionGradOp::create(
        gb, q->getType(), k->getType(), v->getType(),
        bias ? bias.getType() : Type(), dOv, *q, *k, *v, attn.getOutput(),
        attn.getLse(), bias, plan.layout,
        gb.getF32FloatAttr(plan.scale), m.causal, align, window,
        plan.softcap ? gb.getF32FloatAttr(*plan.softcap) : FloatAttr());
    if (failed(mlir::verify(grad))) {
      why = "the raised gradient op does not verify";
      return failure();
    }
    struct {
      Value from;
      Value old;
      Access oldAccess;
      Access layout;
    } grads[] = {
        {grad.getGradQuery(), g.dQ, g.dQAccess,
         layoutAccess(plan, allHeads, plan.rowAtom, plan.dimAtom)},
        {grad.getGradKey(), g.dK, g.dKAccess,
         layoutAccess(plan, plan.headsPresent, plan.keyAtom, plan.dimAtom)},
        {grad.getGradValue(), g.dV, g.dVAccess,
         layoutAccess(plan, plan.headsPresent, plan.keyAtom, plan.dimVAtom)}};
    for (auto &gr : grads) {
      FailureOr<Value> r =
          rearrange(gb, gr.from, gr.layout, gr.oldAccess, atoms);
      if (failed(r)) {
        why = "a gradient cannot be rearranged back";
        return failure();
      }
      Value nv = convertElementType(gb, *r, getElementTypeOrSelf(gr.old));
      if (nv.getType() != gr.old.getType())
        nv = tensor::CastOp::create(gb, gr.old.getType(), nv);
      SmallVector<Operation *> users(gr.old.getUsers());
      rw.replaceAllUsesWith(gr.old, nv);
      backwardRoots.push_back(gr.old.getDefiningOp());
      foldGlue(nv, users);
    }
  }

  llvm::raw_string_ostream os(summary);
  os << (plan.layout == Layout::bshd ? "bshd" : "bhsd") << ", "
     << atoms.size(allHeads) << " query heads / "
     << atoms.size(plan.headsPresent) << " kv heads, scale " << plan.scale;
  if (plan.softcap)
    os << ", softcap " << *plan.softcap;
  if (!m.summary.empty())
    os << ", " << m.summary;
  if (elt != outElt || elt != getElementTypeOrSelf(plan.q.value.getType()))
    os << ", computed in " << elt;
  if (plan.bwd)
    os << "; backward raised to fa.attention_grad";
  return o;
}

/// Erases `op` and then whatever became dead because of it.
void eraseDeadFrom(Operation *root, RewriterBase &rw) {
  SmallVector<Operation *> worklist = {root};
  llvm::SmallPtrSet<Operation *, 32> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    // Operands, and values the op's regions capture (body constants).
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && !op->isAncestor(def))
          worklist.push_back(def);
    });
    // Ops nested in regions (linalg bodies) go with their parent.
    erased.insert(op);
    rw.eraseOp(op);
  }
}

/// Folds the reshapes and transposes that connect fa.attention to its
/// surroundings with the view ops the original program had there
/// (collapse-then-expand pairs, transposes of transposes).
void foldGlue(Value replacement, ArrayRef<Operation *> users) {
  MLIRContext *ctx = replacement.getContext();
  SmallVector<Operation *> ops(users);
  for (Value v = replacement; Operation *def = v.getDefiningOp();) {
    if (isa<AttentionOp>(def))
      break;
    ops.push_back(def);
    if (def->getNumOperands() == 0)
      break;
    v = def->getOperand(0);
  }
  RewritePatternSet patterns(ctx);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::TransposeOp::getCanonicalizationPatterns(patterns, ctx);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

struct FARaiseAttentionPass
    : public fa::impl::FARaiseAttentionBase<FARaiseAttentionPass> {
  void runOnOperation() override {
    IRRewriter rw(&getContext());
    llvm::SmallPtrSet<Operation *, 8> reported;
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<Operation *> candidates;
      getOperation()->walk([&](Operation *op) {
        if (isContractionOp(op) && !reported.contains(op))
          candidates.push_back(op);
      });
      for (Operation *pv : candidates) {
        Matcher matcher(pv);
        Plan plan;
        std::string why;
        bool sawSoftmax = false;
        if (failed(matcher.match(plan, why, sawSoftmax))) {
          reported.insert(pv);
          if (sawSoftmax)
            pv->emitRemark() << "attention not raised: " << why;
          continue;
        }
        std::string summary;
        SmallVector<Operation *> backwardRoots;
        FailureOr<Value> replacement =
            build(plan, matcher.atoms, rw, why, summary, backwardRoots);
        if (failed(replacement)) {
          reported.insert(pv);
          pv->emitRemark() << "attention not raised: " << why;
          continue;
        }
        pv->emitRemark() << "raised to fa.attention (" << summary << ")";
        SmallVector<Operation *> glue;
        for (Operation *user : plan.finalValue.getUsers())
          glue.push_back(user);
        Operation *finalOp = plan.finalValue.getDefiningOp();
        rw.replaceAllUsesWith(plan.finalValue, *replacement);
        eraseDeadFrom(finalOp, rw);
        for (Operation *op : backwardRoots)
          eraseDeadFrom(op, rw);
        foldGlue(*replacement, glue);
        changed = true;
        break;
      }
    }
  }
};

} // namespace

//===- Contraction.cpp - Contractions and row reductions ------------------===//
//
// Q Kᵀ and P V come as linalg.matmul, linalg.batch_matmul, contraction
// generics or tosa.matmul; the row max and row sum as reduction generics
// (the max possibly with a second, argmax result), linalg.reduce or
// tosa.reduce_max / reduce_sum. Each is read as loops with atoms.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace mlir::fa::raising;

bool mlir::fa::raising::isContractionOp(Operation *op) {
  if (isa_and_nonnull<tosa::MatMulOp>(op))
    return true;
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         linalgOp.getNumDpsInputs() == 2 && linalgOp.getNumDpsInits() == 1 &&
         linalg::isaContractionOpInterface(linalgOp);
}

FailureOr<Contraction>
mlir::fa::raising::matchContraction(Value result, const Access &access,
                                    AtomTable &atoms, std::string &why) {
  Operation *op = result.getDefiningOp();
  if (!isContractionOp(op)) {
    why = "the scores do not come from a contraction";
    return failure();
  }
  Contraction c;
  c.op = op;
  c.result = result;
  if (auto mm = dyn_cast<tosa::MatMulOp>(op)) {
    for (Value zp : {mm.getAZp(), mm.getBZp()})
      if (splatValue(zp) != 0.0) {
        why = "tosa.matmul with a non-zero zero point";
        return failure();
      }
    auto a = cast<RankedTensorType>(mm.getA().getType());
    if (a.isDynamicDim(2)) {
      why = "dynamic contraction size";
      return failure();
    }
    AtomList k = a.getDimSize(2) == 1 ? AtomList{}
                                      : AtomList{atoms.fresh(a.getDimSize(2))};
    c.lhs = mm.getA();
    c.rhs = mm.getB();
    c.batch = {access[0]};
    c.lhsFree = access[1];
    c.rhsFree = access[2];
    c.reduction = k;
    c.lhsAccess = {access[0], access[1], k};
    c.rhsAccess = {access[0], k, access[2]};
    return c;
  }
  auto linalgOp = cast<linalg::LinalgOp>(op);
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(linalgOp);
  if (failed(dims) || dims->m.empty() || dims->n.empty() ||
      dims->k.size() != 1) {
    why = "a contraction without rows, without columns or with more than "
          "one reduction dimension";
    return failure();
  }
  std::optional<double> init = splatValue(linalgOp.getDpsInits()[0]);
  if (!init || *init != 0.0) {
    why = "a contraction that accumulates into a non-zero tensor";
    return failure();
  }
  FailureOr<SmallVector<AtomList>> loops = loopAtoms(linalgOp, 0, access, atoms);
  if (failed(loops)) {
    why = "a contraction with a non-permutation output map";
    return failure();
  }
  OpOperand *lhs = linalgOp.getDpsInputOperand(0);
  OpOperand *rhs = linalgOp.getDpsInputOperand(1);
  FailureOr<Access> la =
      operandAccess(linalgOp.getMatchingIndexingMap(lhs), *loops);
  FailureOr<Access> ra =
      operandAccess(linalgOp.getMatchingIndexingMap(rhs), *loops);
  if (failed(la) || failed(ra)) {
    why = "a contraction with non-permutation operand maps";
    return failure();
  }
  c.lhs = lhs->get();
  c.rhs = rhs->get();
  c.lhsAccess = *la;
  c.rhsAccess = *ra;
  for (unsigned b : dims->batch)
    c.batch.push_back((*loops)[b]);
  // Several free loops on a side (a broadcast GQA group next to the rows)
  // are concatenated; the caller sorts out their roles.
  for (unsigned m : dims->m)
    c.lhsFree.append((*loops)[m].begin(), (*loops)[m].end());
  for (unsigned n : dims->n)
    c.rhsFree.append((*loops)[n].begin(), (*loops)[n].end());
  c.reduction = (*loops)[dims->k[0]];
  return c;
}

/// Whether `s` combines `acc` with something the way `kind` does; returns
/// the something.
static Value combinedOperand(Value s, Value acc, ReductionKind kind) {
  Operation *op = s.getDefiningOp();
  if (!op)
    return nullptr;
  auto other = [&](Value a, Value b) -> Value {
    if (a == acc)
      return b;
    if (b == acc)
      return a;
    return nullptr;
  };
  if (kind == ReductionKind::Sum) {
    if (auto add = dyn_cast<arith::AddFOp>(op))
      return other(add.getLhs(), add.getRhs());
    return nullptr;
  }
  if (kind == ReductionKind::All) {
    if (auto andOp = dyn_cast<arith::AndIOp>(op))
      return other(andOp.getLhs(), andOp.getRhs());
    return nullptr;
  }
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return other(op->getOperand(0), op->getOperand(1));
  // select(x > acc, x, acc), as in argmax bodies.
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    auto cmp = sel.getCondition().getDefiningOp<arith::CmpFOp>();
    if (!cmp || sel.getFalseValue() != acc)
      return nullptr;
    using P = arith::CmpFPredicate;
    P p = cmp.getPredicate();
    bool greater = p == P::OGT || p == P::OGE || p == P::UGT || p == P::UGE;
    if (greater && cmp.getLhs() == sel.getTrueValue() && cmp.getRhs() == acc)
      return sel.getTrueValue();
    return nullptr;
  }
  return nullptr;
}

FailureOr<Reduction>
mlir::fa::raising::matchReduction(Value result, const Access &access,
                                  ReductionKind kind, ExprBuilder &eb,
                                  std::string &why) {
  const char *name = kind == ReductionKind::Max   ? "max"
                     : kind == ReductionKind::Sum ? "sum"
                                                  : "all";
  Operation *op = result.getDefiningOp();
  Reduction r;
  r.op = op;
  if (isa_and_nonnull<tosa::ReduceMaxOp, tosa::ReduceSumOp,
                      tosa::ReduceAllOp>(op)) {
    ReductionKind opKind = isa<tosa::ReduceMaxOp>(op)   ? ReductionKind::Max
                           : isa<tosa::ReduceSumOp>(op) ? ReductionKind::Sum
                                                        : ReductionKind::All;
    if (opKind != kind) {
      why = std::string("expected a row ") + name;
      return failure();
    }
    int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
    Value in = op->getOperand(0);
    auto t = cast<RankedTensorType>(in.getType());
    if (t.isDynamicDim(axis)) {
      why = "a reduction over a dynamic dimension";
      return failure();
    }
    Access a = access;
    r.reducedAtom = eb.atoms.fresh(t.getDimSize(axis));
    a[axis] = {r.reducedAtom};
    r.input = eb.leaf(in, a);
    if (eb.record)
      eb.record->insert(op);
    return r;
  }
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumReductionLoops() != 1 || linalgOp.getNumDpsInputs() < 1 ||
      !linalgOp.getBlock()) {
    why = std::string("the row ") + name + " is not a single-loop reduction";
    return failure();
  }
  unsigned resultIdx = cast<OpResult>(result).getResultNumber();
  if (resultIdx != 0 || linalgOp.getNumDpsInits() > 2 ||
      (linalgOp.getNumDpsInits() == 2 && kind != ReductionKind::Max)) {
    why = std::string("the row ") + name + " reduction has extra results";
    return failure();
  }
  if (linalgOp.getNumDpsInits() == 2 && !op->getResult(1).use_empty()) {
    why = "the argmax result of the row max is used";
    return failure();
  }
  std::optional<double> init = splatValue(linalgOp.getDpsInits()[0]);
  if (!init || (kind == ReductionKind::Sum && *init != 0.0) ||
      (kind == ReductionKind::Max && *init > -1.0e30) ||
      (kind == ReductionKind::All && *init != 1.0)) {
    why = std::string("the row ") + name +
          " starts from a value other than " +
          (kind == ReductionKind::Sum   ? "0"
           : kind == ReductionKind::All ? "true"
                                        : "-inf");
    return failure();
  }
  FailureOr<SmallVector<AtomList>> loops =
      loopAtoms(linalgOp, 0, access, eb.atoms);
  if (failed(loops)) {
    why = "a reduction with a non-permutation output map";
    return failure();
  }
  SmallVector<unsigned> redDims;
  linalgOp.getReductionDims(redDims);
  unsigned red = redDims.front();
  if ((*loops)[red].size() != 1) {
    why = "a reduction over a unit dimension";
    return failure();
  }
  r.reducedAtom = (*loops)[red][0];
  Block *body = linalgOp.getBlock();
  Value acc = linalgOp.getMatchingBlockArgument(linalgOp.getDpsInitOperand(0));
  Value yielded = body->getTerminator()->getOperand(0);
  Value x = combinedOperand(yielded, acc, kind);
  if (!x) {
    why = std::string("the row ") + name + " reduction body is not a " + name;
    return failure();
  }
  SmallVector<ExprP> args;
  for (OpOperand *in : linalgOp.getDpsInputOperands()) {
    FailureOr<Access> a =
        operandAccess(linalgOp.getMatchingIndexingMap(in), *loops);
    if (failed(a)) {
      why = "a reduction with non-permutation input maps";
      return failure();
    }
    args.push_back(eb.leaf(in->get(), *a));
  }
  SmallVector<AtomList> saved = std::move(eb.loops);
  eb.loops = *loops;
  r.input = eb.fromScalar(x, args);
  eb.loops = std::move(saved);
  if (!r.input) {
    why = std::string("the row ") + name + " reduces an unmodelled value";
    return failure();
  }
  if (eb.record)
    eb.record->insert(op);
  return r;
}

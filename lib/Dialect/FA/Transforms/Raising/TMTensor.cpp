//===- TMTensor.cpp - tm_tensor.attention straight to fa.attention --------===//
//
// torch-mlir lowers a whole aten.scaled_dot_product_attention to
// tm_tensor.attention over [B*H, S, D] (batch and heads flattened), with the
// scale as an attribute and the mask a [B*H, Sq, Sk] operand (i1: visible
// where true; float: added). Nothing needs recognizing: the op *is*
// attention. What the raise recovers is what the flattening hid: Q, K and V
// are traced up through their views (the collapse of [B, H, S, D], the
// repeat of K and V for GQA, constant scalings) exactly as for a matched
// attention, and the mask goes through the same analysis as a masking
// select or an additive bias (causal, window, or the bias operand). A mask
// the analysis cannot classify stays the bias operand (the [B*H, Sq, Sk]
// tensor the program already holds), so the op is always raised.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"
#include "fa/Dialect/FA/Transforms/RaisePatterns.h"
#include "fa/Dialect/TMTensor/IR/TMTensor.h"

#include <limits>
#include <memory>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

namespace {

/// The plan for `op`: the operands' accesses in the atoms of the result's
/// access [batch..., rows, value dim].
FailureOr<Plan> planTMAttention(tm_tensor::AttentionOp op, AtomTable &atoms,
                                std::string &why, std::string &maskNote) {
  for (Value v : op->getOperands())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape()) {
      why = "dynamic shapes are not supported for tm_tensor.attention";
      return failure();
    }
  OutputChain chain = findOutputChain(op, atoms);
  Plan plan = planReplacingOp(op, chain);
  const Access &out = chain.pvAccess;
  unsigned rank = out.size();
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto k = cast<RankedTensorType>(op.getKey().getType());
  // Unit dimensions carry no atom; a unit query row is decode.
  auto atomOf = [&](const AtomList &dim, int64_t size) {
    AtomList l = atoms.leaves(dim);
    return l.size() == 1 ? l[0] : atoms.fresh(size);
  };
  AtomList rowDim = atoms.leaves(out[rank - 2]);
  plan.unitRow = rowDim.empty();
  plan.rowAtom = atomOf(out[rank - 2], 1);
  plan.dimVAtom = atomOf(out[rank - 1], 1);
  if (atoms.leaves(out[rank - 1]).size() > 1) {
    why = "the value head dim is split after the attention";
    return failure();
  }
  plan.dimAtom = atoms.fresh(q.getShape().back());
  plan.keyAtom = atoms.fresh(k.getShape()[rank - 2]);
  Access batch(out.begin(), out.end() - 2);
  auto with = [&](int a, int b) {
    Access acc = batch;
    acc.push_back(a == -1 ? AtomList{} : AtomList{a});
    acc.push_back({b});
    return acc;
  };
  int row = plan.unitRow ? -1 : plan.rowAtom;
  AttentionOperands operands{op.getQuery(),
                             op.getKey(),
                             op.getValue(),
                             op.getMask(),
                             with(row, plan.dimAtom),
                             with(plan.keyAtom, plan.dimAtom),
                             with(plan.keyAtom, plan.dimVAtom),
                             with(row, plan.keyAtom),
                             op.getScaleOrDefault()};
  AtomList batchAtoms;
  for (const AtomList &l : batch)
    for (int a : atoms.leaves(l))
      batchAtoms.push_back(a);
  if (failed(completeAttentionOpPlan(plan, operands, batchAtoms, atoms, why,
                                     maskNote)))
    return failure();
  return plan;
}

} // namespace

Plan mlir::fa::raising::planReplacingOp(Operation *op,
                                        const OutputChain &chain) {
  Plan plan;
  plan.pv = op;
  // A truncation after the op stays outside: the op computes in its type.
  plan.finalValue = chain.truncation ? chain.beforeTrunc : chain.final;
  plan.outAccess =
      chain.truncation ? chain.beforeTruncAccess : chain.finalAccess;
  return plan;
}

LogicalResult mlir::fa::raising::completeAttentionOpPlan(
    Plan &plan, const AttentionOperands &o, AtomList batchAtoms,
    AtomTable &atoms, std::string &why, std::string &maskNote) {
  double scale = o.scale;
  auto trace = [&](Value v, const Access &a, double &s) -> Root {
    auto [root, access] = traceOperand(v, a, atoms, s);
    return {root, access};
  };
  plan.q = trace(o.q, o.qAccess, scale);
  plan.k = trace(o.k, o.kAccess, scale);
  plan.v = traceValueOperand(o.v, o.vAccess, atoms);
  plan.vRead = {o.v, o.vAccess};
  plan.scale = scale;

  batchAtoms = atoms.leaves(batchAtoms);
  AtomList batchOrder;
  if (failed(assignHeadRoles(plan, batchAtoms, atoms, batchOrder, why)))
    return failure();

  if (Value mask = o.mask) {
    ExprBuilder eb{atoms, nullptr, {}};
    ScoreForm form;
    ExprP leaf = eb.leaf(mask, o.maskAccess);
    bool boolean = getElementTypeOrSelf(mask.getType()).isInteger(1);
    if (boolean)
      form.selects.push_back(
          {leaf, true, -std::numeric_limits<double>::infinity()});
    else
      form.biases.push_back(leaf);
    std::string whyMask;
    if (failed(analyzeMasks(form, plan.rowAtom, plan.keyAtom, plan.batchPart,
                            plan.allHeads(), atoms.size(plan.rowAtom),
                            atoms.size(plan.keyAtom), atoms, plan.mask,
                            whyMask)) ||
        failed(checkBiasRoles(plan, batchOrder, atoms, whyMask))) {
      // The mask as the program holds it (before broadcasts to the heads):
      // exact whatever it is.
      plan.mask = MaskConfig();
      std::tie(plan.mask.bias, plan.mask.biasAccess) =
          resolveViews(mask, o.maskAccess, atoms, nullptr);
      plan.mask.biasIsBoolean = boolean;
      plan.mask.summary = boolean ? "boolean mask as bias" : "bias";
      maskNote = whyMask;
      if (failed(checkBiasRoles(plan, batchOrder, atoms, why)))
        return failure();
    }
  }
  plan.layout = chooseLayout(plan, atoms);
  return success();
}

LogicalResult mlir::fa::raising::replaceAttentionOp(
    Operation *op, FailureOr<Plan> &plan, AtomTable &atoms, std::string why,
    const std::string &maskNote, RewriterBase &rw,
    llvm::SmallPtrSetImpl<Operation *> &reported) {
  std::string summary;
  SmallVector<Operation *> noBackward;
  FailureOr<Value> replacement =
      succeeded(plan)
          ? buildAttention(*plan, atoms, rw, why, summary, noBackward)
          : FailureOr<Value>(failure());
  if (failed(replacement)) {
    // Reported once: the greedy driver revisits the op after changes.
    if (reported.insert(op).second)
      op->emitRemark() << "attention not raised: " << why;
    return failure();
  }
  auto remark = op->emitRemark()
                << "raised to fa.attention (" << summary << ")";
  if (!maskNote.empty())
    remark << "; the mask stays an operand: " << maskNote;
  Operation *finalOp = plan->finalValue.getDefiningOp();
  rw.replaceAllUsesWith(plan->finalValue, *replacement);
  eraseDeadFrom(finalOp, rw);
  return success();
}

void mlir::fa::populateTMTensorAttentionRaisePatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<RaiseAttentionOpPattern<tm_tensor::AttentionOp, planTMAttention>>(
          patterns.getContext());
}

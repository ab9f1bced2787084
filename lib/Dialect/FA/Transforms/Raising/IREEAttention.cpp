//===- IREEAttention.cpp - iree_linalg_ext.attention to fa.attention ------===//
//
// IREE's attention op says what every dimension is through its indexing
// maps: batch dims appear in Q, K, V and the output, M (the query rows) in
// Q and the output, K1 (the head dim) in Q and K, K2 (the keys) in K and V,
// N (the value head dim) in V and the output. The raise gives each loop
// dimension its atoms (the output's through the view chain after the op,
// fresh ones for K1 and K2) and reads every operand through its map; the
// rest is what tm_tensor.attention's raise does (TMTensor.cpp): Q, K, V
// traced through their views (the [B*H] flattening, GQA's repeats), the
// mask analyzed (causal, window, or kept as the bias operand).
//
//===----------------------------------------------------------------------===//
#include "Plan.h"
#include "fa/Dialect/FA/Transforms/RaisePatterns.h"
#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExt.h"

#include "mlir/IR/Matchers.h"

#include <memory>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;
namespace ext = mlir::fa::iree_linalg_ext;

namespace {

/// The loop dimensions of the op by role.
struct LoopRoles {
  SmallVector<unsigned> batch;
  unsigned m = 0, n = 0, k1 = 0, k2 = 0;
};

/// Roles from which of Q, K, V and the output index each loop dimension.
LogicalResult assignLoopRoles(ext::AttentionOp op, LoopRoles &roles,
                              std::string &why) {
  AffineMap maps[] = {op.getMap(0), op.getMap(1), op.getMap(2),
                      op.getMap(op.getInputs().size())};
  unsigned dims = maps[0].getNumDims();
  SmallVector<unsigned> m, n, k1, k2;
  for (unsigned d = 0; d < dims; ++d) {
    bool in[4];
    for (unsigned i = 0; i < 4; ++i)
      in[i] = maps[i].isFunctionOfDim(d);
    auto [q, k, v, o] = in;
    if (q && k && v && o)
      roles.batch.push_back(d);
    else if (q && o && !k && !v)
      m.push_back(d);
    else if (v && o && !q && !k)
      n.push_back(d);
    else if (q && k && !v && !o)
      k1.push_back(d);
    else if (k && v && !q && !o)
      k2.push_back(d);
    else {
      why = "loop dimension d" + std::to_string(d) +
            " of the indexing maps is no batch, query row, key or head dim";
      return failure();
    }
  }
  for (auto [list, name] :
       {std::pair{&m, "query row (M)"}, std::pair{&n, "value head (N)"},
        std::pair{&k1, "head (K1)"}, std::pair{&k2, "key (K2)"}})
    if (list->size() != 1) {
      why = "the indexing maps have " + std::to_string(list->size()) + " " +
            name + " dimensions, not one";
      return failure();
    }
  roles.m = m[0];
  roles.n = n[0];
  roles.k1 = k1[0];
  roles.k2 = k2[0];
  return success();
}

/// The size of loop dimension `d` from an operand that `map` reads.
int64_t loopSize(Value v, AffineMap map, unsigned d) {
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (cast<AffineDimExpr>(e).getPosition() == d)
      return shape[i];
  return ShapedType::kDynamic;
}

/// Why the score region changes the scores, or empty for the identity.
std::string regionChanges(ext::AttentionOp op) {
  Block &body = op.getRegion().front();
  Operation *term = body.getTerminator();
  if (term->getNumOperands() == 1 && term->getOperand(0) == body.getArgument(0))
    return "";
  Operation *first = &body.front();
  return "the op's score region modifies the scores ('" +
         first->getName().getStringRef().str() + "')";
}

FailureOr<Plan> planIREEAttention(ext::AttentionOp op, AtomTable &atoms,
                                  std::string &why, std::string &maskNote) {
  for (Value v : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && !t.hasStaticShape()) {
      why = "dynamic shapes are not supported for iree_linalg_ext.attention";
      return failure();
    }
  if (std::string r = regionChanges(op); !r.empty()) {
    why = r;
    return failure();
  }
  FloatAttr scaleAttr;
  if (!matchPattern(op.getScale(), m_Constant(&scaleAttr))) {
    why = "the scale (input 3) is not a constant";
    return failure();
  }
  LoopRoles roles;
  if (failed(assignLoopRoles(op, roles, why)))
    return failure();

  OutputChain chain = findOutputChain(op, atoms);
  Plan plan = planReplacingOp(op, chain);
  unsigned numInputs = op.getInputs().size();
  AffineMap outMap = op.getMap(numInputs);
  SmallVector<AtomList> loopAtoms(outMap.getNumDims());
  for (auto [i, e] : llvm::enumerate(outMap.getResults()))
    loopAtoms[cast<AffineDimExpr>(e).getPosition()] = chain.pvAccess[i];
  // Unit dimensions carry no atom; a unit query row is decode.
  auto atomOf = [&](const AtomList &dim) {
    AtomList l = atoms.leaves(dim);
    return l.size() == 1 ? l[0] : atoms.fresh(1);
  };
  plan.unitRow = atoms.leaves(loopAtoms[roles.m]).empty();
  plan.rowAtom = atomOf(loopAtoms[roles.m]);
  if (atoms.leaves(loopAtoms[roles.n]).size() > 1) {
    why = "the value head dim is split after the attention";
    return failure();
  }
  plan.dimVAtom = atomOf(loopAtoms[roles.n]);
  plan.dimAtom = atoms.fresh(loopSize(op.getQuery(), op.getMap(0), roles.k1));
  plan.keyAtom = atoms.fresh(loopSize(op.getKey(), op.getMap(1), roles.k2));
  loopAtoms[roles.m] = plan.unitRow ? AtomList{} : AtomList{plan.rowAtom};
  loopAtoms[roles.n] = {plan.dimVAtom};
  loopAtoms[roles.k1] = {plan.dimAtom};
  loopAtoms[roles.k2] = {plan.keyAtom};
  auto access = [&](unsigned input) {
    Access a;
    for (AffineExpr e : op.getMap(input).getResults())
      a.push_back(loopAtoms[cast<AffineDimExpr>(e).getPosition()]);
    return a;
  };
  AttentionOperands operands{op.getQuery(),
                             op.getKey(),
                             op.getValue(),
                             op.getMask(),
                             access(0),
                             access(1),
                             access(2),
                             op.getMask() ? access(4) : Access(),
                             scaleAttr.getValueAsDouble()};
  AtomList batchAtoms;
  for (unsigned d : roles.batch)
    batchAtoms.append(loopAtoms[d]);
  if (failed(completeAttentionOpPlan(plan, operands, batchAtoms, atoms, why,
                                     maskNote)))
    return failure();
  return plan;
}

} // namespace

void mlir::fa::populateIREEAttentionRaisePatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseAttentionOpPattern<ext::AttentionOp, planIREEAttention>>(
      patterns.getContext());
}

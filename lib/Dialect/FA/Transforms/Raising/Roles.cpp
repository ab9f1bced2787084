//===- Roles.cpp - Batch, heads and the GQA group --------------------------===//
//
// Q Kᵀ and P·V share their batch atoms. Q must hold all of them; K and V
// hold the same subset: those they lack are the GQA group (K and V
// broadcast along them, by a broadcasting read, a broadcast op, or an
// identity op of a larger shape). The batch is what Q holds in a dimension
// of its own before the heads.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

using namespace mlir;
using namespace mlir::fa::raising;

bool mlir::fa::raising::sameSet(AtomList a, AtomList b) {
  llvm::sort(a);
  llvm::sort(b);
  return a == b;
}

std::string mlir::fa::raising::describeOp(Operation *op) {
  return op->getName().getStringRef().str();
}

/// The batch atoms of K or V in `out`; false when it is not indexed by `x`
/// and `y` or holds an atom that is not a batch atom.
static bool kvBatch(const AtomList &leaves, const AtomList &batchOrder, int x,
                    int y, AtomList &out) {
  for (int a : leaves) {
    if (a == x || a == y)
      continue;
    if (!llvm::is_contained(batchOrder, a))
      return false;
    out.push_back(a);
  }
  return llvm::is_contained(leaves, x) && llvm::is_contained(leaves, y);
}

/// K holds heads that the traced V lacks: V is read as P·V reads it. Two
/// programs do this: Falcon's new decoder architecture (K computed per
/// query head after RoPE, V a gather of the kv heads broadcast to them: the
/// op is MHA over the repeated V), and DiffLlama (V shared by every head,
/// broadcast to the query heads, K per kv head: the heads of the read that
/// K lacks and V does not vary along are read at their first index, so V
/// is broadcast to K's kv heads only). Only V: a constant scaling on the
/// way to K is already in the plan's scale, V's is not folded.
static LogicalResult readValueAsStored(Plan &plan, const AtomList &batchOrder,
                                       AtomTable &atoms, AtomList &kBatch,
                                       AtomList &vBatch) {
  if (!plan.vRead.value)
    return failure();
  AtomList vb;
  if (!kvBatch(atoms.flatLeaves(plan.vRead.access), batchOrder, plan.keyAtom,
               plan.dimVAtom, vb))
    return failure();
  Root read = plan.vRead;
  read.fixed.clear();
  for (int a : AtomList(vb))
    if (!llvm::is_contained(kBatch, a) &&
        !mayVaryAlong(read.value, read.access, a, atoms)) {
      read.fixed.push_back(a);
      vb.erase(llvm::find(vb, a));
    }
  if (!sameSet(kBatch, vb))
    return failure();
  plan.v = read;
  vBatch = vb;
  return success();
}

/// A traced Q, K or V for remarks: "'tosa.gather' [3, 10, 2, 1, 8]".
static std::string describeRoot(Value v) {
  std::string out = v.getDefiningOp()
                        ? "'" + describeOp(v.getDefiningOp()) + "'"
                        : std::string("a function argument");
  if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
    out += " [";
    for (auto [i, d] : llvm::enumerate(t.getShape()))
      out += (i ? ", " : "") +
             (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
    out += "]";
  }
  return out;
}

/// The batch part: what Q holds in its first dimension of batch atoms when
/// it has two or more ([B, H, ..]); none when it has a single one ([B*H]
/// or [H] with B = 1: the batch is 1).
static AtomList qBatchPart(const Plan &plan, const AtomList &batchOrder,
                           const AtomTable &atoms) {
  SmallVector<AtomList> qBatchDims;
  for (const AtomList &l : atoms.leaves(plan.q.access)) {
    AtomList b;
    for (int a : l)
      if (llvm::is_contained(batchOrder, a))
        b.push_back(a);
    if (!b.empty())
      qBatchDims.push_back(b);
  }
  return qBatchDims.size() >= 2 ? qBatchDims.front() : AtomList{};
}

/// Head atoms K or V holds but does not vary along (computed after their
/// repeat to the query heads: Falcon's new decoder architecture applies
/// RoPE to K per query head) are dropped from them: the op reads them at
/// the first head of each group, and those atoms become the GQA group.
static void dropInvariantHeads(Plan &plan, const AtomList &batchPart,
                               AtomTable &atoms, AtomList &kBatch,
                               AtomList &vBatch) {
  AtomList work = kBatch;
  for (int a : vBatch)
    if (!llvm::is_contained(work, a))
      work.push_back(a);
  auto invariant = [&](const Root &r, const AtomList &held, int a) {
    return !llvm::is_contained(held, a) ||
           !mayVaryAlong(r.value, r.access, a, atoms);
  };
  while (!work.empty()) {
    int a = work.pop_back_val();
    if (llvm::is_contained(batchPart, a))
      continue;
    bool kInvariant = invariant(plan.k, kBatch, a);
    bool vInvariant = invariant(plan.v, vBatch, a);
    // A view on the way split the atom (the repeat's [H] into [Hkv, G]):
    // its parts are the candidates.
    AtomList parts = atoms.leaves(AtomList{a});
    if (parts.size() != 1 || parts.front() != a) {
      kBatch = atoms.leaves(kBatch);
      vBatch = atoms.leaves(vBatch);
      work.append(parts);
      continue;
    }
    if (!kInvariant || !vInvariant)
      continue;
    for (auto [root, held] :
         {std::pair<Root *, AtomList *>{&plan.k, &kBatch}, {&plan.v, &vBatch}})
      if (llvm::is_contained(*held, a)) {
        root->fixed.push_back(a);
        held->erase(llvm::find(*held, a));
      }
  }
}

LogicalResult mlir::fa::raising::assignHeadRoles(Plan &plan,
                                                 const AtomList &batch,
                                                 AtomTable &atoms,
                                                 AtomList &batchOrder,
                                                 std::string &why) {
  AtomList qLeaves = atoms.flatLeaves(plan.q.access);
  AtomList kLeaves = atoms.flatLeaves(plan.k.access);
  AtomList vLeaves = atoms.flatLeaves(plan.v.access);
  AtomList qExpected = batch;
  if (!plan.unitRow)
    qExpected.push_back(plan.rowAtom);
  qExpected.push_back(plan.dimAtom);
  if (!sameSet(qLeaves, qExpected)) {
    why = "Q is broadcast along a batch or head dimension";
    return failure();
  }
  batchOrder.clear();
  for (int a : qLeaves)
    if (a != plan.rowAtom && a != plan.dimAtom)
      batchOrder.push_back(a);
  AtomList kBatch, vBatch;
  if (!kvBatch(kLeaves, batchOrder, plan.keyAtom, plan.dimAtom, kBatch) ||
      !kvBatch(vLeaves, batchOrder, plan.keyAtom, plan.dimVAtom, vBatch)) {
    why = "K or V is not indexed by the keys and the head dimension";
    return failure();
  }
  plan.batchPart = qBatchPart(plan, batchOrder, atoms);
  plan.k.fixed.clear();
  plan.v.fixed.clear();
  dropInvariantHeads(plan, plan.batchPart, atoms, kBatch, vBatch);
  // Atoms the analysis split are their parts from now on.
  batchOrder = atoms.leaves(batchOrder);
  if (!sameSet(kBatch, vBatch) &&
      failed(readValueAsStored(plan, batchOrder, atoms, kBatch, vBatch))) {
    why = "K and V are broadcast differently (K traced to " +
          describeRoot(plan.k.value) + ", V to " + describeRoot(plan.v.value) +
          ")";
    return failure();
  }
  plan.headsPresent.clear();
  plan.headsMissing.clear();
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
  return success();
}

LogicalResult mlir::fa::raising::treeAtoms(const ExprP &e,
                                           const AtomTable &atoms,
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

LogicalResult mlir::fa::raising::checkBiasRoles(const Plan &plan,
                                                const AtomList &batchOrder,
                                                const AtomTable &atoms,
                                                std::string &why) {
  if (!plan.mask.bias && !plan.mask.biasExpr)
    return success();
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
  AtomList heads = plan.allHeads();
  AtomList allowed = batchOrder;
  allowed.push_back(plan.rowAtom);
  allowed.push_back(plan.keyAtom);
  if (!(has(plan.batchPart) || none(plan.batchPart)) ||
      !(has(heads) || none(heads)) ||
      !llvm::all_of(b, [&](int a) { return llvm::is_contained(allowed, a); })) {
    why = "the bias is not [batch|1, heads|1, seq_q, seq_k]";
    return failure();
  }
  return success();
}

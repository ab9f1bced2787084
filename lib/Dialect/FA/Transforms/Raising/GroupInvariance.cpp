//===- GroupInvariance.cpp - K or V computed after their repeat -----------===//
//
// GQA frontends repeat K and V to the query heads, usually as the last step
// before attention (repeat_kv), which the tracing of Q, K and V walks
// through. Some repeat first and compute after: Falcon's new decoder
// architecture broadcasts the kv heads of its fused projection to the
// query heads and then applies RoPE to the broadcast K, per query head.
// The values are the same for every head of a group, but K as the program
// holds it has all query heads. This proves that: a tensor read at an
// access does not vary along an atom when every path from it to data the
// program holds (through elementwise ops, views, slices and concatenations,
// and the positions a linalg body or a TOSA data-movement op reads at)
// reads that data without the atom. Such an operand is then read at the
// first element along the atom (Roles.cpp, Build.cpp), and the op gets the
// config's kv heads.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fa::raising;

namespace {
/// Whether values vary along one atom, over expression trees (ExprBuilder
/// expands elementwise ops) and the data-movement ops trees stop at.
class Invariance {
public:
  Invariance(AtomTable &atoms, int atom)
      : atoms(atoms), eb{atoms, nullptr, {}}, atom(atom) {}

  bool mayVary(const ExprP &e);
  bool tensorMayVary(Value v, const Access &access);

private:
  /// Whether `l` indexes the atom, or a part of it where a view split it.
  bool holds(const AtomList &l) const {
    AtomList parts = atoms.leaves(AtomList{atom});
    return llvm::any_of(atoms.leaves(l),
                        [&](int a) { return llvm::is_contained(parts, a); });
  }
  bool extractMayVary(const ExprP &e);
  bool sliceMayVary(tensor::ExtractSliceOp op, const Access &access);
  bool linalgMayVary(linalg::LinalgOp op, const Access &access);
  bool constantMayVary(DenseElementsAttr c, const Access &access);
  bool elementwiseMayVary(Operation *op, const Access &access);
  bool concatMayVary(tensor::ConcatOp op, const Access &access);
  AtomList freshDim(int64_t size) { return atoms.freshAccess({size}).front(); }

  AtomTable &atoms;
  ExprBuilder eb;
  int atom;
  /// Nodes and tensors left to visit: a deep graph is assumed to vary.
  unsigned budget = 4096;
};
} // namespace

bool Invariance::mayVary(const ExprP &e) {
  if (budget == 0 || --budget == 0)
    return true;
  switch (e->kind) {
  case Expr::Const:
  case Expr::IConst:
    return false;
  case Expr::Index:
    return holds(e->access.front());
  case Expr::Unknown:
    return true;
  case Expr::Extract:
    return extractMayVary(e);
  case Expr::Leaf:
    return tensorMayVary(e->value, e->access);
  default:
    return llvm::any_of(e->ops, [&](const ExprP &o) { return mayVary(o); });
  }
}

/// A tensor read at computed positions: a dimension read at a loop index
/// as it is (a TOSA slice's untouched dims, a concat's other dims) keeps
/// that index's atoms; one read at a position that does not involve the
/// atom is read at a fresh atom of its own.
bool Invariance::extractMayVary(const ExprP &e) {
  auto type = dyn_cast<RankedTensorType>(e->value.getType());
  if (!type || !type.hasStaticShape() ||
      e->ops.size() != static_cast<size_t>(type.getRank()))
    return true;
  Access access;
  for (auto [k, index] : llvm::enumerate(e->ops)) {
    int64_t size = type.getDimSize(k);
    if (index->kind == Expr::Index &&
        atoms.size(index->access.front()) == size) {
      access.push_back(index->access.front());
      continue;
    }
    if (mayVary(index))
      return true;
    access.push_back(freshDim(size));
  }
  return mayVary(eb.leaf(e->value, access));
}

/// A static slice: dims it takes whole keep their atoms.
bool Invariance::sliceMayVary(tensor::ExtractSliceOp op, const Access &access) {
  RankedTensorType src = op.getSourceType();
  if (op.getType().getRank() != src.getRank() || !src.hasStaticShape() ||
      !op.hasUnitStride() || !op.getOffsets().empty() || !op.getSizes().empty())
    return true;
  Access srcAccess;
  for (unsigned d = 0; d < src.getRank(); ++d) {
    bool whole = op.getStaticOffsets()[d] == 0 &&
                 op.getStaticSizes()[d] == src.getDimSize(d);
    if (whole) {
      srcAccess.push_back(access[d]);
      continue;
    }
    if (holds(access[d]))
      return true;
    srcAccess.push_back(freshDim(src.getDimSize(d)));
  }
  return mayVary(eb.leaf(op.getSource(), srcAccess));
}

/// Concatenated along another dim than the atom's: each input at the same
/// atoms elsewhere.
bool Invariance::concatMayVary(tensor::ConcatOp op, const Access &access) {
  uint64_t axis = op.getDim();
  if (axis >= access.size() || holds(access[axis]))
    return true;
  for (Value in : op.getInputs()) {
    auto t = cast<RankedTensorType>(in.getType());
    if (!t.hasStaticShape())
      return true;
    Access a = access;
    a[axis] = freshDim(t.getDimSize(axis));
    if (mayVary(eb.leaf(in, a)))
      return true;
  }
  return false;
}

/// A constant (TOSA's gather indices) varies along the atom where two of
/// its elements that differ only in the atom's digit differ: compared
/// element by element, up to 2^20 of them.
bool Invariance::constantMayVary(DenseElementsAttr c, const Access &access) {
  if (c.isSplat())
    return false;
  auto type = cast<RankedTensorType>(c.getType());
  if (static_cast<size_t>(type.getRank()) != access.size() ||
      c.getNumElements() > (int64_t{1} << 20))
    return true;
  AtomList parts = atoms.leaves(AtomList{atom});
  // Each part of the atom: its stride in the flat element order.
  SmallVector<std::pair<int64_t, int64_t>> strides; // (stride, size)
  int64_t dimStride = 1;
  for (int d = type.getRank() - 1; d >= 0; --d) {
    AtomList l = atoms.leaves(access[d]);
    if (atoms.size(l) != type.getDimSize(d))
      return true;
    int64_t inner = 1;
    for (int k = l.size() - 1; k >= 0; --k) {
      if (llvm::is_contained(parts, l[k]))
        strides.push_back({dimStride * inner, atoms.size(l[k])});
      inner *= atoms.size(l[k]);
    }
    dimStride *= type.getDimSize(d);
  }
  SmallVector<Attribute> values(c.getValues<Attribute>());
  for (auto [stride, size] : strides)
    for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i)
      if ((i / stride) % size != 0 &&
          values[i] != values[i - ((i / stride) % size) * stride])
        return true;
  return false;
}

/// An elementwise linalg op varies along the atom through its inputs, the
/// loop indices its body reads, or what it reads at computed positions
/// (then its expression tree says: the positions must not involve it).
bool Invariance::linalgMayVary(linalg::LinalgOp op, const Access &access) {
  FailureOr<SmallVector<AtomList>> loops = loopAtoms(op, 0, access, atoms);
  if (failed(loops))
    return true;
  Block *body = op.getBlock();
  bool readsAt = false;
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner))
      if (holds((*loops)[index.getDim()]))
        return true;
    readsAt |= isa<tensor::ExtractOp>(inner);
  }
  if (readsAt) {
    ExprP tree = eb.deref(eb.leaf(op->getResult(0), access));
    return tree->kind == Expr::Leaf || mayVary(tree);
  }
  for (OpOperand &operand : op->getOpOperands()) {
    // An init whose value the body does not read does not matter.
    if (op.isDpsInit(&operand) &&
        op.getMatchingBlockArgument(&operand).use_empty())
      continue;
    FailureOr<Access> a =
        operandAccess(op.getMatchingIndexingMap(&operand), *loops);
    if (failed(a) || tensorMayVary(operand.get(), *a))
      return true;
  }
  return false;
}

/// TOSA's elementwise ops and arith / math on tensors: each operand of the
/// result's rank at the same atoms, except where it broadcasts (size 1).
bool Invariance::elementwiseMayVary(Operation *op, const Access &access) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  for (Value in : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(in.getType());
    Attribute attr;
    if (!t || t.getRank() != type.getRank()) {
      // A scalar operand, or TOSA's shift: constants only.
      if (!matchPattern(in, m_Constant(&attr)))
        return true;
      continue;
    }
    Access a = access;
    for (unsigned d = 0; d < t.getRank(); ++d)
      if (t.getDimSize(d) == 1 && type.getDimSize(d) != 1)
        a[d] = {};
    if (tensorMayVary(in, a))
      return true;
  }
  return false;
}

bool Invariance::tensorMayVary(Value v, const Access &access) {
  if (budget == 0 || --budget == 0)
    return true;
  if (!holds(atoms.flatLeaves(access)))
    return false;
  if (DenseElementsAttr c = constantElements(v))
    return constantMayVary(c, access);
  if (splatExpr(v))
    return false;
  auto [src, srcAccess] = resolveViews(v, access, atoms, nullptr);
  if (src != v)
    return tensorMayVary(src, srcAccess);
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumResults() != 1)
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (linalgOp && linalgOp.hasPureTensorSemantics() &&
      linalgOp.getNumDpsInits() == 1 &&
      linalgOp.getNumParallelLoops() == linalgOp.getNumLoops())
    return linalgMayVary(linalgOp, access);
  if (op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() ||
      op->hasTrait<OpTrait::Elementwise>())
    return elementwiseMayVary(op, access);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return sliceMayVary(slice, access);
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return concatMayVary(concat, access);
  // TOSA's data movement as reads at computed positions.
  ExprP tree = eb.deref(eb.leaf(v, access));
  if (tree->kind != Expr::Leaf)
    return mayVary(tree);
  // Data the program holds, read with the atom.
  return true;
}

bool mlir::fa::raising::mayVaryAlong(Value v, const Access &access, int atom,
                                     AtomTable &atoms) {
  Invariance inv(atoms, atom);
  return inv.mayVary(ExprBuilder{atoms, nullptr, {}}.leaf(v, access));
}

FailureOr<Value> mlir::fa::raising::readAtFirst(ImplicitLocOpBuilder &b,
                                                const Root &r,
                                                const Access &dst,
                                                const AtomTable &atoms) {
  // The fixed atoms as leading dims of their own, then sliced away.
  Access full;
  for (int a : r.fixed)
    full.push_back({a});
  full.append(dst.begin(), dst.end());
  FailureOr<Value> t = rearrange(b, r.value, r.access, full, atoms);
  if (failed(t))
    return failure();
  auto type = cast<RankedTensorType>(t->getType());
  unsigned n = r.fixed.size();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), *t);
  for (unsigned k = 0; k < n; ++k)
    sizes[k] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto sliced = RankedTensorType::get(type.getShape().drop_front(n),
                                      type.getElementType());
  return Value(
      tensor::ExtractSliceOp::create(b, sliced, *t, offsets, sizes, strides));
}

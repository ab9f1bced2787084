//===- Atoms.cpp - Index atoms and view-op normalization ------------------===//
//
// View ops (linalg.transpose / broadcast / copy-like generics,
// tensor.collapse_shape / expand_shape / cast, tosa.transpose / reshape) are
// normalized here: given which atoms index the result, compute which atoms
// index the source. `rearrange` goes the other way and materializes a tensor
// with any grouping and order of the same atoms.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include <numeric>

using namespace mlir;
using namespace mlir::fa::raising;

int AtomTable::fresh(int64_t size) {
  atoms.push_back({size, {}});
  return atoms.size() - 1;
}

int64_t AtomTable::size(ArrayRef<int> list) const {
  int64_t n = 1;
  for (int a : list) {
    if (ShapedType::isDynamic(atoms[a].size))
      return ShapedType::kDynamic;
    n *= atoms[a].size;
  }
  return n;
}

AtomList AtomTable::leaves(ArrayRef<int> list) const {
  AtomList out;
  for (int a : list) {
    if (!atoms[a].parts.empty()) {
      AtomList sub = leaves(atoms[a].parts);
      out.append(sub.begin(), sub.end());
    } else if (atoms[a].size != 1) {
      out.push_back(a);
    }
  }
  return out;
}

Access AtomTable::leaves(const Access &access) const {
  Access out;
  for (const AtomList &l : access)
    out.push_back(leaves(l));
  return out;
}

AtomList AtomTable::flatLeaves(const Access &access) const {
  AtomList out;
  for (const AtomList &l : access) {
    AtomList sub = leaves(l);
    out.append(sub.begin(), sub.end());
  }
  return out;
}

Access AtomTable::freshAccess(ArrayRef<int64_t> shape) {
  Access out;
  for (int64_t s : shape)
    out.push_back(s == 1 ? AtomList{} : AtomList{fresh(s)});
  return out;
}

FailureOr<Access> AtomTable::partition(ArrayRef<int> list,
                                       ArrayRef<int64_t> sizes) {
  AtomList pending = leaves(list);
  // One dynamic atom into one dynamic and some static parts ([B*H] with a
  // dynamic batch into [B, H]).
  if (pending.size() == 1 && ShapedType::isDynamic(atoms[pending[0]].size) &&
      llvm::count_if(sizes, ShapedType::isDynamic) == 1) {
    Access out;
    AtomList parts;
    for (int64_t s : sizes) {
      if (s == 1) {
        out.push_back({});
        continue;
      }
      int p = fresh(s);
      parts.push_back(p);
      out.push_back({p});
    }
    if (parts.size() > 1) {
      atoms[pending[0]].parts = parts;
      return out;
    }
    // Only unit dims besides the dynamic one: the atom itself.
    out.assign(sizes.size(), AtomList{});
    out[llvm::find_if(sizes, ShapedType::isDynamic) - sizes.begin()] = {
        pending[0]};
    return out;
  }
  std::reverse(pending.begin(), pending.end()); // pop from the back
  Access out;
  for (int64_t s : sizes) {
    AtomList group;
    if (ShapedType::isDynamic(s)) {
      // Only a dynamic atom standing alone can fill a dynamic dimension.
      if (pending.empty() || !ShapedType::isDynamic(atoms[pending.back()].size))
        return failure();
      group.push_back(pending.pop_back_val());
      out.push_back(group);
      continue;
    }
    int64_t have = 1;
    while (have < s) {
      if (pending.empty())
        return failure();
      int a = pending.back();
      int64_t z = atoms[a].size;
      if (ShapedType::isDynamic(z))
        return failure();
      if (s % (have * z) == 0) {
        group.push_back(pending.pop_back_val());
        have *= z;
        continue;
      }
      int64_t need = s / have;
      if (s % have != 0 || z % need != 0)
        return failure();
      // The group boundary falls inside atom `a`: split it.
      int outer = fresh(need), inner = fresh(z / need);
      atoms[a].parts = {outer, inner};
      pending.pop_back();
      pending.push_back(inner);
      group.push_back(outer);
      have *= need;
    }
    if (have != s)
      return failure();
    out.push_back(group);
  }
  if (!pending.empty())
    return failure();
  return out;
}

FailureOr<Access> mlir::fa::raising::operandAccess(AffineMap map,
                                                   ArrayRef<AtomList> loops) {
  Access out;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      out.push_back(loops[d.getPosition()]);
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0)
      return failure();
    out.push_back({});
  }
  return out;
}

FailureOr<SmallVector<AtomList>>
mlir::fa::raising::loopAtoms(linalg::LinalgOp op, unsigned resultIdx,
                             const Access &access, AtomTable &atoms) {
  AffineMap map = op.getIndexingMapMatchingResult(op->getResult(resultIdx));
  unsigned n = op.getNumLoops();
  SmallVector<AtomList> loops(n);
  SmallVector<bool> set(n, false);
  for (auto [j, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (set[d.getPosition()])
        return failure();
      loops[d.getPosition()] = access[j];
      set[d.getPosition()] = true;
      continue;
    }
    // A kept unit dimension (keepdim reductions, broadcast reads).
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0)
      return failure();
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned i = 0; i < n; ++i) {
    if (set[i])
      continue;
    loops[i] = ranges[i] == 1 ? AtomList{} : AtomList{atoms.fresh(ranges[i])};
  }
  return loops;
}

/// A linalg op that copies its single input (transpose, broadcast, copy or
/// a permuting/broadcasting generic).
static bool isCopyLike(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  Block *body = op.getBlock();
  if (!body || body->getOperations().size() != 1)
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  return yield && yield.getNumOperands() == 1 &&
         yield.getOperand(0) == body->getArgument(0);
}

bool mlir::fa::raising::isViewOp(Operation *op) {
  if (!op)
    return false;
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp,
          tosa::TransposeOp, tosa::ReshapeOp, tosa::TileOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && isCopyLike(linalgOp);
}

std::pair<Value, Access>
mlir::fa::raising::viewSource(Value v, const Access &access,
                              AtomTable &atoms) {
  Operation *op = v.getDefiningOp();
  if (!op || !isViewOp(op))
    return {};
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    return {cast.getSource(), access};
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    ArrayRef<int64_t> srcShape = collapse.getSrcType().getShape();
    Access src(srcShape.size());
    for (auto [g, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      SmallVector<int64_t> sizes;
      for (int64_t d : group)
        sizes.push_back(srcShape[d]);
      FailureOr<Access> parts = atoms.partition(access[g], sizes);
      if (failed(parts))
        return {};
      for (auto [d, part] : llvm::zip(group, *parts))
        src[d] = part;
    }
    return {collapse.getSrc(), src};
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    Access src;
    for (const ReassociationIndices &group :
         expand.getReassociationIndices()) {
      AtomList l;
      for (int64_t d : group)
        l.append(access[d].begin(), access[d].end());
      src.push_back(l);
    }
    return {expand.getSrc(), src};
  }
  if (auto transpose = dyn_cast<tosa::TransposeOp>(op)) {
    ArrayRef<int32_t> perms = transpose.getPerms();
    Access src(perms.size());
    for (auto [i, p] : llvm::enumerate(perms))
      src[p] = access[i];
    return {transpose.getInput1(), src};
  }
  if (auto reshape = dyn_cast<tosa::ReshapeOp>(op)) {
    auto srcType = cast<RankedTensorType>(reshape.getInput1().getType());
    AtomList flat;
    for (const AtomList &l : access)
      flat.append(l.begin(), l.end());
    FailureOr<Access> src = atoms.partition(flat, srcType.getShape());
    if (failed(src))
      return {};
    return {reshape.getInput1(), *src};
  }
  if (auto tile = dyn_cast<tosa::TileOp>(op)) {
    // Output index o of a dimension tiled m times reads input index o mod n:
    // the dimension's atoms split into [copy (m), input index (n)], and the
    // input is read at the second part (nothing for a tiled unit dimension,
    // which is a broadcast: TOSA's repeat_kv).
    auto srcType = cast<RankedTensorType>(tile.getInput1().getType());
    auto dstType = cast<RankedTensorType>(tile.getType());
    if (!srcType.hasStaticShape() || !dstType.hasStaticShape())
      return {};
    Access src;
    for (auto [d, n] : llvm::enumerate(srcType.getShape())) {
      int64_t m = dstType.getDimSize(d) / n;
      if (m == 1) {
        src.push_back(access[d]);
        continue;
      }
      FailureOr<Access> parts = atoms.partition(access[d], {m, n});
      if (failed(parts))
        return {};
      src.push_back((*parts)[1]);
    }
    return {tile.getInput1(), src};
  }
  auto linalgOp = cast<linalg::LinalgOp>(op);
  FailureOr<SmallVector<AtomList>> loops = loopAtoms(linalgOp, 0, access, atoms);
  if (failed(loops))
    return {};
  OpOperand *input = linalgOp.getDpsInputOperand(0);
  FailureOr<Access> src =
      operandAccess(linalgOp.getMatchingIndexingMap(input), *loops);
  if (failed(src))
    return {};
  return {input->get(), *src};
}

std::pair<Value, Access>
mlir::fa::raising::resolveViews(Value v, Access access, AtomTable &atoms,
                                OpSet *record) {
  while (true) {
    auto [src, srcAccess] = viewSource(v, access, atoms);
    if (!src)
      return {v, access};
    if (record)
      record->insert(v.getDefiningOp());
    v = src;
    access = std::move(srcAccess);
  }
}

/// Reassociation that folds every size-1 dimension into a neighbouring
/// non-unit one.
static SmallVector<ReassociationIndices> unitGroups(ArrayRef<bool> unit) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pendingUnits;
  for (auto [i, u] : llvm::enumerate(unit)) {
    pendingUnits.push_back(i);
    if (u)
      continue;
    groups.push_back(pendingUnits);
    pendingUnits.clear();
  }
  if (!pendingUnits.empty() && !groups.empty())
    groups.back().append(pendingUnits.begin(), pendingUnits.end());
  return groups;
}

namespace {
/// Leaves that stay together (same source dim, same destination dim,
/// consecutive in both) move as one run: no reshape splits them.
struct Run {
  int64_t first; // destination position of its first leaf
  int64_t size;
  int64_t length;
};
} // namespace

/// The runs of each non-unit source dim of `srcL`; `dstFlat` is the
/// destination's leaves in order, `dstDimOf` the destination dim of each.
static SmallVector<SmallVector<Run>> sourceRuns(const Access &srcL,
                                                ArrayRef<int> dstFlat,
                                                ArrayRef<int64_t> dstDimOf,
                                                const AtomTable &atoms) {
  auto dstPos = [&](int a) { return llvm::find(dstFlat, a) - dstFlat.begin(); };
  SmallVector<SmallVector<Run>> srcRuns;
  for (const AtomList &l : srcL) {
    if (l.empty())
      continue;
    SmallVector<Run> runs;
    for (int a : l) {
      int64_t p = dstPos(a);
      if (!runs.empty()) {
        Run &r = runs.back();
        int64_t last = r.first + r.length - 1;
        if (p == last + 1 && dstDimOf[p] == dstDimOf[last]) {
          r.size = ShapedType::isDynamic(r.size) ||
                           ShapedType::isDynamic(atoms.size(a))
                       ? ShapedType::kDynamic
                       : r.size * atoms.size(a);
          ++r.length;
          continue;
        }
      }
      runs.push_back({p, atoms.size(a), 1});
    }
    srcRuns.push_back(runs);
  }
  return srcRuns;
}

/// `cur` (one dim per entry of `srcRuns`) expanded to one dim per run;
/// appends the runs in that order to `runs`. Fails where a source dim
/// holds two runs of dynamic size (its split is not determined).
static FailureOr<Value> expandToRuns(ImplicitLocOpBuilder &b, Value cur,
                                     ArrayRef<SmallVector<Run>> srcRuns,
                                     SmallVectorImpl<Run> &runs) {
  Type elt = cast<RankedTensorType>(cur.getType()).getElementType();
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> mixed;
  SmallVector<OpFoldResult> curSizes =
      tensor::getMixedSizes(b, b.getLoc(), cur);
  int64_t next = 0;
  for (auto [i, rs] : llvm::enumerate(srcRuns)) {
    ReassociationIndices g;
    int64_t staticProduct = 1, dynamicRuns = 0;
    for (const Run &r : rs) {
      if (ShapedType::isDynamic(r.size))
        ++dynamicRuns;
      else
        staticProduct *= r.size;
    }
    if (dynamicRuns > 1)
      return failure();
    for (const Run &r : rs) {
      g.push_back(next++);
      shape.push_back(r.size);
      runs.push_back(r);
      if (!ShapedType::isDynamic(r.size)) {
        mixed.push_back(b.getIndexAttr(r.size));
        continue;
      }
      // The dynamic run: the dimension's size over the static ones.
      Value size = getValueOrCreateConstantIndexOp(b, b.getLoc(), curSizes[i]);
      if (rs.size() > 1)
        size = arith::DivUIOp::create(
            b, size, arith::ConstantIndexOp::create(b, staticProduct));
      mixed.push_back(size);
    }
    groups.push_back(g);
  }
  if (shape.size() != srcRuns.size())
    cur = tensor::ExpandShapeOp::create(b, RankedTensorType::get(shape, elt),
                                        cur, groups, mixed);
  return cur;
}

FailureOr<Value> mlir::fa::raising::rearrange(ImplicitLocOpBuilder &b,
                                              Value src,
                                              const Access &srcAccess,
                                              const Access &dstAccess,
                                              const AtomTable &atoms) {
  auto srcType = cast<RankedTensorType>(src.getType());
  Type elt = srcType.getElementType();
  Access srcL = atoms.leaves(srcAccess), dstL = atoms.leaves(dstAccess);
  // A size-1 atom that only one side holds (a decode plan's query row) is
  // a unit dimension on both: it carries no data.
  auto dropUnmatchedUnits = [&](Access &l, const Access &other) {
    AtomList otherFlat;
    for (const AtomList &o : other)
      otherFlat.append(o.begin(), o.end());
    for (AtomList &d : l)
      llvm::erase_if(d, [&](int a) {
        return atoms.size(a) == 1 && !llvm::is_contained(otherFlat, a);
      });
  };
  dropUnmatchedUnits(srcL, atoms.leaves(dstAccess));
  dropUnmatchedUnits(dstL, atoms.leaves(srcAccess));
  AtomList srcFlat, dstFlat;
  for (const AtomList &l : srcL)
    srcFlat.append(l.begin(), l.end());
  for (const AtomList &l : dstL)
    dstFlat.append(l.begin(), l.end());
  if (srcFlat.empty() || srcFlat.size() != dstFlat.size())
    return failure();
  for (int a : dstFlat)
    if (!llvm::is_contained(srcFlat, a))
      return failure();
  if (srcL == dstL)
    return src;

  SmallVector<int64_t> dstDimOf(dstFlat.size());
  {
    int64_t p = 0;
    for (auto [d, l] : llvm::enumerate(dstL))
      for (size_t i = 0; i < l.size(); ++i)
        dstDimOf[p++] = d;
  }
  SmallVector<SmallVector<Run>> srcRuns =
      sourceRuns(srcL, dstFlat, dstDimOf, atoms);

  // 1. One dimension per run.
  Value cur = src;
  SmallVector<bool> unit;
  for (const AtomList &l : srcL)
    unit.push_back(l.empty());
  if (llvm::is_contained(unit, true))
    cur = tensor::CollapseShapeOp::create(b, cur, unitGroups(unit));
  SmallVector<Run> runs;
  FailureOr<Value> expanded = expandToRuns(b, cur, srcRuns, runs);
  if (failed(expanded))
    return failure();
  cur = *expanded;

  // 2. Runs in destination order.
  SmallVector<int64_t> perm(runs.size());
  std::iota(perm.begin(), perm.end(), 0);
  llvm::sort(perm, [&](int64_t x, int64_t y) {
    return runs[x].first < runs[y].first;
  });
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
    SmallVector<OpFoldResult> curSizes =
        tensor::getMixedSizes(b, b.getLoc(), cur);
    SmallVector<OpFoldResult> sizes;
    for (int64_t i : perm)
      sizes.push_back(curSizes[i]);
    Value init = tensor::EmptyOp::create(b, sizes, elt);
    cur = linalg::TransposeOp::create(b, cur, init, perm).getResult()[0];
  }
  SmallVector<Run> ordered;
  for (int64_t i : perm)
    ordered.push_back(runs[i]);

  // 3. Group runs into destination dimensions, then add unit dimensions.
  SmallVector<ReassociationIndices> groups;
  bool merge = false;
  for (size_t i = 0; i < ordered.size(); ++i) {
    int64_t d = dstDimOf[ordered[i].first];
    if (i > 0 && dstDimOf[ordered[i - 1].first] == d) {
      groups.back().push_back(i);
      merge = true;
    } else {
      groups.push_back({static_cast<int64_t>(i)});
    }
  }
  if (merge)
    cur = tensor::CollapseShapeOp::create(b, cur, groups);
  unit.clear();
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> mixed;
  SmallVector<OpFoldResult> curSizes = tensor::getMixedSizes(b, b.getLoc(), cur);
  int64_t k = 0;
  for (const AtomList &l : dstL) {
    unit.push_back(l.empty());
    shape.push_back(l.empty() ? 1 : atoms.size(l));
    mixed.push_back(l.empty() ? OpFoldResult(b.getIndexAttr(1))
                              : curSizes[k++]);
  }
  if (llvm::is_contained(unit, true))
    cur = tensor::ExpandShapeOp::create(b, RankedTensorType::get(shape, elt),
                                        cur, unitGroups(unit), mixed);
  return cur;
}

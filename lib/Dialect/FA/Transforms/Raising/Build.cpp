//===- Build.cpp - The replacement IR -------------------------------------===//
//
// Builds fa.attention (and, with a matched backward, fa.attention_grad) from
// a Plan: each operand rearranged into the chosen layout and converted to
// the element type the op computes in, a bias rebuilt or broadcast to
// [batch|1, heads|1, seq_q, seq_k], the output rearranged back. The view ops
// this creates are marked with kGlueAttr; the pass folds them with the
// program's own views once every attention is raised.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

namespace {

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
Value boolToBias(ImplicitLocOpBuilder &b, Value v, bool visibleWhenTrue,
                 double fill) {
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
                   nb, loc, nb.getF32FloatAttr(static_cast<float>(fill)));
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
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(e->type ? e->type : b.getI1Type(), e->ival));
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
  AtomList allHeads = plan.allHeads();
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

/// The bias operand in the layout's [batch|1, heads|1, seq_q, seq_k], in
/// f32 or the op's type; null Value when there is none.
FailureOr<Value> buildBias(ImplicitLocOpBuilder &b, const Plan &plan,
                           AtomTable &atoms, Type elt, std::string &why) {
  const MaskConfig &m = plan.mask;
  if (m.biasExpr) {
    FailureOr<Value> bv = materializeBias(b, plan, atoms);
    if (failed(bv))
      why = "the bias cannot be rebuilt as a tensor";
    return bv;
  }
  if (!m.bias)
    return Value();
  AtomList b0 = atoms.flatLeaves(m.biasAccess);
  auto present = [&](const AtomList &l) -> AtomList {
    return !l.empty() && llvm::is_contained(b0, l[0]) ? l : AtomList{};
  };
  AtomList rowL = present({plan.rowAtom}), keyL = present({plan.keyAtom});
  Access dst = {present(plan.batchPart), present(plan.allHeads()), rowL, keyL};
  FailureOr<Value> bv = rearrange(b, m.bias, m.biasAccess, dst, atoms);
  if (failed(bv)) {
    why = "the bias cannot be rearranged to [batch|1, heads|1, seq_q, seq_k]";
    return failure();
  }
  Value bias = *bv;
  if (rowL.empty() || keyL.empty()) {
    if (ShapedType::isDynamic(atoms.size(plan.rowAtom)) ||
        ShapedType::isDynamic(atoms.size(plan.keyAtom))) {
      why = "a bias broadcast along a dynamic sequence";
      return failure();
    }
    bias = broadcastSeq(b, bias, atoms.size(plan.rowAtom),
                        atoms.size(plan.keyAtom));
  }
  if (m.biasIsBoolean)
    bias = boolToBias(b, bias, m.boolVisibleWhenTrue, m.boolFill);
  Type bt = getElementTypeOrSelf(bias.getType());
  if (!isAttentionFloat(bt)) {
    why = "a bias of element type other than f32, f16, bf16";
    return failure();
  }
  if (bt != elt && !bt.isF32())
    bias = convertElementType(b, bias, b.getF32Type());
  return bias;
}

/// The op the gradient goes before: the first gradient contraction, which
/// must come after the forward's output.
FailureOr<Operation *> gradientInsertionPoint(const Plan &plan,
                                              std::string &why) {
  Operation *gradAt = nullptr;
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
  return gradAt;
}

/// Marks the ops from `v` up to the raised op, and `users`, as glue.
void markGlue(Value v, ArrayRef<Operation *> users) {
  for (Operation *user : users)
    user->setAttr(kGlueAttr, UnitAttr::get(v.getContext()));
  while (Operation *def = v.getDefiningOp()) {
    if (isa<AttentionOp, AttentionGradOp>(def))
      break;
    def->setAttr(kGlueAttr, UnitAttr::get(v.getContext()));
    if (def->getNumOperands() == 0)
      break;
    v = def->getOperand(0);
  }
}

/// fa.attention_grad before `gradAt`; the gradients replace dQ, dK, dV.
LogicalResult buildBackward(const Plan &plan, AttentionOp attn, Value q,
                            Value k, Value v, Value bias, Type elt,
                            Operation *gradAt, AtomTable &atoms,
                            RewriterBase &rw, std::string &why,
                            SmallVectorImpl<Operation *> &backwardRoots) {
  const BackwardMatch &g = *plan.bwd;
  const MaskConfig &m = plan.mask;
  AtomList allHeads = plan.allHeads();
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
      gb, q.getType(), k.getType(), v.getType(),
      bias ? bias.getType() : Type(), /*grad_sinks=*/Type(), dOv, q, k, v,
      attn.getOutput(), attn.getLse(), bias, /*sinks=*/Value(),
      attn.getCaptures(), plan.layout, attn.getScaleAttr(), m.causal,
      attn.getMaskAlignmentAttr(), attn.getWindowAttr(), attn.getSoftcapAttr());
  // The same modifiers: dS goes through score_mod's derivative.
  IRMapping same;
  attn.getScoreMod().cloneInto(&grad.getScoreMod(), same);
  attn.getMaskMod().cloneInto(&grad.getMaskMod(), same);
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
    FailureOr<Value> r = rearrange(gb, gr.from, gr.layout, gr.oldAccess, atoms);
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
    markGlue(nv, users);
  }
  return success();
}

std::string describePlan(const Plan &plan, const AtomTable &atoms, Type elt) {
  std::string summary;
  llvm::raw_string_ostream os(summary);
  os << (plan.layout == Layout::bshd ? "bshd" : "bhsd") << ", "
     << atoms.size(plan.allHeads()) << " query heads / "
     << atoms.size(plan.headsPresent) << " kv heads, scale " << plan.scale;
  if (plan.softcap)
    os << ", softcap " << *plan.softcap;
  if (!plan.mask.summary.empty())
    os << ", " << plan.mask.summary;
  Type outElt = getElementTypeOrSelf(plan.finalValue.getType());
  if (elt != outElt || elt != getElementTypeOrSelf(plan.q.value.getType()))
    os << ", computed in " << elt;
  if (plan.bwd)
    os << "; backward raised to fa.attention_grad";
  return summary;
}

} // namespace

FailureOr<Value> mlir::fa::raising::buildAttention(
    const Plan &plan, AtomTable &atoms, RewriterBase &rw, std::string &why,
    std::string &summary, SmallVectorImpl<Operation *> &backwardRoots) {
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
  if (plan.bwd && (!plan.k.fixed.empty() || !plan.v.fixed.empty())) {
    why = "a backward through K or V computed per query head";
    return failure();
  }
  if (plan.bwd && plan.mask.averageEmptyRows) {
    why = "a backward through rows that a finite mask fill hides entirely";
    return failure();
  }

  rw.setInsertionPoint(plan.pv);
  ImplicitLocOpBuilder b(plan.pv->getLoc(), rw);
  AtomList allHeads = plan.allHeads();
  auto operand = [&](const Root &r, const AtomList &heads, int seq,
                     int d) -> FailureOr<Value> {
    Access dst = layoutAccess(plan, heads, seq, d);
    FailureOr<Value> v = r.fixed.empty()
                             ? rearrange(b, r.value, r.access, dst, atoms)
                             : readAtFirst(b, r, dst, atoms);
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
  FailureOr<Value> bias = buildBias(b, plan, atoms, elt, why);
  if (failed(bias))
    return failure();
  FailureOr<ModifierBodies> mods = buildModifierBodies(plan, atoms, why);
  if (failed(mods))
    return failure();

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
    FailureOr<Operation *> at = gradientInsertionPoint(plan, why);
    if (failed(at))
      return failure();
    gradAt = *at;
    lseType = RankedTensorType::get(
        {atoms.size(plan.batchPart), atoms.size(allHeads),
         atoms.size(plan.rowAtom)},
        rw.getF32Type());
  }
  auto attn = AttentionOp::create(
      b, outType, lseType, *q, *k, *v, *bias, Value(), Value(), Value(),
      /*sinks=*/Value(), mods->captures, plan.layout,
      b.getF32FloatAttr(plan.scale), m.causal, align, window,
      plan.softcap ? b.getF32FloatAttr(*plan.softcap) : FloatAttr(),
      /*num_splits=*/IntegerAttr(),
      /*descale_block=*/DenseI64ArrayAttr());
  if (mods->scoreMod)
    attn.getScoreMod().push_back(mods->scoreMod.release());
  if (mods->maskMod)
    attn.getMaskMod().push_back(mods->maskMod.release());
  if (failed(mlir::verify(attn))) {
    rw.eraseOp(attn);
    why = "the raised op does not verify";
    return failure();
  }
  Value attnOut = attn.getOutput();
  if (m.averageEmptyRows) {
    FailureOr<Value> avg = averageEmptyRows(b, m, plan.layout, attn, *v, why);
    if (failed(avg))
      return failure();
    attnOut = *avg;
  }
  FailureOr<Value> out =
      rearrange(b, attnOut, outLayout, plan.outAccess, atoms);
  if (failed(out)) {
    why = "the output cannot be rearranged back";
    return failure();
  }
  Value o = convertElementType(b, *out, outElt);
  if (o.getType() != result.getType())
    o = tensor::CastOp::create(b, result.getType(), o);

  if (plan.bwd && failed(buildBackward(plan, attn, *q, *k, *v, *bias, elt,
                                       gradAt, atoms, rw, why, backwardRoots)))
    return failure();
  markGlue(o, llvm::to_vector(result.getUsers()));
  summary = describePlan(plan, atoms, elt);
  return o;
}

//===- Expr.cpp - Elementwise ops as scalar expression trees --------------===//
//
// linalg bodies (generic or named elementwise ops) and TOSA elementwise ops
// are read into one tree language, so that `divf` in a generic, `linalg.div`
// and `tosa.mul(x, tosa.reciprocal(y))` are all recognized by one matcher.
// Constants are folded with the rounding of their IR type (a truncated f64
// scale becomes the f32 the program really multiplies by).
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <unordered_map>

using namespace mlir;
using namespace mlir::fa::raising;

static ExprP make(Expr::Kind k, ArrayRef<ExprP> ops = {}) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->ops.assign(ops.begin(), ops.end());
  return e;
}

static ExprP constant(double v) {
  ExprP e = make(Expr::Const);
  e->fval = v;
  return e;
}

static ExprP iconstant(int64_t v) {
  ExprP e = make(Expr::IConst);
  e->ival = v;
  return e;
}

/// Rounds `v` to float type `t`.
static double roundTo(double v, Type t) {
  auto ft = dyn_cast<FloatType>(t);
  if (!ft || ft.isF64())
    return v;
  APFloat f(v);
  bool lost;
  f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

std::optional<double> mlir::fa::raising::splatValue(Value v) {
  if (!v)
    return std::nullopt;
  if (auto fill = v.getDefiningOp<linalg::FillOp>()) {
    Value s = fill.getInputs()[0];
    FloatAttr f;
    if (matchPattern(s, m_Constant(&f)))
      return f.getValueAsDouble();
    IntegerAttr i;
    if (matchPattern(s, m_Constant(&i)))
      return i.getType().isInteger(1)
                 ? (i.getValue().getBoolValue() ? 1.0 : 0.0)
                 : static_cast<double>(i.getValue().getSExtValue());
    // A truncated f64 constant.
    if (auto tr = s.getDefiningOp<arith::TruncFOp>())
      if (matchPattern(tr.getIn(), m_Constant(&f)))
        return roundTo(f.getValueAsDouble(), tr.getType());
    return std::nullopt;
  }
  if (auto splat = v.getDefiningOp<tensor::SplatOp>()) {
    FloatAttr f;
    if (matchPattern(splat.getInput(), m_Constant(&f)))
      return f.getValueAsDouble();
    return std::nullopt;
  }
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>())
    return splatValue(slice.getSource());
  Attribute attr;
  if (auto c = v.getDefiningOp<tosa::ConstOp>())
    attr = c.getValues();
  else if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat)
    return std::nullopt;
  if (isa<FloatType>(splat.getElementType()))
    return splat.getSplatValue<APFloat>().convertToDouble();
  if (splat.getElementType().isInteger(1))
    return splat.getSplatValue<bool>() ? 1.0 : 0.0;
  if (isa<IntegerType>(splat.getElementType()))
    return static_cast<double>(splat.getSplatValue<APInt>().getSExtValue());
  return std::nullopt;
}

ExprP ExprBuilder::leaf(Value v, Access access) {
  ExprP e = make(Expr::Leaf);
  e->value = v;
  e->access = std::move(access);
  e->type = getElementTypeOrSelf(v.getType());
  return e;
}

/// Folds constant operands of a freshly built node.
static ExprP fold(ExprP e) {
  auto c = [&](unsigned i) { return e->ops[i]->kind == Expr::Const; };
  auto is = [&](unsigned i, double v) { return c(i) && e->ops[i]->fval == v; };
  // Identities by value (x + 0, x * 1, and their broadcasting forms, which
  // are how TOSA repeats K / V to the query heads): the other operand.
  if (e->ops.size() == 2 && e->kind != Expr::Const) {
    auto sameType = [&](unsigned i) {
      return !e->ops[i]->type || e->ops[i]->type == e->type;
    };
    switch (e->kind) {
    case Expr::Add:
      if (is(1, 0.0) && sameType(0))
        return e->ops[0];
      if (is(0, 0.0) && sameType(1))
        return e->ops[1];
      break;
    case Expr::Sub:
    case Expr::Div:
      if (is(1, e->kind == Expr::Sub ? 0.0 : 1.0) && sameType(0))
        return e->ops[0];
      break;
    case Expr::Mul:
      if (is(1, 1.0) && sameType(0))
        return e->ops[0];
      if (is(0, 1.0) && sameType(1))
        return e->ops[1];
      break;
    default:
      break;
    }
  }
  switch (e->kind) {
  case Expr::ExtF:
  case Expr::TruncF:
    if (c(0))
      return constant(roundTo(e->ops[0]->fval, e->type));
    break;
  case Expr::Neg:
    if (c(0))
      return constant(-e->ops[0]->fval);
    break;
  case Expr::Div:
    if (c(0) && c(1))
      return constant(roundTo(e->ops[0]->fval / e->ops[1]->fval, e->type));
    if (c(0) && e->ops[0]->fval == 1.0) {
      ExprP r = make(Expr::Recip, {e->ops[1]});
      r->type = e->type;
      return r;
    }
    break;
  case Expr::Mul:
    if (c(0) && c(1))
      return constant(roundTo(e->ops[0]->fval * e->ops[1]->fval, e->type));
    break;
  case Expr::Recip:
    if (c(0))
      return constant(roundTo(1.0 / e->ops[0]->fval, e->type));
    break;
  default:
    break;
  }
  return e;
}

ExprP ExprBuilder::fromScalar(Value s, ArrayRef<ExprP> args) {
  // Anything not modelled is an opaque node: it matches nothing, so the
  // matchers can still say which step failed.
  if (ExprP e = fromScalarImpl(s, args))
    return e;
  ExprP e = make(Expr::Unknown);
  e->type = s.getType();
  return e;
}

ExprP ExprBuilder::fromScalarImpl(Value s, ArrayRef<ExprP> args) {
  if (auto arg = dyn_cast<BlockArgument>(s)) {
    if (arg.getOwner()->getParentOp() &&
        isa<linalg::LinalgOp>(arg.getOwner()->getParentOp()) &&
        arg.getArgNumber() < args.size())
      return args[arg.getArgNumber()];
    return nullptr;
  }
  Operation *op = s.getDefiningOp();
  Attribute attr;
  if (matchPattern(s, m_Constant(&attr))) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      return constant(f.getValueAsDouble());
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return iconstant(i.getType().isInteger(1) ? (i.getValue().getBoolValue()
                                                       ? 1
                                                       : 0)
                                                : i.getValue().getSExtValue());
    return nullptr;
  }
  return fromOp(op, [&](unsigned i) { return fromScalar(op->getOperand(i), args); });
}

ExprP ExprBuilder::fromOperands(Operation *op, ArrayRef<ExprP> args) {
  ExprP e = fromOp(op, [&](unsigned i) { return args[i]; });
  if (e)
    return e;
  e = make(Expr::Unknown);
  e->type = getElementTypeOrSelf(op->getResult(0).getType());
  return e;
}

ExprP ExprBuilder::fromOp(Operation *op,
                          llvm::function_ref<ExprP(unsigned)> sub) {
  if (op->getNumResults() != 1)
    return nullptr;
  Type type = getElementTypeOrSelf(op->getResult(0).getType());
  auto node = [&](Expr::Kind k, unsigned n) -> ExprP {
    SmallVector<ExprP> ops;
    for (unsigned i = 0; i < n; ++i) {
      ExprP o = sub(i);
      if (!o)
        return nullptr;
      ops.push_back(o);
    }
    ExprP e = make(k, ops);
    e->type = type;
    return fold(e);
  };
  if (isa<arith::AddFOp>(op))
    return node(Expr::Add, 2);
  if (isa<arith::SubFOp>(op))
    return node(Expr::Sub, 2);
  if (isa<arith::MulFOp>(op))
    return node(Expr::Mul, 2);
  if (isa<arith::DivFOp>(op))
    return node(Expr::Div, 2);
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return node(Expr::Max, 2);
  if (isa<arith::NegFOp>(op))
    return node(Expr::Neg, 1);
  if (isa<math::ExpOp>(op))
    return node(Expr::Exp, 1);
  if (isa<math::TanhOp>(op))
    return node(Expr::Tanh, 1);
  if (isa<math::LogOp>(op))
    return node(Expr::Log, 1);
  if (isa<arith::TruncIOp, arith::UIToFPOp, arith::SIToFPOp, arith::FPToSIOp,
          arith::FPToUIOp>(op))
    return node(Expr::Cast, 1);
  if (isa<arith::ExtFOp>(op))
    return node(Expr::ExtF, 1);
  if (isa<arith::TruncFOp>(op))
    return node(Expr::TruncF, 1);
  if (isa<arith::SelectOp>(op))
    return node(Expr::Select, 3);
  if (isa<arith::AddIOp>(op))
    return node(Expr::IAdd, 2);
  if (isa<arith::SubIOp>(op))
    return node(Expr::ISub, 2);
  if (isa<arith::AndIOp>(op))
    return node(Expr::And, 2);
  if (isa<arith::OrIOp>(op))
    return node(Expr::Or, 2);
  if (isa<arith::XOrIOp>(op))
    return node(Expr::Xor, 2);
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op))
    return sub(0);
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    ExprP e = node(Expr::CmpF, 2);
    if (e)
      e->pred = static_cast<int64_t>(cmp.getPredicate());
    return e;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    ExprP e = node(Expr::CmpI, 2);
    if (e)
      e->pred = static_cast<int64_t>(cmp.getPredicate());
    return e;
  }
  if (auto index = dyn_cast<linalg::IndexOp>(op)) {
    if (index.getDim() >= loops.size())
      return nullptr;
    ExprP e = make(Expr::Index);
    e->access = {loops[index.getDim()]};
    return e;
  }
  return nullptr;
}

/// The tree of a TOSA elementwise op read at `access`, null if not one.
static ExprP tosaTree(Operation *op, const Access &access, ExprBuilder &eb) {
  auto operandLeaf = [&](unsigned i) -> ExprP {
    Value v = op->getOperand(i);
    if (std::optional<double> c = splatValue(v))
      return constant(*c);
    auto t = cast<RankedTensorType>(v.getType());
    Access a;
    for (unsigned d = 0; d < t.getRank(); ++d)
      a.push_back(t.getDimSize(d) == 1 ? AtomList{} : access[d]);
    return eb.leaf(v, a);
  };
  auto node = [&](Expr::Kind k, unsigned n) {
    SmallVector<ExprP> ops;
    for (unsigned i = 0; i < n; ++i)
      ops.push_back(operandLeaf(i));
    ExprP e = make(k, ops);
    e->type = getElementTypeOrSelf(op->getResult(0).getType());
    return fold(e);
  };
  if (isa<tosa::AddOp>(op))
    return node(Expr::Add, 2);
  if (isa<tosa::SubOp>(op))
    return node(Expr::Sub, 2);
  if (isa<tosa::MulOp>(op))
    return node(Expr::Mul, 2);
  if (isa<tosa::MaximumOp>(op))
    return node(Expr::Max, 2);
  if (isa<tosa::ExpOp>(op))
    return node(Expr::Exp, 1);
  if (isa<tosa::TanhOp>(op))
    return node(Expr::Tanh, 1);
  if (isa<tosa::LogOp>(op))
    return node(Expr::Log, 1);
  if (isa<tosa::ReciprocalOp>(op))
    return node(Expr::Recip, 1);
  if (isa<tosa::SelectOp>(op))
    return node(Expr::Select, 3);
  if (isa<tosa::GreaterOp, tosa::GreaterEqualOp, tosa::EqualOp>(op)) {
    Type t = getElementTypeOrSelf(op->getOperand(0).getType());
    bool isFloat = isa<FloatType>(t);
    ExprP e = node(isFloat ? Expr::CmpF : Expr::CmpI, 2);
    if (isa<tosa::GreaterOp>(op))
      e->pred = isFloat ? (int64_t)arith::CmpFPredicate::OGT
                        : (int64_t)arith::CmpIPredicate::sgt;
    else if (isa<tosa::GreaterEqualOp>(op))
      e->pred = isFloat ? (int64_t)arith::CmpFPredicate::OGE
                        : (int64_t)arith::CmpIPredicate::sge;
    else
      e->pred = isFloat ? (int64_t)arith::CmpFPredicate::OEQ
                        : (int64_t)arith::CmpIPredicate::eq;
    return e;
  }
  if (isa<tosa::LogicalAndOp>(op))
    return node(Expr::And, 2);
  if (isa<tosa::LogicalOrOp>(op))
    return node(Expr::Or, 2);
  if (auto cast = dyn_cast<tosa::CastOp>(op)) {
    Type fromT = getElementTypeOrSelf(cast.getInput());
    Type toT = getElementTypeOrSelf(cast.getType());
    if (fromT == toT)
      return operandLeaf(0);
    auto from = dyn_cast<FloatType>(fromT);
    auto to = dyn_cast<FloatType>(toT);
    if (!from || !to) {
      // Integer / boolean / float conversions (MIGraphX's i1 -> i32 -> i8
      // -> i1 mask chains): TOSA casts to i1 as x != 0.
      ExprP e = node(Expr::Cast, 1);
      e->ival = toT.isInteger(1) ? 1 : 0;
      return e;
    }
    return node(from.getWidth() < to.getWidth() ? Expr::ExtF : Expr::TruncF,
                1);
  }
  return nullptr;
}

/// The tree of an arith / math op applied to whole tensors (elementwise
/// mappable, same-shaped operands), null if not one.
static ExprP mappableTree(Operation *op, const Access &access,
                          ExprBuilder &eb) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
      op->getNumRegions() != 0 ||
      !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return nullptr;
  SmallVector<ExprP> args;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getShape() != type.getShape())
      return nullptr;
    std::optional<double> c = splatValue(v);
    args.push_back(c ? constant(*c) : eb.leaf(v, access));
  }
  // Read it as a linalg body would: a scalar op on block arguments. The
  // scalar tree is built from a clone-free view: map operands to args.
  return eb.fromOperands(op, args);
}

/// Whether a linalg op is elementwise: all loops parallel, one result.
static bool isElementwise(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
         op->getNumResults() == 1 &&
         op.getNumParallelLoops() == op.getNumLoops() && op.getBlock();
}

ExprP ExprBuilder::deref(ExprP e) {
  if (e->kind != Expr::Leaf)
    return e;
  if (std::optional<double> c = splatValue(e->value))
    return constant(*c);
  auto [v, access] = resolveViews(e->value, e->access, atoms, record);
  if (std::optional<double> c = splatValue(v))
    return constant(*c);
  Operation *op = v.getDefiningOp();
  ExprP tree;
  if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      linalgOp && isElementwise(linalgOp)) {
    FailureOr<SmallVector<AtomList>> l = loopAtoms(linalgOp, 0, access, atoms);
    if (succeeded(l)) {
      SmallVector<ExprP> args;
      bool ok = true;
      for (OpOperand *in : linalgOp.getDpsInputOperands()) {
        FailureOr<Access> a =
            operandAccess(linalgOp.getMatchingIndexingMap(in), *l);
        if (failed(a)) {
          ok = false;
          break;
        }
        std::optional<double> c = splatValue(in->get());
        args.push_back(c ? constant(*c) : leaf(in->get(), *a));
      }
      if (ok) {
        SmallVector<AtomList> saved = std::move(loops);
        loops = *l;
        tree = fromScalar(
            linalgOp.getBlock()->getTerminator()->getOperand(0), args);
        loops = std::move(saved);
      }
    }
  } else if (op && op->getDialect() &&
             op->getDialect()->getNamespace() == "tosa") {
    tree = tosaTree(op, access, *this);
  } else if (op) {
    tree = mappableTree(op, access, *this);
    if (tree && tree->kind == Expr::Unknown)
      tree = nullptr;
  }
  if (!tree) {
    if (v == e->value)
      return e;
    return leaf(v, access);
  }
  if (record)
    record->insert(op);
  // An identity op (x + 0, x * 1): continue from its operand.
  if (tree->kind == Expr::Leaf)
    return deref(tree);
  if (tree->kind != Expr::Const) {
    tree = std::make_shared<Expr>(*tree);
    tree->origin = v;
    tree->originAccess = access;
  }
  return tree;
}

ExprP ExprBuilder::derefAll(ExprP e) {
  while (true) {
    ExprP d = deref(e);
    if (d == e)
      return e;
    e = d;
  }
}

static AtomList renamed(AtomList l, ArrayRef<std::pair<int, int>> subst) {
  for (int &a : l)
    for (auto [from, to] : subst)
      if (a == from)
        a = to;
  return l;
}

bool mlir::fa::raising::exprEqual(const ExprP &a, const ExprP &b,
                                  const AtomTable &atoms, ExprBuilder &eb,
                                  ArrayRef<std::pair<int, int>> subst) {
  if (a->kind == Expr::Unknown || b->kind == Expr::Unknown)
    return false;
  if (a->kind == Expr::Leaf && b->kind == Expr::Leaf) {
    if (a->value == b->value) {
      Access la = atoms.leaves(a->access), lb = atoms.leaves(b->access);
      if (la.size() != lb.size())
        return false;
      for (auto [x, y] : llvm::zip(la, lb))
        if (renamed(x, subst) != y)
          return false;
      return true;
    }
  }
  if (a->kind != b->kind) {
    ExprP da = eb.deref(a), db = eb.deref(b);
    if (da == a && db == b)
      return false;
    return exprEqual(da, db, atoms, eb, subst);
  }
  if (a->kind == Expr::Leaf) {
    ExprP da = eb.deref(a), db = eb.deref(b);
    if (da == a && db == b)
      return false;
    return exprEqual(da, db, atoms, eb, subst);
  }
  if (a->fval != b->fval || a->ival != b->ival || a->pred != b->pred ||
      a->ops.size() != b->ops.size())
    return false;
  if (a->kind == Expr::Index)
    return renamed(atoms.leaves(a->access[0]), subst) ==
           atoms.leaves(b->access[0]);
  for (auto [x, y] : llvm::zip(a->ops, b->ops))
    if (!exprEqual(x, y, atoms, eb, subst))
      return false;
  return true;
}

/// `x` converted to `type`: floats round, integers truncate toward zero and
/// wrap to their width; to i1 either `x != 0` or the low bit.
static double castValue(double x, Type type, bool nonzeroTest) {
  auto it = dyn_cast_or_null<IntegerType>(type);
  if (!it)
    return roundTo(x, type);
  if (it.getWidth() == 1)
    return nonzeroTest ? (x != 0) : (static_cast<int64_t>(x) & 1);
  APInt v(64, static_cast<uint64_t>(static_cast<int64_t>(std::trunc(x))),
          /*isSigned=*/true);
  return static_cast<double>(v.trunc(it.getWidth()).getSExtValue());
}

namespace {
/// Evaluates trees over the (i, j) grid of one attention head.
struct GridEvaluator {
  int iAtom, jAtom;
  const AtomTable &atoms;
  ExprBuilder &eb;
  std::string &why;
  struct Table {
    std::vector<double> values;
    int64_t base = 0, ci = 0, cj = 0;
  };

  /// The values of constant `v` (a dense constant, or static unit-stride
  /// slices of one: HF GPT-2's causal buffer cut to the sequence length)
  /// and how (i, j) index them, given the atoms of each dimension of `v`.
  LogicalResult loadConstant(Value v, const Access &l, Table &t) {
    SmallVector<int64_t> offsets(l.size(), 0);
    SmallVector<int> dimOf; // dimension of the constant of each dim of v
    for (unsigned d = 0; d < l.size(); ++d)
      dimOf.push_back(d);
    while (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
          !slice.hasUnitStride()) {
        why = "the mask slices a constant with dynamic offsets";
        return failure();
      }
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      SmallVector<int> srcDim; // result dim -> source dim
      for (unsigned d = 0; d < dropped.size(); ++d)
        if (!dropped[d])
          srcDim.push_back(d);
      SmallVector<int64_t> srcOffsets(slice.getStaticOffsets());
      for (unsigned k = 0; k < dimOf.size(); ++k)
        dimOf[k] = srcDim[dimOf[k]];
      // Offsets so far are in result dims: move them to the source's.
      SmallVector<int64_t> moved(srcOffsets.begin(), srcOffsets.end());
      for (unsigned d = 0; d < srcDim.size(); ++d)
        moved[srcDim[d]] += d < offsets.size() ? offsets[d] : 0;
      offsets = moved;
      v = slice.getSource();
    }
    DenseElementsAttr dense;
    if (auto c = v.getDefiningOp<tosa::ConstOp>())
      dense = dyn_cast<DenseElementsAttr>(c.getValues());
    else
      matchPattern(v, m_Constant(&dense));
    if (!dense) {
      why = "the mask depends on data";
      return failure();
    }
    auto type = cast<RankedTensorType>(dense.getType());
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (int d = type.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * type.getDimSize(d + 1);
    for (int d = 0; d < type.getRank(); ++d)
      t.base += (d < (int)offsets.size() ? offsets[d] : 0) * strides[d];
    for (unsigned k = 0; k < l.size(); ++k) {
      int64_t stride = strides[dimOf[k]];
      if (l[k].size() == 1 && l[k][0] == iAtom)
        t.ci = stride;
      else if (l[k].size() == 1 && l[k][0] == jAtom)
        t.cj = stride;
      else if (!l[k].empty()) {
        why = "the mask depends on the batch or head index";
        return failure();
      }
    }
    Type et = type.getElementType();
    if (isa<FloatType>(et))
      for (APFloat f : dense.getValues<APFloat>())
        t.values.push_back(f.convertToDouble());
    else if (et.isInteger(1))
      for (bool b : dense.getValues<bool>())
        t.values.push_back(b);
    else
      for (APInt b : dense.getValues<APInt>())
        t.values.push_back(b.getSExtValue());
    return success();
  }
  std::unordered_map<const Expr *, Table> tables;
  std::unordered_map<const Expr *, std::pair<int64_t, int64_t>> indices;

  /// Expands leaves, loads constant tensors; fails on data dependence.
  ExprP prepare(ExprP e) {
    if (e->kind == Expr::Leaf) {
      ExprP d = eb.deref(e);
      if (d != e)
        return prepare(d);
      Table t;
      if (failed(loadConstant(e->value, atoms.leaves(e->access), t)))
        return nullptr;
      tables[e.get()] = std::move(t);
      return e;
    }
    if (e->kind == Expr::Index) {
      AtomList l = atoms.leaves(e->access[0]);
      if (l.empty())
        indices[e.get()] = {0, 0};
      else if (l.size() == 1 && l[0] == iAtom)
        indices[e.get()] = {1, 0};
      else if (l.size() == 1 && l[0] == jAtom)
        indices[e.get()] = {0, 1};
      else {
        why = "the mask depends on the batch or head index";
        return nullptr;
      }
      return e;
    }
    if (e->kind == Expr::Unknown) {
      why = "the mask has an op that is not modelled";
      return nullptr;
    }
    ExprP copy = std::make_shared<Expr>(*e);
    for (ExprP &o : copy->ops) {
      o = prepare(o);
      if (!o)
        return nullptr;
    }
    return copy;
  }

  double eval(const Expr *e, int64_t i, int64_t j) {
    auto x = [&](unsigned k) { return eval(e->ops[k].get(), i, j); };
    switch (e->kind) {
    case Expr::Leaf: {
      const Table &t = tables.at(e);
      return t.values[t.base + t.ci * i + t.cj * j];
    }
    case Expr::Index: {
      auto [a, b] = indices.at(e);
      return a * i + b * j;
    }
    case Expr::Const:
      return e->fval;
    case Expr::IConst:
      return static_cast<double>(e->ival);
    case Expr::Add:
    case Expr::IAdd:
      return x(0) + x(1);
    case Expr::Sub:
    case Expr::ISub:
      return x(0) - x(1);
    case Expr::Mul:
      return x(0) * x(1);
    case Expr::Div:
      return x(0) / x(1);
    case Expr::Max:
      return std::max(x(0), x(1));
    case Expr::Exp:
      return std::exp(x(0));
    case Expr::Tanh:
      return std::tanh(x(0));
    case Expr::Log:
      return std::log(x(0));
    case Expr::Cast:
      return castValue(x(0), e->type, e->ival != 0);
    case Expr::Recip:
      return 1.0 / x(0);
    case Expr::Neg:
      return -x(0);
    case Expr::ExtF:
    case Expr::TruncF:
      return roundTo(x(0), e->type);
    case Expr::Select:
      return x(0) != 0 ? x(1) : x(2);
    case Expr::And:
      return (x(0) != 0 && x(1) != 0) ? 1 : 0;
    case Expr::Or:
      return (x(0) != 0 || x(1) != 0) ? 1 : 0;
    case Expr::Xor:
      return ((x(0) != 0) != (x(1) != 0)) ? 1 : 0;
    case Expr::CmpI: {
      double a = x(0), b = x(1);
      switch (static_cast<arith::CmpIPredicate>(e->pred)) {
      case arith::CmpIPredicate::eq: return a == b;
      case arith::CmpIPredicate::ne: return a != b;
      case arith::CmpIPredicate::slt:
      case arith::CmpIPredicate::ult: return a < b;
      case arith::CmpIPredicate::sle:
      case arith::CmpIPredicate::ule: return a <= b;
      case arith::CmpIPredicate::sgt:
      case arith::CmpIPredicate::ugt: return a > b;
      case arith::CmpIPredicate::sge:
      case arith::CmpIPredicate::uge: return a >= b;
      }
      return 0;
    }
    case Expr::CmpF: {
      double a = x(0), b = x(1);
      using P = arith::CmpFPredicate;
      switch (static_cast<P>(e->pred)) {
      case P::OEQ: case P::UEQ: return a == b;
      case P::ONE: case P::UNE: return a != b;
      case P::OLT: case P::ULT: return a < b;
      case P::OLE: case P::ULE: return a <= b;
      case P::OGT: case P::UGT: return a > b;
      case P::OGE: case P::UGE: return a >= b;
      case P::AlwaysTrue: return 1;
      default: return 0;
      }
    }
    default:
      return std::nan("");
    }
  }
};
} // namespace

FailureOr<std::vector<double>>
mlir::fa::raising::evaluateOnGrid(ExprP e, int iAtom, int jAtom, int64_t rows,
                                  int64_t cols, ExprBuilder &eb,
                                  std::string &why) {
  if (rows * cols > (int64_t(1) << 24)) {
    why = "the mask is too large to analyze (more than 2^24 entries)";
    return failure();
  }
  GridEvaluator g{iAtom, jAtom, eb.atoms, eb, why, {}, {}};
  ExprP p = g.prepare(e);
  if (!p)
    return failure();
  std::vector<double> out(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out[i * cols + j] = g.eval(p.get(), i, j);
  return out;
}

/// Walks a Q or K operand up through views, extensions and constant scalings
/// to the tensor the program holds. Every scaling on the way multiplies
/// `scale`, so any split of the softmax scale between Q and K (PyTorch's
/// math sdpa scales each by its square root) ends up in the op's scale.
std::pair<Value, Access>
mlir::fa::raising::traceOperand(Value v, Access access, AtomTable &atoms,
                                double &scale) {
  ExprBuilder eb{atoms, nullptr, {}};
  while (true) {
    std::tie(v, access) = resolveViews(v, access, atoms, nullptr);
    // Each step expands one op and keeps the operand unexpanded, so that
    // the walk stops at the tensor the scaling reads (a projection's bias
    // add is not looked into).
    ExprP e = eb.leaf(v, access);
    double s = 1.0;
    while (true) {
      ExprP d = eb.deref(e);
      // An identity op (x + 0 of a larger shape: TOSA's GQA broadcast).
      if (d->kind == Expr::Leaf && d->value != e->value) {
        e = d;
        continue;
      }
      if (d->kind == Expr::ExtF) {
        e = d->ops[0];
        continue;
      }
      if (d->kind == Expr::Mul || d->kind == Expr::Div) {
        ExprP a = d->ops[0], c = eb.deref(d->ops[1]);
        if (d->kind == Expr::Mul && !c->isConst() &&
            eb.deref(a)->isConst()) {
          a = d->ops[1];
          c = eb.deref(d->ops[0]);
        }
        if (c->isConst() && c->fval != 0.0) {
          s *= d->kind == Expr::Mul ? c->fval : 1.0 / c->fval;
          e = a;
          continue;
        }
      }
      break;
    }
    if (e->kind != Expr::Leaf || e->value == v)
      return {v, access};
    scale *= s;
    v = e->value;
    access = e->access;
  }
}


bool mlir::fa::raising::splitQuotient(const ExprP &e, ExprBuilder &eb,
                                      ExprP &num, ExprP &den) {
  if (e->kind == Expr::Div) {
    num = e->ops[0];
    den = e->ops[1];
    return true;
  }
  if (e->kind != Expr::Mul)
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    ExprP r = eb.deref(e->ops[i]);
    while (r->kind == Expr::ExtF || r->kind == Expr::TruncF)
      r = eb.deref(r->ops[0]);
    if (r->kind == Expr::Recip) {
      den = r->ops[0];
      num = e->ops[1 - i];
      return true;
    }
  }
  return false;
}

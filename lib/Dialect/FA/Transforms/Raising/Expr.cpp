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

#include "fa/Dialect/TMTensor/IR/TMTensor.h"

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

static ExprP constant(double v, Type type = {}) {
  ExprP e = make(Expr::Const);
  e->fval = v;
  e->type = type;
  return e;
}

/// An integer, index or boolean constant; null for widths over 64 bits,
/// which the evaluator does not model.
static ExprP iconstant(const APInt &v, Type type) {
  if (v.getBitWidth() > 64)
    return nullptr;
  ExprP e = make(Expr::IConst);
  e->ival = v.getSExtValue();
  e->type = type;
  return e;
}

std::string mlir::fa::raising::describeUnknown(const Expr &e) {
  if (Operation *op = e.value ? e.value.getDefiningOp() : nullptr)
    return "'" + op->getName().getStringRef().str() + "'";
  return "a block argument";
}

std::string mlir::fa::raising::describeNode(const Expr &e) {
  if (e.op)
    return "'" + e.op->getName().getStringRef().str() + "'";
  if (e.kind == Expr::Leaf || e.kind == Expr::Unknown) {
    if (Operation *op = e.value ? e.value.getDefiningOp() : nullptr)
      return "'" + op->getName().getStringRef().str() + "'";
    return "a function argument";
  }
  if (e.kind == Expr::Const || e.kind == Expr::IConst)
    return "a constant";
  return "a computed value";
}

double mlir::fa::raising::roundToType(double v, Type t) {
  auto ft = dyn_cast_or_null<FloatType>(t);
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
        return roundToType(f.getValueAsDouble(), tr.getType());
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

ExprP mlir::fa::raising::splatExpr(Value v) {
  if (!v)
    return nullptr;
  Value scalar;
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    scalar = fill.getInputs()[0];
  else if (auto splat = v.getDefiningOp<tensor::SplatOp>())
    scalar = splat.getInput();
  else if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>())
    return splatExpr(slice.getSource());
  Attribute attr;
  if (scalar) {
    // A truncated f64 constant (a float fill).
    if (auto tr = scalar.getDefiningOp<arith::TruncFOp>()) {
      FloatAttr f;
      if (matchPattern(tr.getIn(), m_Constant(&f)))
        return constant(roundToType(f.getValueAsDouble(), tr.getType()),
                        tr.getType());
      return nullptr;
    }
    if (!matchPattern(scalar, m_Constant(&attr)))
      return nullptr;
  } else if (auto c = v.getDefiningOp<tosa::ConstOp>()) {
    attr = c.getValues();
  } else if (!matchPattern(v, m_Constant(&attr))) {
    return nullptr;
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return constant(f.getValueAsDouble(), f.getType());
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return iconstant(i.getValue(), i.getType());
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat)
    return nullptr;
  Type et = splat.getElementType();
  if (isa<FloatType>(et))
    return constant(splat.getSplatValue<APFloat>().convertToDouble(), et);
  if (isa<IntegerType, IndexType>(et))
    return iconstant(splat.getSplatValue<APInt>(), et);
  return nullptr;
}

ExprP mlir::fa::raising::copyWithOperands(
    const ExprP &e, llvm::function_ref<ExprP(ExprP)> f) {
  ExprP copy = std::make_shared<Expr>(*e);
  for (ExprP &o : copy->ops) {
    o = f(o);
    if (!o)
      return nullptr;
  }
  return copy;
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
      return constant(roundToType(e->ops[0]->fval, e->type), e->type);
    break;
  case Expr::Neg:
    if (c(0))
      return constant(-e->ops[0]->fval, e->type);
    break;
  case Expr::Div:
    if (c(0) && c(1))
      return constant(roundToType(e->ops[0]->fval / e->ops[1]->fval, e->type),
                      e->type);
    if (c(0) && e->ops[0]->fval == 1.0) {
      ExprP r = make(Expr::Recip, {e->ops[1]});
      r->type = e->type;
      return r;
    }
    break;
  case Expr::Mul:
    if (c(0) && c(1))
      return constant(roundToType(e->ops[0]->fval * e->ops[1]->fval, e->type),
                      e->type);
    break;
  case Expr::Recip:
    if (c(0))
      return constant(roundToType(1.0 / e->ops[0]->fval, e->type), e->type);
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
  e->value = s;
  return e;
}

ExprP ExprBuilder::fromScalarImpl(Value s, ArrayRef<ExprP> args) {
  if (auto arg = dyn_cast<BlockArgument>(s)) {
    // The body of a linalg op, or a scan's combiner (PositionTensors.cpp).
    if (arg.getOwner()->getParentOp() &&
        isa<linalg::LinalgOp, tm_tensor::ScanOp>(
            arg.getOwner()->getParentOp()) &&
        arg.getArgNumber() < args.size())
      return args[arg.getArgNumber()];
    return nullptr;
  }
  Operation *op = s.getDefiningOp();
  Attribute attr;
  if (matchPattern(s, m_Constant(&attr))) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      return constant(f.getValueAsDouble(), f.getType());
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return iconstant(i.getValue(), i.getType());
    return nullptr;
  }
  // A tensor defined outside the body, read at computed indices.
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    ExprP e = make(Expr::Extract);
    for (Value index : extract.getIndices())
      e->ops.push_back(fromScalar(index, args));
    e->value = extract.getTensor();
    e->type = s.getType();
    e->op = op;
    return e;
  }
  return fromOp(op, [&](unsigned i) { return fromScalar(op->getOperand(i), args); });
}

ExprP ExprBuilder::fromOperands(Operation *op, ArrayRef<ExprP> args) {
  ExprP e = fromOp(op, [&](unsigned i) { return args[i]; });
  if (e)
    return e;
  e = make(Expr::Unknown);
  e->type = getElementTypeOrSelf(op->getResult(0).getType());
  e->value = op->getResult(0);
  return e;
}

/// The overflow flags of an arith integer op (nsw / nuw: overflow is
/// poison).
static uint8_t overflowFlags(Operation *op) {
  auto iface = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op);
  if (!iface)
    return 0;
  uint8_t flags = 0;
  if (iface.hasNoSignedWrap())
    flags |= Expr::NSW;
  if (iface.hasNoUnsignedWrap())
    flags |= Expr::NUW;
  return flags;
}

/// How an arith cast op converts; None if `op` is no cast.
static Expr::CastKind arithCastKind(Operation *op) {
  using CK = Expr::CastKind;
  if (isa<arith::TruncIOp, arith::ExtSIOp, arith::IndexCastOp>(op))
    return CK::IntS;
  if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
    return CK::IntU;
  if (isa<arith::SIToFPOp>(op))
    return CK::SIToFP;
  if (isa<arith::UIToFPOp>(op))
    return CK::UIToFP;
  if (isa<arith::FPToSIOp>(op))
    return CK::FPToSI;
  if (isa<arith::FPToUIOp>(op))
    return CK::FPToUI;
  return CK::None;
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
    e->op = op;
    e->overflow = overflowFlags(op);
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
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    return node(Expr::Min, 2);
  if (isa<arith::NegFOp>(op))
    return node(Expr::Neg, 1);
  if (isa<math::ExpOp>(op))
    return node(Expr::Exp, 1);
  if (isa<math::TanhOp>(op))
    return node(Expr::Tanh, 1);
  if (isa<math::LogOp>(op))
    return node(Expr::Log, 1);
  if (isa<math::PowFOp>(op))
    return node(Expr::Pow, 2);
  if (isa<math::AbsIOp, math::AbsFOp>(op))
    return node(Expr::Abs, 1);
  if (isa<math::FloorOp>(op))
    return node(Expr::Floor, 1);
  if (isa<math::CeilOp>(op))
    return node(Expr::Ceil, 1);
  if (Expr::CastKind ck = arithCastKind(op); ck != Expr::CastKind::None) {
    ExprP e = node(Expr::Cast, 1);
    if (e)
      e->cast = ck;
    return e;
  }
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
  if (isa<arith::MulIOp>(op))
    return node(Expr::IMul, 2);
  if (isa<arith::MaxSIOp>(op))
    return node(Expr::IMaxS, 2);
  if (isa<arith::MinSIOp>(op))
    return node(Expr::IMinS, 2);
  if (isa<arith::MaxUIOp>(op))
    return node(Expr::IMaxU, 2);
  if (isa<arith::MinUIOp>(op))
    return node(Expr::IMinU, 2);
  if (isa<arith::DivSIOp>(op))
    return node(Expr::IDivS, 2);
  if (isa<arith::DivUIOp>(op))
    return node(Expr::IDivU, 2);
  if (isa<arith::RemSIOp>(op))
    return node(Expr::IRemS, 2);
  if (isa<arith::RemUIOp>(op))
    return node(Expr::IRemU, 2);
  if (isa<arith::AndIOp>(op))
    return node(Expr::And, 2);
  if (isa<arith::OrIOp>(op))
    return node(Expr::Or, 2);
  if (isa<arith::XOrIOp>(op))
    return node(Expr::Xor, 2);
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
    e->type = type;
    return e;
  }
  return nullptr;
}

/// How tosa.cast converts `from` to `to` (what tosa-to-linalg emits);
/// None for float to float (ExtF / TruncF) and the identity.
static Expr::CastKind tosaCastKind(Type from, Type to) {
  using CK = Expr::CastKind;
  if (from == to || (isa<FloatType>(from) && isa<FloatType>(to)))
    return CK::None;
  if (to.isInteger(1))
    return CK::NonZero;
  bool fromBool = from.isInteger(1);
  if (isa<FloatType>(to))
    return fromBool ? CK::UIToFP : CK::SIToFP;
  if (isa<FloatType>(from))
    return CK::FPToIntSat;
  return fromBool ? CK::IntU : CK::IntS;
}

/// The values of a tosa.const_shape.
static std::optional<SmallVector<int64_t>> constShape(Value v) {
  auto cs = v.getDefiningOp<tosa::ConstShapeOp>();
  if (!cs)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &x : cs.getValues().getValues<APInt>())
    out.push_back(x.getSExtValue());
  return out;
}

namespace {
/// Index arithmetic for the reads of TOSA's data-movement ops: trees of
/// index type over the result's atoms.
struct IndexTrees {
  MLIRContext *ctx;
  ExprP node(Expr::Kind k, ArrayRef<ExprP> ops) const {
    ExprP e = make(k, ops);
    e->type = IndexType::get(ctx);
    return e;
  }
  ExprP constant(int64_t v) const {
    return iconstant(APInt(64, v, /*isSigned=*/true), IndexType::get(ctx));
  }
  /// The position along a result dimension (0 for a unit one).
  ExprP position(const AtomList &l) const {
    ExprP e = make(Expr::Index);
    e->access = {l};
    e->type = IndexType::get(ctx);
    return e;
  }
  ExprP plus(ExprP a, int64_t c) const {
    return c ? node(Expr::IAdd, {a, constant(c)}) : a;
  }
  /// `a` clamped into [0, size): reads stay in bounds where a select
  /// discards them.
  ExprP clamp(ExprP a, int64_t size) const {
    return node(Expr::IMinS,
                {node(Expr::IMaxS, {a, constant(0)}), constant(size - 1)});
  }
  /// lo <= a < hi, as an i1 tree.
  ExprP within(ExprP a, int64_t lo, int64_t hi) const {
    auto cmp = [&](arith::CmpIPredicate p, ExprP x, ExprP y) {
      ExprP e = make(Expr::CmpI, {x, y});
      e->pred = static_cast<int64_t>(p);
      e->type = IntegerType::get(ctx, 1);
      return e;
    };
    ExprP e = make(Expr::And, {cmp(arith::CmpIPredicate::sge, a, constant(lo)),
                               cmp(arith::CmpIPredicate::slt, a, constant(hi))});
    e->type = IntegerType::get(ctx, 1);
    return e;
  }
};
} // namespace

/// `v` read at the index trees `at` (one per dimension).
static ExprP readAt(Value v, ArrayRef<ExprP> at, Operation *op) {
  ExprP e = make(Expr::Extract, at);
  e->value = v;
  e->type = getElementTypeOrSelf(v.getType());
  e->op = op;
  return e;
}

/// TOSA's data-movement ops (slice, tile, pad, concat, gather) read at
/// `access`, as reads of their operands at computed positions: masks built
/// from position ids go through them (transformers' packed-sequence
/// detection is a scan spelt as pads, slices and adds). Null if not one.
static ExprP tosaMovement(Operation *op, const Access &access) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || access.size() != type.getRank())
    return nullptr;
  IndexTrees t{op->getContext()};
  unsigned rank = type.getRank();
  auto positions = [&] {
    SmallVector<ExprP> p;
    for (const AtomList &l : access)
      p.push_back(t.position(l));
    return p;
  };
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  if (auto slice = dyn_cast<tosa::SliceOp>(op)) {
    std::optional<SmallVector<int64_t>> start = constShape(slice.getStart());
    if (!start || start->size() != rank)
      return nullptr;
    SmallVector<ExprP> at = positions();
    for (unsigned d = 0; d < rank; ++d)
      at[d] = t.plus(at[d], (*start)[d]);
    return readAt(slice.getInput1(), at, op);
  }
  if (auto tile = dyn_cast<tosa::TileOp>(op)) {
    ArrayRef<int64_t> in = shapeOf(tile.getInput1());
    SmallVector<ExprP> at = positions();
    for (unsigned d = 0; d < rank; ++d)
      if (in[d] != type.getDimSize(d))
        at[d] = t.node(Expr::IRemU, {at[d], t.constant(in[d])});
    return readAt(tile.getInput1(), at, op);
  }
  if (auto pad = dyn_cast<tosa::PadOp>(op)) {
    std::optional<SmallVector<int64_t>> padding = constShape(pad.getPadding());
    ExprP fill = splatExpr(pad.getPadConst());
    if (!padding || padding->size() != 2 * rank || !fill)
      return nullptr;
    ArrayRef<int64_t> in = shapeOf(pad.getInput1());
    SmallVector<ExprP> at = positions();
    ExprP inside;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t lo = (*padding)[2 * d];
      if (!lo && in[d] == type.getDimSize(d))
        continue;
      ExprP shifted = t.plus(at[d], -lo);
      ExprP ok = t.within(shifted, 0, in[d]);
      inside = inside ? make(Expr::And, {inside, ok}) : ok;
      inside->type = IntegerType::get(op->getContext(), 1);
      at[d] = t.clamp(shifted, in[d]);
    }
    ExprP read = readAt(pad.getInput1(), at, op);
    if (!inside)
      return read;
    ExprP e = make(Expr::Select, {inside, read, fill});
    e->type = type.getElementType();
    e->op = op;
    return e;
  }
  if (auto concat = dyn_cast<tosa::ConcatOp>(op)) {
    unsigned axis = concat.getAxis();
    // The last operand, then each earlier one where the position falls in
    // its range.
    SmallVector<int64_t> starts;
    int64_t offset = 0;
    for (Value in : concat.getInput1()) {
      starts.push_back(offset);
      offset += shapeOf(in)[axis];
    }
    ExprP e;
    for (int k = concat.getInput1().size() - 1; k >= 0; --k) {
      Value in = concat.getInput1()[k];
      SmallVector<ExprP> at = positions();
      ExprP local = t.plus(at[axis], -starts[k]);
      at[axis] = t.clamp(local, shapeOf(in)[axis]);
      ExprP read = readAt(in, at, op);
      if (!e) {
        e = read;
        continue;
      }
      ExprP sel = make(Expr::Select,
                       {t.within(local, 0, shapeOf(in)[axis]), read, e});
      sel->type = type.getElementType();
      sel->op = op;
      e = sel;
    }
    return e;
  }
  // A reduction over a short axis, unrolled (the linear index of advanced
  // indexing: tosa.mul by the strides, then tosa.reduce_sum).
  // Integers only: float reductions are the softmax's row max and sum,
  // which the matchers read as reductions.
  auto reduction = [&](Value in, unsigned axis, Expr::Kind k) -> ExprP {
    int64_t n = shapeOf(in)[axis];
    if (n < 1 || n > 64 || !isa<IntegerType>(type.getElementType()))
      return nullptr;
    ExprP acc;
    for (int64_t x = 0; x < n; ++x) {
      SmallVector<ExprP> at = positions();
      at[axis] = t.constant(x);
      ExprP read = readAt(in, at, op);
      if (acc) {
        acc = make(k, {acc, read});
        acc->type = type.getElementType();
        acc->op = op;
      } else {
        acc = read;
      }
    }
    return acc;
  };
  if (auto r = dyn_cast<tosa::ReduceSumOp>(op))
    return reduction(r.getInput(), r.getAxis(), Expr::Add);
  if (auto r = dyn_cast<tosa::ReduceMaxOp>(op))
    return reduction(r.getInput(), r.getAxis(), Expr::Max);
  if (auto r = dyn_cast<tosa::ReduceMinOp>(op))
    return reduction(r.getInput(), r.getAxis(), Expr::Min);
  if (auto r = dyn_cast<tosa::ReduceAllOp>(op))
    return reduction(r.getInput(), r.getAxis(), Expr::And);
  if (auto r = dyn_cast<tosa::ReduceAnyOp>(op))
    return reduction(r.getInput(), r.getAxis(), Expr::Or);
  if (auto gather = dyn_cast<tosa::GatherOp>(op)) {
    // out[n, w, c] = values[n, indices[n, w], c]
    if (rank != 3)
      return nullptr;
    SmallVector<ExprP> at = positions();
    ExprP index = readAt(gather.getIndices(), {at[0], at[1]}, op);
    ExprP asIndex = make(Expr::Cast, {index});
    asIndex->cast = Expr::CastKind::IntS;
    asIndex->type = IndexType::get(op->getContext());
    return readAt(gather.getValues(), {at[0], asIndex, at[2]}, op);
  }
  return nullptr;
}

/// The tree of a TOSA elementwise op read at `access`, null if not one.
static ExprP tosaTree(Operation *op, const Access &access, ExprBuilder &eb) {
  if (ExprP e = tosaMovement(op, access))
    return e;
  auto operandLeaf = [&](unsigned i) -> ExprP {
    Value v = op->getOperand(i);
    if (ExprP c = splatExpr(v))
      return c;
    auto t = cast<RankedTensorType>(v.getType());
    Access a;
    for (unsigned d = 0; d < t.getRank(); ++d)
      a.push_back(t.getDimSize(d) == 1 ? AtomList{} : access[d]);
    return eb.leaf(v, a);
  };
  Type type = getElementTypeOrSelf(op->getResult(0).getType());
  auto node = [&](Expr::Kind k, unsigned n) {
    SmallVector<ExprP> ops;
    for (unsigned i = 0; i < n; ++i)
      ops.push_back(operandLeaf(i));
    ExprP e = make(k, ops);
    e->type = type;
    e->op = op;
    return fold(e);
  };
  bool isInt = isa<IntegerType>(type);
  if (isa<tosa::AddOp>(op))
    return node(Expr::Add, 2);
  if (isa<tosa::SubOp>(op))
    return node(Expr::Sub, 2);
  if (auto mul = dyn_cast<tosa::MulOp>(op)) {
    // An integer product with a shift rounds: not modelled.
    if (isInt) {
      ExprP shift = splatExpr(mul.getShift());
      if (!shift || shift->kind != Expr::IConst || shift->ival != 0)
        return nullptr;
    }
    return node(Expr::Mul, 2);
  }
  if (isa<tosa::MaximumOp>(op))
    return node(Expr::Max, 2);
  if (isa<tosa::MinimumOp>(op))
    return node(Expr::Min, 2);
  if (isa<tosa::ExpOp>(op))
    return node(Expr::Exp, 1);
  if (isa<tosa::TanhOp>(op))
    return node(Expr::Tanh, 1);
  if (isa<tosa::LogOp>(op))
    return node(Expr::Log, 1);
  if (isa<tosa::AbsOp>(op))
    return node(Expr::Abs, 1);
  if (isa<tosa::FloorOp>(op))
    return node(Expr::Floor, 1);
  if (isa<tosa::CeilOp>(op))
    return node(Expr::Ceil, 1);
  if (isa<tosa::ReciprocalOp>(op))
    return node(Expr::Recip, 1);
  if (isa<tosa::SelectOp>(op))
    return node(Expr::Select, 3);
  if (isa<tosa::GreaterOp, tosa::GreaterEqualOp, tosa::EqualOp>(op)) {
    Type t = getElementTypeOrSelf(op->getOperand(0).getType());
    bool isFloat = isa<FloatType>(t);
    ExprP e = node(isFloat ? Expr::CmpF : Expr::CmpI, 2);
    // TOSA's integers are signed.
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
  if (isa<tosa::LogicalAndOp, tosa::BitwiseAndOp>(op))
    return node(Expr::And, 2);
  if (isa<tosa::LogicalOrOp, tosa::BitwiseOrOp>(op))
    return node(Expr::Or, 2);
  if (isa<tosa::LogicalXorOp, tosa::BitwiseXorOp>(op))
    return node(Expr::Xor, 2);
  if (isa<tosa::LogicalNotOp>(op)) {
    ExprP e = make(Expr::Xor, {operandLeaf(0), iconstant(APInt(1, 1), type)});
    e->type = type;
    e->op = op;
    return e;
  }
  if (auto castOp = dyn_cast<tosa::CastOp>(op)) {
    Type fromT = getElementTypeOrSelf(castOp.getInput());
    if (fromT == type)
      return operandLeaf(0);
    Expr::CastKind ck = tosaCastKind(fromT, type);
    if (ck == Expr::CastKind::None)
      return node(cast<FloatType>(fromT).getWidth() <
                          cast<FloatType>(type).getWidth()
                      ? Expr::ExtF
                      : Expr::TruncF,
                  1);
    ExprP e = node(Expr::Cast, 1);
    e->cast = ck;
    return e;
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
    ExprP c = splatExpr(v);
    args.push_back(c ? c : eb.leaf(v, access));
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
  if (ExprP c = splatExpr(e->value))
    return c;
  auto [v, access] = resolveViews(e->value, e->access, atoms, record);
  if (ExprP c = splatExpr(v))
    return c;
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
        ExprP c = splatExpr(in->get());
        args.push_back(c ? c : leaf(in->get(), *a));
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
  if (tree->kind != Expr::Const && tree->kind != Expr::IConst) {
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
      a->cast != b->cast || a->ops.size() != b->ops.size())
    return false;
  if (a->kind == Expr::Extract && a->value != b->value)
    return false;
  if (a->kind == Expr::Index)
    return renamed(atoms.leaves(a->access[0]), subst) ==
           atoms.leaves(b->access[0]);
  for (auto [x, y] : llvm::zip(a->ops, b->ops))
    if (!exprEqual(x, y, atoms, eb, subst))
      return false;
  return true;
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

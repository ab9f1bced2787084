//===- Evaluate.cpp - Masks evaluated on the (row, key) grid --------------===//
//
// A mask or bias that depends only on the query row, the key column and
// constants is evaluated at compile time at every (i, j), in the program's
// own arithmetic: integers exactly at their width and signedness (index is
// 64 bits), wrapping where the IR wraps; floats rounded to their type after
// every op. Wherever the IR has no defined value (an overflow its flags
// forbid, a float out of an integer's range, a division by zero) the
// evaluation fails with a remark instead of guessing: a mask is raised only
// when it is proved on the types the program computes in.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <unordered_map>

#define DEBUG_TYPE "fa-raise-attention"

using namespace mlir;
using namespace mlir::fa::raising;

namespace {

/// The width of an integer or index type (index is 64 bits, as on every
/// target the project lowers to); 0 for anything else.
unsigned intWidth(Type t) {
  if (auto it = dyn_cast_or_null<IntegerType>(t))
    return it.getWidth();
  if (isa_and_nonnull<IndexType>(t))
    return 64;
  return 0;
}

/// A value of the program (Scalar) with its constructors.
struct Val : Scalar {
  static Val integer(APInt v) {
    Val r;
    r.i = std::move(v);
    r.isInt = true;
    return r;
  }
  static Val real(double v) {
    Val r;
    r.f = v;
    return r;
  }
};

/// A constant tensor's elements and how the atoms index them: element
/// base + sum of stride * (linear index of the dim's atoms).
struct Table {
  unsigned width = 0; // integer width; 0 for floats
  std::vector<double> floats;
  std::vector<uint64_t> ints;
  int64_t base = 0;
  SmallVector<std::pair<AtomList, int64_t>> dims;
  Val at(int64_t k) const {
    if (!width)
      return Val::real(floats[k]);
    return Val::integer(APInt(width, ints[k]));
  }
};

/// A tensor.extract: the extracted tensor expanded at fresh atoms, one per
/// dimension (none for unit dims), bound to the indices when evaluated.
struct Gather {
  ExprP tensor;
  SmallVector<std::pair<AtomList, int64_t>> dims;
};

/// A short name of the op behind a node, for remarks.
std::string opName(const Expr *e) {
  if (e->op)
    return "'" + e->op->getName().getStringRef().str() + "'";
  return "an op";
}

/// Evaluates trees at the points of a grid of atoms (the query row and key
/// column of one attention head, and maybe the batch).
class GridEvaluator {
public:
  /// `labels[k]` names grid atom k in remarks ("row", "key").
  GridEvaluator(ArrayRef<int> grid, ArrayRef<std::string> labels,
                ExprBuilder &eb, std::string &why)
      : grid(grid), labels(labels), eb(eb), why(why) {
    for (int a : grid)
      free.insert(a);
  }

  /// Expands leaves, loads constant tensors; fails on data dependence and
  /// on ops not modelled.
  ExprP prepare(ExprP e);
  ExprP prepareExtract(const ExprP &e);

  /// The value at the point bound by `set`; sets `failed` (and `why`) where
  /// the program has no defined value or mixes types the evaluator does not
  /// model.
  Val eval(const Expr *e);
  /// Binds `atom` to `v`, and the parts a view split it into to their
  /// digits of `v`.
  void set(int atom, int64_t v) {
    AtomList parts = eb.atoms.leaves(AtomList{atom});
    if (parts.empty())
      parts = {atom};
    for (int k = parts.size() - 1; k >= 0; --k) {
      int64_t size = eb.atoms.size(parts[k]);
      put(parts[k], parts.size() == 1 ? v : v % size);
      v /= size;
    }
  }
  bool failed = false;

private:
  LogicalResult loadConstant(Value v, const Access &l, Table &t);
  /// The linear index of `leaves` (outer to inner) at the current point.
  int64_t linear(ArrayRef<int> leaves) const {
    int64_t v = 0;
    for (int a : leaves)
      v = v * eb.atoms.size(a) + ((size_t)a < env.size() ? env[a] : 0);
    return v;
  }
  void put(int atom, int64_t v) {
    if (env.size() <= (size_t)atom)
      env.resize(atom + 1, 0);
    env[atom] = v;
  }
  /// Whether the evaluator binds every atom of `l`: the grid's, the
  /// gathers', and the parts views split them into.
  bool bound(const AtomList &l) {
    return llvm::all_of(l, [&](int a) {
      if (free.contains(a))
        return true;
      for (int f : free)
        if (llvm::is_contained(eb.atoms.leaves(AtomList{f}), a)) {
          free.insert(a);
          return true;
        }
      return false;
    });
  }
  std::string where() const {
    std::string s;
    for (auto [k, a] : llvm::enumerate(grid))
      s += (k ? ", " : " at ") + labels[k] + " " +
           std::to_string((size_t)a < env.size() ? env[a] : 0);
    return s;
  }
  Val fail(const Expr *e, const std::string &what) {
    if (!failed)
      why = "the mask's " + opName(e) + " " + what + where() +
            ": the program has no defined value there";
    failed = true;
    return Val::integer(APInt(1, 0));
  }
  Val mismatch(const Expr *e) {
    if (!failed)
      why = "the mask's " + opName(e) +
            " mixes integer and float values in a way not modelled";
    failed = true;
    return Val::integer(APInt(1, 0));
  }
  Val evalInt(const Expr *e, const Val &a, const Val &b);
  Val evalFloat(const Expr *e, const Val &a, const Val &b);
  Val evalCast(const Expr *e, const Val &x);
  Val evalExtract(const Expr *e);

  SmallVector<int> grid;
  SmallVector<std::string> labels;
  ExprBuilder &eb;
  std::string &why;
  /// Atoms with a value: the grid's and those of the gathers.
  llvm::DenseSet<int> free;
  std::vector<int64_t> env;
  std::unordered_map<const Expr *, Table> tables;
  std::unordered_map<const Expr *, AtomList> indices;
  std::unordered_map<const Expr *, Gather> gathers;
};

/// The values of constant `v` (a dense constant, or static unit-stride
/// slices of one: HF GPT-2's causal buffer cut to the sequence length) and
/// how (i, j) index them, given the atoms of each dimension of `v`.
LogicalResult GridEvaluator::loadConstant(Value v, const Access &l, Table &t) {
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
  DenseElementsAttr dense = constantElements(v);
  if (!dense) {
    // A tensor the program computes from constants (position ids, aranges).
    FailureOr<DenseElementsAttr> folded = foldPositionTensor(v, eb, why);
    if (::failed(folded)) {
      LLVM_DEBUG(llvm::dbgs() << "mask reads data: " << v << "\n");
      return failure();
    }
    dense = *folded;
  }
  auto type = cast<RankedTensorType>(dense.getType());
  SmallVector<int64_t> strides(type.getRank(), 1);
  for (int d = type.getRank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  for (int d = 0; d < type.getRank(); ++d)
    t.base += (d < (int)offsets.size() ? offsets[d] : 0) * strides[d];
  for (unsigned k = 0; k < l.size(); ++k) {
    if (!bound(l[k])) {
      why = kDependsOnBatchOrHead;
      return failure();
    }
    if (!l[k].empty())
      t.dims.push_back({l[k], strides[dimOf[k]]});
  }
  Type et = type.getElementType();
  if (isa<FloatType>(et)) {
    for (APFloat f : dense.getValues<APFloat>())
      t.floats.push_back(f.convertToDouble());
    return success();
  }
  t.width = intWidth(et);
  if (!t.width || t.width > 64) {
    why = "the mask reads a constant of element type not modelled";
    return failure();
  }
  for (APInt b : dense.getValues<APInt>())
    t.ints.push_back(b.getZExtValue());
  return success();
}

ExprP GridEvaluator::prepare(ExprP e) {
  if (e->kind == Expr::Leaf) {
    ExprP d = eb.deref(e);
    if (d != e)
      return prepare(d);
    Table t;
    if (::failed(loadConstant(e->value, eb.atoms.leaves(e->access), t)))
      return nullptr;
    tables[e.get()] = std::move(t);
    return e;
  }
  if (e->kind == Expr::Index) {
    AtomList l = eb.atoms.leaves(e->access[0]);
    if (!bound(l)) {
      why = kDependsOnBatchOrHead;
      return nullptr;
    }
    indices[e.get()] = l;
    return e;
  }
  if (e->kind == Expr::Extract)
    return prepareExtract(e);
  if (e->kind == Expr::Unknown) {
    why = "the mask has an op that is not modelled: " + describeUnknown(*e);
    return nullptr;
  }
  if (e->kind == Expr::IConst && !intWidth(e->type)) {
    why = "the mask has an integer constant of a type not modelled";
    return nullptr;
  }
  return copyWithOperands(e, [&](ExprP o) { return prepare(o); });
}

/// The extracted tensor is expanded at fresh atoms that the indices bind.
ExprP GridEvaluator::prepareExtract(const ExprP &e) {
  auto type = dyn_cast<RankedTensorType>(e->value.getType());
  if (!type || !type.hasStaticShape()) {
    why = "the mask reads a tensor of dynamic shape with " + opName(e.get());
    return nullptr;
  }
  Gather g;
  Access access = eb.atoms.freshAccess(type.getShape());
  for (auto [l, size] : llvm::zip(access, type.getShape())) {
    for (int a : l)
      free.insert(a);
    g.dims.push_back({l, size});
  }
  g.tensor = prepare(eb.leaf(e->value, access));
  if (!g.tensor)
    return nullptr;
  ExprP copy = copyWithOperands(e, [&](ExprP o) { return prepare(o); });
  if (!copy)
    return nullptr;
  gathers[copy.get()] = std::move(g);
  return copy;
}

/// Whether `x` (a float held as a double) compares to `y` as `p` says,
/// with IEEE unordered semantics for NaN.
bool compareFloats(arith::CmpFPredicate p, double x, double y) {
  using P = arith::CmpFPredicate;
  bool uno = std::isnan(x) || std::isnan(y);
  switch (p) {
  case P::AlwaysFalse: return false;
  case P::OEQ: return !uno && x == y;
  case P::OGT: return !uno && x > y;
  case P::OGE: return !uno && x >= y;
  case P::OLT: return !uno && x < y;
  case P::OLE: return !uno && x <= y;
  case P::ONE: return !uno && x != y;
  case P::ORD: return !uno;
  case P::UEQ: return uno || x == y;
  case P::UGT: return uno || x > y;
  case P::UGE: return uno || x >= y;
  case P::ULT: return uno || x < y;
  case P::ULE: return uno || x <= y;
  case P::UNE: return uno || x != y;
  case P::UNO: return uno;
  case P::AlwaysTrue: return true;
  }
  return false;
}

/// Binary integer ops (both operands of the node's width).
Val GridEvaluator::evalInt(const Expr *e, const Val &a, const Val &b) {
  const APInt &x = a.i, &y = b.i;
  auto checked = [&](APInt r, bool signedOv, bool unsignedOv) -> Val {
    if (((e->overflow & Expr::NSW) && signedOv) ||
        ((e->overflow & Expr::NUW) && unsignedOv))
      return fail(e, "overflows although its flags forbid it");
    return Val::integer(std::move(r));
  };
  // The wrapped result, and whether it overflowed signed / unsigned.
  using OverflowOp = APInt (APInt::*)(const APInt &, bool &) const;
  auto wrapping = [&](OverflowOp s, OverflowOp u) {
    bool so = false, uo = false;
    APInt r = (x.*s)(y, so);
    (void)(x.*u)(y, uo);
    return checked(std::move(r), so, uo);
  };
  switch (e->kind) {
  case Expr::Add:
  case Expr::IAdd: return wrapping(&APInt::sadd_ov, &APInt::uadd_ov);
  case Expr::Sub:
  case Expr::ISub: return wrapping(&APInt::ssub_ov, &APInt::usub_ov);
  case Expr::Mul:
  case Expr::IMul: return wrapping(&APInt::smul_ov, &APInt::umul_ov);
  case Expr::Max: // TOSA: signed
  case Expr::IMaxS: return Val::integer(x.sge(y) ? x : y);
  case Expr::Min:
  case Expr::IMinS: return Val::integer(x.sle(y) ? x : y);
  case Expr::IMaxU: return Val::integer(x.uge(y) ? x : y);
  case Expr::IMinU: return Val::integer(x.ule(y) ? x : y);
  case Expr::IDivS:
  case Expr::IRemS:
    if (y.isZero() || (x.isMinSignedValue() && y.isAllOnes()))
      return fail(e, "divides by zero or overflows");
    return Val::integer(e->kind == Expr::IDivS ? x.sdiv(y) : x.srem(y));
  case Expr::IDivU:
  case Expr::IRemU:
    if (y.isZero())
      return fail(e, "divides by zero");
    return Val::integer(e->kind == Expr::IDivU ? x.udiv(y) : x.urem(y));
  case Expr::And: return Val::integer(x & y);
  case Expr::Or: return Val::integer(x | y);
  case Expr::Xor: return Val::integer(x ^ y);
  default:
    return mismatch(e);
  }
}

/// x^y when y is an integer and every product on the way is exact in `t`:
/// then any pow returns it. Otherwise the last bit depends on the target's
/// libm, which a mask may compare at: nullopt.
static std::optional<double> exactPower(double x, double y, Type t) {
  auto ft = dyn_cast_or_null<FloatType>(t);
  if (!ft || !std::isfinite(x) || !std::isfinite(y) || y != std::trunc(y) ||
      std::fabs(y) > 4096)
    return std::nullopt;
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  constexpr auto rm = APFloat::rmNearestTiesToEven;
  APFloat base(x);
  bool lost = false;
  if (base.convert(sem, rm, &lost) != APFloat::opOK || lost)
    return std::nullopt;
  APFloat r = APFloat::getOne(sem);
  for (int64_t n = std::abs(static_cast<int64_t>(y)); n; n >>= 1) {
    if ((n & 1) && r.multiply(base, rm) != APFloat::opOK)
      return std::nullopt;
    if (n > 1 && base.multiply(base, rm) != APFloat::opOK)
      return std::nullopt;
  }
  if (y < 0) {
    APFloat one = APFloat::getOne(sem);
    if (one.divide(r, rm) != APFloat::opOK)
      return std::nullopt;
    r = one;
  }
  return r.convertToDouble();
}

/// Binary float ops, rounded to the node's type.
Val GridEvaluator::evalFloat(const Expr *e, const Val &a, const Val &b) {
  double x = a.f, y = b.f, r;
  switch (e->kind) {
  case Expr::Pow: {
    std::optional<double> p = exactPower(x, y, e->type);
    if (!p) {
      if (!failed)
        why = "the mask's " + opName(e) + " computes " +
              llvm::formatv("{0} ^ {1}", llvm::format("%g", x), llvm::format("%g", y))
                  .str() + where() +
              ": only integer powers whose result its type represents "
              "exactly are evaluated (the rounding of others depends on the "
              "target's libm)";
      failed = true;
      return Val::real(0);
    }
    return Val::real(*p);
  }
  case Expr::Add: r = x + y; break;
  case Expr::Sub: r = x - y; break;
  case Expr::Mul: r = x * y; break;
  case Expr::Div: r = x / y; break;
  case Expr::Max:
  case Expr::Min:
    // maximumf and maxnumf differ on NaN (and tosa on its nan_mode).
    if (std::isnan(x) || std::isnan(y)) {
      if (!failed)
        why = "the mask's " + opName(e) + " sees a NaN";
      failed = true;
      return Val::real(0);
    }
    if (x == y) // -0 and +0: maximumf orders them, keep it exact
      r = e->kind == Expr::Max ? (std::signbit(x) ? y : x)
                               : (std::signbit(x) ? x : y);
    else
      r = e->kind == Expr::Max ? std::max(x, y) : std::min(x, y);
    break;
  default:
    return mismatch(e);
  }
  return Val::real(roundToType(r, e->type));
}

Val GridEvaluator::evalCast(const Expr *e, const Val &x) {
  using CK = Expr::CastKind;
  unsigned w = intWidth(e->type);
  switch (e->cast) {
  case CK::IntS:
  case CK::IntU:
    if (!x.isInt || !w)
      return mismatch(e);
    return Val::integer(e->cast == CK::IntS ? x.i.sextOrTrunc(w)
                                            : x.i.zextOrTrunc(w));
  case CK::SIToFP:
  case CK::UIToFP: {
    auto ft = dyn_cast_or_null<FloatType>(e->type);
    if (!x.isInt || !ft)
      return mismatch(e);
    // Straight into the target type: int64 -> double -> f32 would round
    // twice.
    APFloat f(ft.getFloatSemantics());
    f.convertFromAPInt(x.i, e->cast == CK::SIToFP,
                       APFloat::rmNearestTiesToEven);
    return Val::real(f.convertToDouble());
  }
  case CK::FPToSI:
  case CK::FPToUI:
  case CK::FPToIntSat: {
    if (x.isInt || !w)
      return mismatch(e);
    double v = e->cast == CK::FPToIntSat ? std::nearbyint(x.f) : x.f;
    // tosa.cast saturates in principle, but its lowering clamps at float
    // constants that need not be representable: decline out of range.
    bool isSigned = e->cast != CK::FPToUI;
    llvm::APSInt r(w, !isSigned);
    bool exact;
    APFloat::opStatus st =
        APFloat(v).convertToInteger(r, APFloat::rmTowardZero, &exact);
    if (std::isnan(v) || (st & APFloat::opInvalidOp))
      return fail(e, "converts a float out of the integer's range");
    return Val::integer(APInt(r));
  }
  case CK::NonZero:
    if (x.isInt)
      return Val::integer(APInt(1, !x.i.isZero()));
    return Val::integer(APInt(1, x.f != 0 || std::isnan(x.f)));
  case CK::None:
    break;
  }
  return mismatch(e);
}

/// The indices bind the gather's atoms; the tensor is evaluated there.
Val GridEvaluator::evalExtract(const Expr *e) {
  const Gather &g = gathers.at(e);
  SmallVector<int64_t> at;
  for (auto [k, dim] : llvm::enumerate(g.dims)) {
    Val v = eval(e->ops[k].get());
    if (failed)
      return v;
    if (!v.isInt)
      return mismatch(e);
    int64_t index = v.i.getSExtValue();
    if (index < 0 || index >= dim.second)
      return fail(e, "reads out of bounds (index " + std::to_string(index) +
                         " of a dimension of size " +
                         std::to_string(dim.second) + ")");
    at.push_back(index);
  }
  // Bound only now: an index may itself read another gather.
  for (auto [dim, index] : llvm::zip(g.dims, at))
    if (!dim.first.empty())
      set(dim.first[0], index);
  return eval(g.tensor.get());
}

Val GridEvaluator::eval(const Expr *e) {
  if (failed)
    return Val::integer(APInt(1, 0));
  auto x = [&](unsigned k) { return eval(e->ops[k].get()); };
  // A float operand of a float-only op.
  auto real = [&](const Val &v) -> double {
    if (v.isInt)
      mismatch(e);
    return v.f;
  };
  switch (e->kind) {
  case Expr::Leaf: {
    const Table &t = tables.at(e);
    int64_t k = t.base;
    for (const auto &[l, stride] : t.dims)
      k += stride * linear(l);
    return t.at(k);
  }
  case Expr::Index:
    return Val::integer(APInt(64, linear(indices.at(e))));
  case Expr::Extract:
    return evalExtract(e);
  case Expr::Const:
    return Val::real(e->fval);
  case Expr::IConst:
    return Val::integer(APInt(intWidth(e->type), e->ival, /*isSigned=*/true));
  case Expr::Select: {
    Val c = x(0), t = x(1), f = x(2);
    if (!c.isInt)
      return mismatch(e);
    return c.i.isZero() ? f : t;
  }
  case Expr::CmpI: {
    Val a = x(0), b = x(1);
    if (!a.isInt || !b.isInt || a.i.getBitWidth() != b.i.getBitWidth())
      return mismatch(e);
    return Val::integer(APInt(
        1, arith::applyCmpPredicate(
               static_cast<arith::CmpIPredicate>(e->pred), a.i, b.i)));
  }
  case Expr::CmpF: {
    Val a = x(0), b = x(1);
    if (a.isInt || b.isInt)
      return mismatch(e);
    return Val::integer(APInt(
        1, compareFloats(static_cast<arith::CmpFPredicate>(e->pred), a.f,
                         b.f)));
  }
  case Expr::Cast:
    return evalCast(e, x(0));
  case Expr::ExtF:
  case Expr::TruncF:
    return Val::real(roundToType(real(x(0)), e->type));
  case Expr::Neg:
    return Val::real(-real(x(0)));
  case Expr::Recip:
    return Val::real(roundToType(1.0 / real(x(0)), e->type));
  // Transcendentals: the host's libm, rounded to the type; a program's own
  // exp may differ in the last bit, which no mask compares at.
  case Expr::Exp:
    return Val::real(roundToType(std::exp(real(x(0))), e->type));
  case Expr::Log:
    return Val::real(roundToType(std::log(real(x(0))), e->type));
  case Expr::Tanh:
    return Val::real(roundToType(std::tanh(real(x(0))), e->type));
  // Exact in every float type.
  case Expr::Floor:
    return Val::real(std::floor(real(x(0))));
  case Expr::Ceil:
    return Val::real(std::ceil(real(x(0))));
  case Expr::Abs: {
    Val v = x(0);
    return v.isInt ? Val::integer(v.i.abs()) : Val::real(std::fabs(v.f));
  }
  default:
    break;
  }
  if (e->ops.size() != 2)
    return mismatch(e);
  Val a = x(0), b = x(1);
  if (failed)
    return a;
  unsigned w = intWidth(e->type);
  if (w) {
    if (!a.isInt || !b.isInt || a.i.getBitWidth() != w ||
        b.i.getBitWidth() != w)
      return mismatch(e);
    return evalInt(e, a, b);
  }
  if (a.isInt || b.isInt)
    return mismatch(e);
  return evalFloat(e, a, b);
}

/// Evaluates `e` at every point of `grid` (row-major) and gives each value
/// to `each`; `labels` name the grid atoms in remarks.
LogicalResult evaluate(ExprP e, ArrayRef<int> grid,
                       ArrayRef<std::string> labels, ExprBuilder &eb,
                       std::string &why,
                       llvm::function_ref<void(int64_t, const Scalar &)> each) {
  int64_t points = 1;
  for (int a : grid) {
    int64_t size = eb.atoms.size(a);
    if (ShapedType::isDynamic(size)) {
      why = "the mask is evaluated over a dynamic dimension";
      return failure();
    }
    points *= size;
    if (points > (int64_t(1) << 24)) {
      why = "the mask is too large to analyze (more than 2^24 entries)";
      return failure();
    }
  }
  GridEvaluator g(grid, labels, eb, why);
  ExprP p = g.prepare(e);
  if (!p)
    return failure();
  for (int64_t k = 0; k < points; ++k) {
    // The point of index k, last atom fastest.
    for (int64_t d = grid.size() - 1, r = k; d >= 0; --d) {
      int64_t size = eb.atoms.size(grid[d]);
      g.set(grid[d], r % size);
      r /= size;
    }
    Val v = g.eval(p.get());
    if (g.failed)
      return failure();
    each(k, v);
  }
  return success();
}

/// The values as doubles: booleans 0 / 1 (an i1 `true` is -1 signed).
FailureOr<std::vector<double>>
evaluate(ExprP e, ArrayRef<int> grid, ArrayRef<std::string> labels,
         ExprBuilder &eb, std::string &why) {
  std::vector<double> out;
  auto store = [&](int64_t k, const Scalar &v) {
    out.push_back(!v.isInt                   ? v.f
                  : v.i.getBitWidth() == 1 ? double(v.i.getZExtValue())
                                           : double(v.i.getSExtValue()));
  };
  if (failed(evaluate(e, grid, labels, eb, why, store)))
    return failure();
  return out;
}

} // namespace

LogicalResult mlir::fa::raising::evaluateEach(
    ExprP e, ArrayRef<int> grid, ExprBuilder &eb, std::string &why,
    llvm::function_ref<void(int64_t, const Scalar &)> each) {
  SmallVector<std::string> labels(grid.size(), "index");
  return evaluate(e, grid, labels, eb, why, each);
}

FailureOr<std::vector<double>>
mlir::fa::raising::evaluateOnGrid(ExprP e, int iAtom, int jAtom, int64_t rows,
                                  int64_t cols, ExprBuilder &eb,
                                  std::string &why) {
  (void)rows;
  (void)cols;
  return evaluate(e, {iAtom, jAtom}, {"row", "key"}, eb, why);
}

FailureOr<std::vector<double>>
mlir::fa::raising::evaluateOnAtoms(ExprP e, ArrayRef<int> grid,
                                   ExprBuilder &eb, std::string &why) {
  SmallVector<std::string> labels(grid.size(), "index");
  return evaluate(e, grid, labels, eb, why);
}

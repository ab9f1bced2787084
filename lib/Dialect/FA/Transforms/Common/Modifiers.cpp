//===- Modifiers.cpp - score_mod and mask_mod evaluated inline ------------===//
//
// A modifier region is a scalar function of the score and its position; a
// lowering evaluates it per element by cloning its ops at the point of use,
// with the block's arguments bound to the element's values. The backward
// also needs d score_mod / d score: the clone carries, next to each value
// that depends on the score, its derivative (forward mode), from one rule
// per op. Every target calls these (through AttentionConfig), so all of
// them compute one function.
//
//===----------------------------------------------------------------------===//
#include "Modifiers.h"
#include "fa/Dialect/FA/Transforms/MaskRule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fa;

static constexpr double kLn2 = 0.6931471805599453;

/// Ops whose derivative is 0 wherever it exists (steps), and ops with a
/// rule below: what the backward can differentiate.
static bool isStep(Operation *op) {
  return isa<math::FloorOp, math::CeilOp, math::RoundOp, math::TruncOp,
             math::RoundEvenOp>(op);
}
static bool hasTangentRule(Operation *op) {
  return isStep(op) ||
         isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp,
             arith::MinimumFOp, arith::MinNumFOp, arith::SelectOp,
             arith::ExtFOp, arith::TruncFOp, math::TanhOp, math::ExpOp,
             math::Exp2Op, math::LogOp, math::Log2Op, math::SqrtOp,
             math::AbsFOp, math::FmaOp>(op);
}

namespace {

/// Arithmetic on tangents, where null stands for 0.
class Tangents {
public:
  explicit Tangents(ImplicitLocOpBuilder &b) : b(b) {}

  Value add(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return arith::AddFOp::create(b, x, y);
  }
  Value neg(Value x) { return x ? arith::NegFOp::create(b, x) : x; }
  Value sub(Value x, Value y) { return add(x, neg(y)); }
  /// t * factor.
  Value scale(Value t, Value factor) {
    return t ? arith::MulFOp::create(b, t, factor).getResult() : t;
  }
  Value div(Value t, Value divisor) {
    return t ? arith::DivFOp::create(b, t, divisor).getResult() : t;
  }
  Value constant(Type type, double v) {
    return arith::ConstantOp::create(b, b.getFloatAttr(type, v));
  }
  Value select(Value cond, Value x, Value y, Type type) {
    if (!x && !y)
      return {};
    return arith::SelectOp::create(b, cond, x ? x : constant(type, 0),
                                   y ? y : constant(type, 0));
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, p, x, y);
  }

  ImplicitLocOpBuilder &b;
};

/// The derivative of `op`'s emitted result `r` given its emitted operands
/// `x` and their derivatives (`d`, null for 0); `op` (of the region) has a
/// rule.
Value tangentOf(Tangents &t, Operation &op, Value r, ValueRange operands,
                ArrayRef<Value> d) {
  auto x = [&](unsigned i) { return operands[i]; };
  Type type = r ? r.getType() : Type();
  if (isStep(&op))
    return {};
  return TypeSwitch<Operation *, Value>(&op)
      .Case([&](arith::AddFOp) { return t.add(d[0], d[1]); })
      .Case([&](arith::SubFOp) { return t.sub(d[0], d[1]); })
      .Case([&](arith::MulFOp) {
        return t.add(t.scale(d[0], x(1)), t.scale(d[1], x(0)));
      })
      .Case([&](arith::DivFOp) {
        // (dx - r dy) / y
        return t.div(t.sub(d[0], t.scale(d[1], r)), x(1));
      })
      .Case([&](arith::NegFOp) { return t.neg(d[0]); })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](Operation *) {
        return t.select(t.cmp(arith::CmpFPredicate::OGE, x(0), x(1)), d[0],
                        d[1], type);
      })
      .Case<arith::MinimumFOp, arith::MinNumFOp>([&](Operation *) {
        return t.select(t.cmp(arith::CmpFPredicate::OLE, x(0), x(1)), d[0],
                        d[1], type);
      })
      .Case([&](arith::SelectOp) {
        return t.select(x(0), d[1], d[2], type);
      })
      .Case([&](arith::ExtFOp) -> Value {
        return d[0] ? arith::ExtFOp::create(t.b, type, d[0]) : Value();
      })
      .Case([&](arith::TruncFOp) -> Value {
        return d[0] ? arith::TruncFOp::create(t.b, type, d[0]) : Value();
      })
      .Case([&](math::TanhOp) {
        Value one = t.constant(type, 1);
        return t.scale(d[0], t.sub(one, arith::MulFOp::create(t.b, r, r)));
      })
      .Case([&](math::ExpOp) { return t.scale(d[0], r); })
      .Case([&](math::Exp2Op) {
        return t.scale(t.scale(d[0], r), t.constant(type, kLn2));
      })
      .Case([&](math::LogOp) { return t.div(d[0], x(0)); })
      .Case([&](math::Log2Op) {
        return t.div(t.div(d[0], x(0)), t.constant(type, kLn2));
      })
      .Case([&](math::SqrtOp) {
        return t.div(d[0], arith::AddFOp::create(t.b, r, r));
      })
      .Case([&](math::AbsFOp) {
        Value negative =
            t.cmp(arith::CmpFPredicate::OLT, x(0), t.constant(type, 0));
        return t.select(negative, t.neg(d[0]), d[0], type);
      })
      .Case([&](math::FmaOp) {
        return t.add(t.add(t.scale(d[0], x(1)), t.scale(d[1], x(0))), d[2]);
      })
      .Default([](Operation *) -> Value {
        llvm_unreachable("checkScoreModDifferentiable admits no other op");
      });
}

} // namespace

namespace {

/// Emits a region's ops one by one: cloned with their operands mapped, or,
/// with a target, the capture reads and the ops the target computes its own
/// way through it.
class RegionEmitter {
public:
  RegionEmitter(ImplicitLocOpBuilder &b, Region &region, ValueRange leading,
                ArrayRef<Value> captures, ModifierTarget *target)
      : b(b), body(region.front()), target(target), numLeading(leading.size()) {
    map.map(body.getArguments().take_front(numLeading), leading);
    for (auto [i, arg] :
         llvm::enumerate(body.getArguments().drop_front(numLeading))) {
      if (!target)
        map.map(arg, captures[i]);
      else if (!isa<ShapedType>(arg.getType()))
        map.map(arg, target->scalarCapture(b, i));
      // A tensor capture stays unmapped: only its reads use it.
    }
  }

  Block &block() { return body; }
  Value lookup(Value v) { return map.lookup(v); }

  /// Emits `op`; returns its emitted result (null without one).
  Value emit(Operation &op) {
    if (target) {
      SmallVector<Value> operands;
      for (Value v : op.getOperands())
        operands.push_back(map.lookupOrDefault(v));
      if (Value v = emitThroughTarget(op, operands)) {
        map.map(op.getResult(0), v);
        return v;
      }
    }
    Operation *clone = b.clone(op, map);
    return clone->getNumResults() ? clone->getResult(0) : Value();
  }

  /// The emitted operands of `op` (after emit(op)).
  SmallVector<Value> emittedOperands(Operation &op) {
    SmallVector<Value> out;
    for (Value v : op.getOperands())
      out.push_back(map.lookupOrDefault(v));
    return out;
  }

private:
  /// The capture a tensor operand is (its index), or none.
  std::optional<unsigned> captureOf(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body || arg.getArgNumber() < numLeading)
      return std::nullopt;
    return arg.getArgNumber() - numLeading;
  }

  Value emitThroughTarget(Operation &op, ValueRange operands) {
    if (auto extract = dyn_cast<tensor::ExtractOp>(op))
      if (std::optional<unsigned> c = captureOf(extract.getTensor()))
        return target->readCapture(b, *c, operands.drop_front(),
                                   extract.getType());
    if (auto dim = dyn_cast<tensor::DimOp>(op))
      if (std::optional<unsigned> c = captureOf(dim.getSource()))
        return target->captureDim(b, *c, operands[1]);
    return target->emitOp(b, op, operands);
  }

  ImplicitLocOpBuilder &b;
  Block &body;
  ModifierTarget *target;
  unsigned numLeading;
  IRMapping map;
};

} // namespace

Value mlir::fa::emitModifier(ImplicitLocOpBuilder &b, Region &region,
                             ValueRange leading, ArrayRef<Value> captures,
                             ModifierTarget *target) {
  RegionEmitter e(b, region, leading, captures, target);
  for (Operation &op : e.block().without_terminator())
    e.emit(op);
  return e.lookup(e.block().getTerminator()->getOperand(0));
}

std::pair<Value, Value>
mlir::fa::emitModifierWithTangent(ImplicitLocOpBuilder &b, Region &region,
                                  ValueRange leading, ArrayRef<Value> captures,
                                  ModifierTarget *target) {
  RegionEmitter e(b, region, leading, captures, target);
  Block &body = e.block();
  // Derivatives with respect to the first argument, by original value.
  DenseMap<Value, Value> tangent;
  Tangents t(b);
  tangent[body.getArgument(0)] =
      t.constant(body.getArgument(0).getType(), 1.0);
  for (Operation &op : body.without_terminator()) {
    Value r = e.emit(op);
    SmallVector<Value> d;
    for (Value operand : op.getOperands())
      d.push_back(tangent.lookup(operand));
    if (llvm::all_of(d, [](Value v) { return !v; }) ||
        op.getNumResults() != 1 || !isa<FloatType>(op.getResult(0).getType()))
      continue;
    if (Value dr = tangentOf(t, op, r, e.emittedOperands(op), d))
      tangent[op.getResult(0)] = dr;
  }
  Value result = body.getTerminator()->getOperand(0);
  Value d = tangent.lookup(result);
  return {e.lookup(result), d ? d : t.constant(result.getType(), 0)};
}

LogicalResult mlir::fa::checkDifferentiable(Region &region, StringRef name) {
  if (region.empty())
    return success();
  Block &body = region.front();
  llvm::SmallPtrSet<Value, 16> dependent = {body.getArgument(0)};
  for (Operation &op : body.without_terminator()) {
    if (llvm::none_of(op.getOperands(),
                      [&](Value v) { return dependent.contains(v); }))
      continue;
    bool floatResult = op.getNumResults() == 1 &&
                       isa<FloatType>(op.getResult(0).getType());
    // Integer or i1 results (comparisons, conversions) carry no derivative.
    if (!floatResult)
      continue;
    if (!hasTangentRule(&op))
      return op.emitOpError()
             << "in '" << name << "' depends on the score and cannot be "
             << "differentiated (the backward needs d " << name
             << " / d score); differentiable: arith addf, subf, mulf, divf, "
             << "negf, maximumf, minimumf, maxnumf, minnumf, select, extf, "
             << "truncf; math tanh, exp, exp2, log, log2, sqrt, absf, fma, "
             << "floor, ceil, round, roundeven, trunc";
    dependent.insert(op.getResult(0));
  }
  return success();
}

namespace {

/// qi * i + kj * j + c over mask_mod's query and key indices.
struct IndexForm {
  int64_t qi = 0, kj = 0, c = 0;
};

/// `v` as an IndexForm of `i` and `j` through addi/subi of constants, or
/// none.
std::optional<IndexForm> indexForm(Value v, Value i, Value j) {
  if (v == i)
    return IndexForm{1, 0, 0};
  if (v == j)
    return IndexForm{0, 1, 0};
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return IndexForm{0, 0, value.getSExtValue()};
  Operation *def = v.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  std::optional<IndexForm> x = indexForm(def->getOperand(0), i, j);
  std::optional<IndexForm> y = indexForm(def->getOperand(1), i, j);
  if (!x || !y)
    return std::nullopt;
  int64_t sign = isa<arith::SubIOp>(def) ? -1 : 1;
  return IndexForm{x->qi + sign * y->qi, x->kj + sign * y->kj, x->c + sign * y->c};
}

/// Narrows `band` (j - i in [-left, right]) by `cmp` when it compares i and
/// j so; returns whether it does.
bool narrowByComparison(arith::CmpIOp cmp, Value i, Value j, MaskBand &band) {
  std::optional<IndexForm> lhs = indexForm(cmp.getLhs(), i, j);
  std::optional<IndexForm> rhs = indexForm(cmp.getRhs(), i, j);
  if (!lhs || !rhs)
    return false;
  // lhs - rhs = qi i + kj j + c, a multiple of j - i when qi = -kj = +-1.
  IndexForm d{lhs->qi - rhs->qi, lhs->kj - rhs->kj, lhs->c - rhs->c};
  if (d.kj != -d.qi || (d.kj != 1 && d.kj != -1))
    return false;
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  // Unsigned comparisons agree with signed ones on i vs j (both >= 0).
  if (d.c == 0)
    pred = pred == P::ule ? P::sle : pred == P::ult ? P::slt
         : pred == P::uge ? P::sge : pred == P::ugt ? P::sgt : pred;
  // d.kj (j - i) + d.c pred 0, as (j - i) pred k.
  int64_t k = -d.c;
  if (d.kj == -1) {
    // c pred (j - i): the comparison seen from its other side.
    pred = pred == P::sle ? P::sge : pred == P::slt ? P::sgt
         : pred == P::sge ? P::sle : pred == P::sgt ? P::slt : pred;
    k = d.c;
  }
  std::optional<int64_t> right, left;
  switch (pred) {
  case P::sle: right = k; break;
  case P::slt: right = k - 1; break;
  case P::sge: left = -k; break;
  case P::sgt: left = -(k + 1); break;
  case P::eq: right = k, left = -k; break;
  default: return false;
  }
  if ((right && *right < 0) || (left && *left < 0))
    return false;
  if (right)
    band.right = std::min(band.right.value_or(*right), *right);
  if (left)
    band.left = std::min(band.left.value_or(*left), *left);
  return true;
}

/// Narrows `band` by the conjuncts of `v` (an andi tree) that state one;
/// `rest` says whether some do not.
bool narrowByConjuncts(Value v, Value i, Value j, MaskBand &band, bool &rest) {
  if (auto andOp = v.getDefiningOp<arith::AndIOp>()) {
    bool l = narrowByConjuncts(andOp.getLhs(), i, j, band, rest);
    bool r = narrowByConjuncts(andOp.getRhs(), i, j, band, rest);
    return l || r;
  }
  auto cmp = v.getDefiningOp<arith::CmpIOp>();
  if (cmp && narrowByComparison(cmp, i, j, band))
    return true;
  rest = true;
  return false;
}

} // namespace

bool mlir::fa::foldMaskModBand(AttentionConfig &config) {
  if (!config.maskMod ||
      (config.hasMask() && config.alignment != MaskAlignment::top_left))
    return false;
  Block &body = config.maskMod->front();
  MaskBand band = MaskBand::get(config);
  bool rest = false;
  Value keep = body.getTerminator()->getOperand(0);
  if (!narrowByConjuncts(keep, body.getArgument(2), body.getArgument(3), band,
                         rest))
    return false;
  // The band as the attributes say it: causal is right = 0; an unbounded
  // side of a window is 2^30, as fa_mlir.torch passes it.
  constexpr int64_t kUnbounded = int64_t(1) << 30;
  config.alignment = MaskAlignment::top_left;
  config.causal = band.right && *band.right == 0;
  config.window.reset();
  if (band.left || (band.right && *band.right > 0))
    config.window = std::make_pair(band.left.value_or(kUnbounded),
                                   band.right.value_or(kUnbounded));
  if (!rest) {
    config.maskMod = nullptr;
    if (!config.scoreMod)
      config.captures.clear();
  }
  return true;
}

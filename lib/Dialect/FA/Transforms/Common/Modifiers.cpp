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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
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

/// The derivative of `clone`'s result given its operands' (`d`, null for
/// 0); `clone` is the emitted copy of an op with a rule.
Value tangentOf(Tangents &t, Operation *clone, ArrayRef<Value> d) {
  Value r = clone->getNumResults() ? clone->getResult(0) : Value();
  auto x = [&](unsigned i) { return clone->getOperand(i); };
  Type type = r ? r.getType() : Type();
  if (isStep(clone))
    return {};
  return TypeSwitch<Operation *, Value>(clone)
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

/// The block arguments' values: `leading`, then the captures.
static SmallVector<Value> blockArgs(ValueRange leading,
                                    ArrayRef<Value> captures) {
  SmallVector<Value> args(leading);
  llvm::append_range(args, captures);
  return args;
}

Value mlir::fa::emitModifier(ImplicitLocOpBuilder &b, Region &region,
                             ValueRange leading, ArrayRef<Value> captures) {
  Block &body = region.front();
  IRMapping map;
  map.map(body.getArguments(), blockArgs(leading, captures));
  for (Operation &op : body.without_terminator())
    b.clone(op, map);
  return map.lookup(body.getTerminator()->getOperand(0));
}

std::pair<Value, Value>
mlir::fa::emitModifierWithTangent(ImplicitLocOpBuilder &b, Region &region,
                                  ValueRange leading,
                                  ArrayRef<Value> captures) {
  Block &body = region.front();
  IRMapping map;
  map.map(body.getArguments(), blockArgs(leading, captures));
  // Derivatives with respect to the first argument, by original value.
  DenseMap<Value, Value> tangent;
  Tangents t(b);
  tangent[body.getArgument(0)] =
      t.constant(body.getArgument(0).getType(), 1.0);
  for (Operation &op : body.without_terminator()) {
    Operation *clone = b.clone(op, map);
    SmallVector<Value> d;
    for (Value operand : op.getOperands())
      d.push_back(tangent.lookup(operand));
    if (llvm::all_of(d, [](Value v) { return !v; }) ||
        op.getNumResults() != 1 || !isa<FloatType>(op.getResult(0).getType()))
      continue;
    if (Value dr = tangentOf(t, clone, d))
      tangent[op.getResult(0)] = dr;
  }
  Value result = body.getTerminator()->getOperand(0);
  Value d = tangent.lookup(result);
  return {map.lookup(result), d ? d : t.constant(result.getType(), 0)};
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

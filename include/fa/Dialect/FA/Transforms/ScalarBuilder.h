//===- ScalarBuilder.h - Scalar arithmetic every lowering shares -*- C++ -*-===//
//
// The one small builder vocabulary of the target-independent semantic layer
// (MaskRule, Log2Score): arith ops on scalars of one integer type. The CPU
// tiles' TileBuilder is one on `index`, the sm_90a KernelBuilder one on `i32`,
// the reference decomposition uses one on `i64`; the shared layer is written
// against this class alone, so it emits the same arithmetic into every target.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_SCALARBUILDER_H
#define FA_DIALECT_FA_TRANSFORMS_SCALARBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::fa {

class ScalarBuilder {
public:
  ScalarBuilder(ImplicitLocOpBuilder &b, Type intType) : b(b), intType(intType) {}

  ImplicitLocOpBuilder &b;
  /// The integer type of positions and sizes (index, i32 or i64).
  Type intType;

  /// An integer constant of `intType`.
  Value constant(int64_t v) {
    if (intType.isIndex())
      return arith::ConstantIndexOp::create(b, v);
    return arith::ConstantOp::create(b, b.getIntegerAttr(intType, v));
  }
  Value constantF32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(static_cast<float>(v)));
  }
  // Integer ops work on any integer type; the operands decide.
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value minSI(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxSI(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value divSI(Value x, Value y) { return arith::DivSIOp::create(b, x, y); }
  Value divUI(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  }
};

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_SCALARBUILDER_H

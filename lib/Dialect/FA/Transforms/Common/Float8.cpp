//===- Float8.cpp - f8E4M3FN <-> f32 as integer arithmetic ----------------===//
#include "fa/Dialect/FA/Transforms/Float8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {
Value i32Const(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
}
} // namespace

/// Bits s eeee mmm: e = 0 is subnormal, m * 2^-9; e = 15, m = 7 is NaN;
/// otherwise the f32 with exponent e - 7 + 127 and mantissa m << 20.
Value mlir::fa::decodeF8E4M3FN(ImplicitLocOpBuilder &b, Value x) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return i32Const(b, v); };
  Value bits = arith::ExtUIOp::create(
      b, i32, arith::BitcastOp::create(b, b.getI8Type(), x));
  Value sign = arith::ShLIOp::create(
      b, arith::AndIOp::create(b, bits, c(0x80)), c(24));
  Value exp = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, bits, c(3)), c(0xF));
  Value man = arith::AndIOp::create(b, bits, c(0x7));
  Value normal = arith::OrIOp::create(
      b, sign,
      arith::OrIOp::create(
          b, arith::ShLIOp::create(b, arith::AddIOp::create(b, exp, c(120)),
                                   c(23)),
          arith::ShLIOp::create(b, man, c(20))));
  Value normalF = arith::BitcastOp::create(b, b.getF32Type(), normal);
  Value subMag = arith::MulFOp::create(
      b, arith::UIToFPOp::create(b, b.getF32Type(), man),
      arith::ConstantOp::create(b, b.getF32FloatAttr(1.0 / 512)));
  Value isNeg = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, sign, c(0));
  Value sub = arith::SelectOp::create(
      b, isNeg, arith::NegFOp::create(b, subMag), subMag);
  Value isSub = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, exp, c(0));
  Value isNaN = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq, arith::AndIOp::create(b, bits, c(0x7F)),
      c(0x7F));
  Value value = arith::SelectOp::create(b, isSub, sub, normalF);
  return arith::SelectOp::create(
      b, isNaN,
      arith::ConstantOp::create(
          b, b.getF32FloatAttr(std::numeric_limits<float>::quiet_NaN())),
      value);
}

/// On |x|'s f32 bits a: normal results (a >= 2^-6) round a's mantissa to 3
/// bits (add 2^19 - 1 plus the lowest kept bit: ties to even) and rebias the
/// exponent by 120, so code = (a' >> 20) - (120 << 3); a carry out of the
/// mantissa lands in the exponent, as it should. Subnormal results are
/// m * 2^-9: |x| * 512 + 2^23 rounds |x| * 512 to an integer (ties to even)
/// in f32's own rounding, and m = 8 is the smallest normal code, 0x08.
Value mlir::fa::encodeF8E4M3FN(ImplicitLocOpBuilder &b, Value x) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t v) { return i32Const(b, v); };
  auto cf = [&](double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v)).getResult();
  };
  Value bits = arith::BitcastOp::create(b, i32, x);
  Value sign = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, bits, c(24)), c(0x80));
  Value a = arith::AndIOp::create(b, bits, c(0x7FFFFFFF));
  Value lsb = arith::AndIOp::create(b, arith::ShRUIOp::create(b, a, c(20)),
                                    c(1));
  Value rounded = arith::AddIOp::create(
      b, a, arith::AddIOp::create(b, lsb, c(0x7FFFF)));
  Value normal = arith::MinSIOp::create(
      b, arith::SubIOp::create(b, arith::ShRUIOp::create(b, rounded, c(20)),
                               c(120 << 3)),
      c(0x7E));
  Value magic = arith::AddFOp::create(
      b, arith::MulFOp::create(b, arith::BitcastOp::create(b, f32, a),
                               cf(512.0)),
      cf(8388608.0));
  Value sub = arith::SubIOp::create(b, arith::BitcastOp::create(b, i32, magic),
                                    c(0x4B000000));
  Value isSub = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, a,
                                      c(121 << 23)); // 2^-6
  Value isNaN = arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, a,
                                      c(0x7F800000));
  Value mag = arith::SelectOp::create(
      b, isNaN, c(0x7F), arith::SelectOp::create(b, isSub, sub, normal));
  Value code = arith::TruncIOp::create(b, b.getI8Type(),
                                       arith::OrIOp::create(b, mag, sign));
  return arith::BitcastOp::create(b, Float8E4M3FNType::get(b.getContext()),
                                  code);
}

//===- Float8.h - f8E4M3FN <-> f32 as integer arithmetic --------*- C++ -*-===//
//
// CPUs (and LLVM's CPU back ends) have no FP8 conversion, and arith.extf /
// arith.truncf with f8E4M3FN do not lower to LLVM; the lowerings and
// fa-fp8-quantize convert by bit manipulation instead, in scalar arith ops
// (inside linalg.generic bodies).
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_FLOAT8_H
#define FA_DIALECT_FA_TRANSFORMS_FLOAT8_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::fa {

/// The largest finite f8E4M3FN magnitude.
constexpr double kF8E4M3FNMax = 448.0;

/// An f8E4M3FN scalar -> f32 (exact; NaN codes give NaN).
Value decodeF8E4M3FN(ImplicitLocOpBuilder &b, Value x);
/// An f32 scalar -> f8E4M3FN, rounded to nearest even; magnitudes above 448
/// saturate to ±448, NaN stays NaN.
Value encodeF8E4M3FN(ImplicitLocOpBuilder &b, Value x);

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_FLOAT8_H

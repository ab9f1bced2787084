//===- Tensor.h - Operands of a launch and their checks ---------*- C++ -*-===//
//
// The caller passes tensors by role. Before anything reaches the driver, the
// runtime checks them against the bundle (presence, dtype, rank, shapes that
// agree across Q/K/V/O/LSE, strides, alignment) and reads the shape symbols
// (batch, heads_q, seq_q, ...) off them.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_TENSOR_H
#define FA_RUNTIME_TENSOR_H

#include "fa/Runtime/BundleSpec.h"
#include "fa/Runtime/DType.h"
#include "fa/Runtime/Expr.h"
#include "fa/Runtime/Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fa::runtime {

constexpr int kMaxRank = 8;

struct TensorArg {
  std::string role;
  uint64_t data = 0; // device address
  DType dtype = DType::F32;
  std::vector<int64_t> sizes;   // outermost first
  std::vector<int64_t> strides; // in elements, same order as sizes
};

/// The checked operands of one launch.
struct OperandSet {
  /// Shape symbols read off the operands and the config (num_sms included
  /// when it was given), and the strides of every operand passed, for
  /// stride(operand, dim).
  SymbolTable symbols;
  /// Role -> the caller's tensor (points into the vector that was checked).
  std::map<std::string, const TensorArg *> byRole;
};

/// Checks `tensors` against `spec` (see docs/Runtime.md, "Operand checks").
/// Errors have code Tensor (or Expression when a scratch shape cannot be
/// evaluated) and name the operand, the dimension and the expected value.
/// `numSms` < 0 leaves the num_sms symbol unset.
Expected<OperandSet> checkOperands(const BundleSpec &spec,
                                   const std::vector<TensorArg> &tensors,
                                   int64_t numSms);

} // namespace fa::runtime

#endif // FA_RUNTIME_TENSOR_H

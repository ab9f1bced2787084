//===- Contract.h - The bundle contract's tables ----------------*- C++ -*-===//
//
// Private to lib/Runtime: the operand roles and ops of the bundle format,
// generated from the bundle schema's x-fa-contract object
// (python/fa_mlir/schemas/kernel-bundle.schema.json, where they are defined
// once; python/fa_mlir/contract.py reads the same object). BundleSpec.h's
// role functions and the shape-symbol binding of Tensor.cpp read them.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_LIB_CONTRACT_H
#define FA_RUNTIME_LIB_CONTRACT_H

#include "fa/Runtime/BundleSpec.h"

#include <string>
#include <vector>

namespace fa::runtime::contract {

/// How an operand's dims are ordered and bound.
enum class OperandShape {
  Layout,  // [batch, seq, head, dim] in bshd, seq and head swapped in bhsd
  Fixed,   // one order
  Bias,    // one order; batch and head may broadcast (config.bias_broadcast)
  Descale, // per_block replaces dims under config.descale_block
  Bounds,  // num_seqs + 1 sequence bounds: binds num_seqs to size - 1
};

/// Where an operand's element type comes from.
enum class DTypeFrom { DType, OutDType, BiasDType, F32, I32 };

/// A logical dim and the shape symbol its extent binds (null: none).
struct Dim {
  const char *name;
  const char *symbol;
};

struct Operand {
  const char *role;
  OperandShape shape;
  DTypeFrom dtype;
  std::vector<Dim> dims;     // outermost first (bshd order for Layout)
  std::vector<Dim> perBlock; // Descale: with config.descale_block
  std::vector<Dim> combine;  // in a bundle of op combine, when not empty
};

struct Op {
  const char *name;
  std::vector<const char *> operands;  // required
  std::vector<const char *> returnLse; // required with config.return_lse
  std::vector<const char *> bias;      // required with config.bias
  std::vector<const char *> sinks;     // required with config.sinks
};

/// Every standard operand, in the schema's order.
const std::vector<Operand> &operands();
/// The standard operand `role`, or null.
const Operand *findOperand(const std::string &role);
/// `role`'s dims as a bundle of op `op` with `config` reads them, outermost
/// first; empty for a role that is not standard.
std::vector<Dim> operandDims(const std::string &role, const std::string &op,
                             const BundleConfig &config);

} // namespace fa::runtime::contract

#endif // FA_RUNTIME_LIB_CONTRACT_H

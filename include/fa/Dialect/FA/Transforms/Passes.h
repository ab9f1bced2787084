//===- Passes.h - fa dialect transformations --------------------*- C++ -*-===//
#ifndef FA_DIALECT_FA_TRANSFORMS_PASSES_H
#define FA_DIALECT_FA_TRANSFORMS_PASSES_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fa {

#define GEN_PASS_DECL
#include "fa/Dialect/FA/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fa/Dialect/FA/Transforms/Passes.h.inc"

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_PASSES_H

//===- Passes.h - tm_tensor lowering ----------------------------*- C++ -*-===//
#ifndef FA_DIALECT_TMTENSOR_TRANSFORMS_PASSES_H
#define FA_DIALECT_TMTENSOR_TRANSFORMS_PASSES_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "fa/Dialect/TMTensor/IR/TMTensor.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fa {

#define GEN_PASS_DECL
#include "fa/Dialect/TMTensor/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fa/Dialect/TMTensor/Transforms/Passes.h.inc"

/// tm_tensor.scan -> scf.for over slices of its operands.
void populateTMTensorScanLoweringPatterns(RewritePatternSet &patterns);

} // namespace mlir::fa

#endif // FA_DIALECT_TMTENSOR_TRANSFORMS_PASSES_H

//===- CPUPasses.h - the passes fa-cpu-pipeline is made of ------*- C++ -*-===//
#ifndef FA_PIPELINES_CPUPASSES_H
#define FA_PIPELINES_CPUPASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fa {

#define GEN_PASS_DECL
#include "fa/Pipelines/CPUPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "fa/Pipelines/CPUPasses.h.inc"

} // namespace mlir::fa

#endif // FA_PIPELINES_CPUPASSES_H

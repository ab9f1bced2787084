//===- CPUPipeline.h - fa-cpu-pipeline --------------------------*- C++ -*-===//
#ifndef FA_PIPELINES_CPUPIPELINE_H
#define FA_PIPELINES_CPUPIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace fa {

struct FACPUPipelineOptions
    : public PassPipelineOptions<FACPUPipelineOptions> {
  Option<bool> tiled{*this, "tiled",
                     llvm::cl::desc("lower fa ops with fa-tile-attention; "
                                    "false: the reference decomposition"),
                     llvm::cl::init(true)};
  Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("run the tiled nests' parallel loops on OpenMP threads "
                     "(the result then needs an OpenMP runtime, e.g. "
                     "libomp/libiomp5); false: sequential loops"),
      llvm::cl::init(false)};
};

/// fa ops, linalg, tensor, arith and func on tensors -> the LLVM dialect,
/// runnable by mlir-runner or compiled to a shared library.
void buildFACPUPipeline(OpPassManager &pm, const FACPUPipelineOptions &options);

/// Registers `fa-cpu-pipeline`.
void registerFACPUPipeline();

} // namespace fa
} // namespace mlir

#endif // FA_PIPELINES_CPUPIPELINE_H

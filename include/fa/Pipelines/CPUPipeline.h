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
  Option<bool> peel{
      *this, "peel",
      llvm::cl::desc("peel the register-block loops of dynamic-sized tiles "
                     "into full blocks (unmasked vectors) and a masked tail; "
                     "false: every block of a dynamic tile is masked"),
      llvm::cl::init(true)};
  Option<int64_t> blockRows{
      *this, "block-rows",
      llvm::cl::desc("fa-cpu-tile-blocks' block-rows (register block rows)"),
      llvm::cl::init(8)};
  Option<int64_t> blockCols{
      *this, "block-cols",
      llvm::cl::desc("fa-cpu-tile-blocks' block-cols (register block "
                     "columns, the vector lanes)"),
      llvm::cl::init(32)};
  Option<int64_t> cores{
      *this, "cores",
      llvm::cl::desc("fa-tile-attention's cores (what split-KV's heuristic "
                     "aims to occupy; 0: this host's hardware threads)"),
      llvm::cl::init(0)};
};

/// fa ops, linalg, tensor, arith and func on tensors -> the LLVM dialect,
/// runnable by mlir-runner or compiled to a shared library.
void buildFACPUPipeline(OpPassManager &pm, const FACPUPipelineOptions &options);

/// Registers `fa-cpu-pipeline`.
void registerFACPUPipeline();

} // namespace fa
} // namespace mlir

#endif // FA_PIPELINES_CPUPIPELINE_H

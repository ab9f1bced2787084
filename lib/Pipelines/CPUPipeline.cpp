//===- CPUPipeline.cpp - fa-cpu-pipeline ----------------------------------===//
#include "fa/Pipelines/CPUPipeline.h"
#include "fa/Dialect/FA/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

// Upstream's part of the pipeline, spelled as text so that it reads like the
// mlir-opt command line people already know.
static constexpr const char *kBufferize =
    "func.func(convert-elementwise-to-linalg),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    // Folds the self-copies bufferization leaves where a tile is written
    // back into the region it was read from.
    "canonicalize,cse,canonicalize,"
    "func.func(scf-forall-to-parallel),"
    "buffer-deallocation-pipeline,"
    "convert-linalg-to-loops";

static constexpr const char *kLowerToLLVM =
    "expand-strided-metadata,"
    "lower-affine,"
    // Before scf-to-cf: the memref.alloca_scope that scf-to-openmp puts in
    // a parallel body must be gone before its region gets several blocks.
    "finalize-memref-to-llvm,"
    "convert-scf-to-cf,"
    "arith-expand{include-bf16=true},"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-arith-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-openmp-to-llvm,"
    "reconcile-unrealized-casts";

void mlir::fa::buildFACPUPipeline(OpPassManager &pm,
                                  const FACPUPipelineOptions &options) {
  if (options.tiled) {
    pm.addPass(createFATileAttention());
  } else {
    pm.addPass(createFADecomposeAttention());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(parsePassPipeline(kBufferize, pm)) ||
      (options.openmp &&
       failed(parsePassPipeline("convert-scf-to-openmp", pm))) ||
      failed(parsePassPipeline(kLowerToLLVM, pm)))
    llvm::report_fatal_error("fa-cpu-pipeline: upstream passes missing from "
                             "the registry (call registerAllPasses first)");
}

void mlir::fa::registerFACPUPipeline() {
  PassPipelineRegistration<FACPUPipelineOptions>(
      "fa-cpu-pipeline",
      "Lower fa ops (and linalg, tensor, arith, func) to the LLVM dialect "
      "for the CPU; mlir-runner runs the result",
      buildFACPUPipeline);
}

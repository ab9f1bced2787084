//===- CPUPipeline.cpp - fa-cpu-pipeline ----------------------------------===//
//
// fa ops on tensors -> the LLVM dialect, built from typed pass constructors
// (a missing pass fails the build, not the first run). The CPU-specific
// steps are the passes of CPUPasses.td; the rest is upstream's.
//
//===----------------------------------------------------------------------===//
#include "fa/Pipelines/CPUPipeline.h"
#include "fa/Dialect/FA/Transforms/Passes.h"
#include "fa/Dialect/TMTensor/Transforms/Passes.h"
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Tile-level linalg ops -> register blocks -> vectors; masks become masked
/// transfers, then a blocked contraction's accumulator read/write pair
/// leaves its reduction loop (loop-invariant-subset-hoisting).
static void addVectorizeTiles(OpPassManager &pm,
                              const fa::FACPUPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(fa::createFACPUTileBlocks(
      {options.blockRows, options.blockCols}));
  addCleanup(pm);
  pm.addNestedPass<func::FuncOp>(fa::createFACPUVectorizeBlocks());
  addCleanup(pm);
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  addCleanup(pm);
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createLoopInvariantSubsetHoistingPass());
  addCleanup(pm);
  pm.addNestedPass<func::FuncOp>(fa::createFACPUVectorPeepholes());
}

static void addBufferize(OpPassManager &pm,
                         const fa::FACPUPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // An attention inside a loop that carries a tensor (a stack of layers
  // feeding each output to the next) yields a new buffer each iteration;
  // the deallocation pipeline below frees the previous one.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Folds the self-copies bufferization leaves where a tile is written back
  // into the region it was read from.
  addCleanup(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // The clones deallocation leaves for a loop-carried buffer: alloc + copy.
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Full blocks of a dynamic-sized tile without lane masks, a masked tail.
  if (options.peel) {
    pm.addNestedPass<func::FuncOp>(fa::createFACPUPeelBlocks());
    addCleanup(pm);
  }
  pm.addPass(createConvertLinalgToLoopsPass());
  // n-D vector transfers -> loops of 1-D (masked) loads and stores.
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLowerAffinePass());
  // Before convert-vector-to-llvm, which also lowers arith: bf16 truncation
  // on vectors must not become a compiler-rt call.
  pm.addPass(arith::createArithExpandOpsPass({/*includeBf16=*/true}));
  pm.addPass(createConvertVectorToLLVMPass());
}

static void addLowerToLLVM(OpPassManager &pm) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Before scf-to-cf: the memref.alloca_scope that scf-to-openmp puts in a
  // parallel body must be gone before its region gets several blocks.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(arith::createArithExpandOpsPass({/*includeBf16=*/true}));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::fa::buildFACPUPipeline(OpPassManager &pm,
                                  const FACPUPipelineOptions &options) {
  // torch-mlir's tm_tensor ops (attention raised, scan lowered) first.
  pm.addPass(fa::createFALowerTMTensor());
  // Whatever the raise left (linalg.softmax, math on tensors) lowers too.
  pm.addNestedPass<func::FuncOp>(fa::createFACPULowerAggregates());
  if (options.tiled) {
    fa::FATileAttentionOptions tile;
    tile.cores = options.cores;
    pm.addPass(fa::createFATileAttention(tile));
  } else {
    pm.addPass(createFADecomposeAttention());
  }
  addCleanup(pm);
  addVectorizeTiles(pm, options);
  addBufferize(pm, options);
  if (options.openmp) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(fa::createFACPUDynamicSchedule());
  }
  addLowerToLLVM(pm);
}

void mlir::fa::registerFACPUPipeline() {
  // The pipeline's own steps, so that each can be run and tested alone.
  registerFACPUPasses();
  PassPipelineRegistration<FACPUPipelineOptions>(
      "fa-cpu-pipeline",
      "Lower fa ops (and linalg, tensor, arith, func) to the LLVM dialect "
      "for the CPU; mlir-runner runs the result",
      buildFACPUPipeline);
}

//===- NVVMPipeline.cpp - fa-nvvm-pipeline --------------------------------===//
#include "fa/Pipelines/NVVMPipeline.h"

#include "fa/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// gpu-module-to-binary's spelling of `format`.
static StringRef compilationTargetName(gpu::CompilationTarget format) {
  switch (format) {
  case gpu::CompilationTarget::Assembly:
    return "isa";
  case gpu::CompilationTarget::Binary:
    return "bin";
  case gpu::CompilationTarget::Fatbin:
    return "fatbin";
  case gpu::CompilationTarget::Offload:
    break;
  }
  llvm_unreachable("format= accepts only isa, bin and fatbin");
}

void mlir::fa::buildFANVVMPipeline(OpPassManager &pm, const FANVVMPipelineOptions &options) {
  ConvertFAToNVVMOptions convert;
  convert.chip = options.chip;
  convert.stages = options.stages;
  convert.overlap = options.overlap;
  convert.pingPong = options.pingPong;
  convert.deterministic = options.deterministic;
  convert.bwdQueryTile = options.bwdQueryTile;
  convert.dynamicTiles = options.dynamicTiles;
  convert.fwdKeyTile = options.fwdKeyTile;
  pm.addPass(createConvertFAToNVVM(convert));

  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createSCFToControlFlowPass());
  device.addPass(createArithToLLVMConversionPass());
  // convert-cf-to-llvm is anchored on builtin.module; the generic
  // convert-to-llvm converts cf inside the gpu.module alone.
  device.addPass(createConvertToLLVMPass());
  // nvvm ops without an LLVM intrinsic (wgmma.mma_async, try_wait.parity...)
  // become inline PTX here.
  device.addPass(createConvertNVVMToLLVMPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = compilationTargetName(options.format).str();
  binary.cmdOptions = options.ptxasOptions;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.bundleDir.empty()) {
    FAWriteKernelBundlesOptions write;
    write.dir = options.bundleDir;
    pm.addPass(createFAWriteKernelBundles(write));
  }
}

void mlir::fa::registerFANVVMPipeline() {
  PassPipelineRegistration<FANVVMPipelineOptions>(
      "fa-nvvm-pipeline",
      "Compile fa.attention into FlashAttention-3 style sm_90a kernels (PTX, cubin "
      "or fatbin), optionally written out as kernel bundles",
      buildFANVVMPipeline);
}

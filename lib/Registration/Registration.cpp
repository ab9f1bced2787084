//===- Registration.cpp - Register everything fa-mlir provides ------------===//
#include "fa/Registration.h"

#include "fa/Conversion/Passes.h"
#include "fa/Dialect/FA/IR/FADialect.h"
#include "fa/Dialect/FA/Transforms/Passes.h"
#include "fa/Dialect/IREELinalgExt/IR/IREELinalgExt.h"
#include "fa/Dialect/TMTensor/IR/TMTensor.h"
#include "fa/Dialect/TMTensor/Transforms/Passes.h"
#include "fa/Pipelines/CPUPipeline.h"
#include "fa/Pipelines/NVVMPipeline.h"

#include "mlir/IR/DialectRegistry.h"

#include <mutex>

void mlir::fa::registerDialects(DialectRegistry &registry) {
  // tm_tensor: torch-mlir's attention and scan, so that its output parses.
  registry.insert<FADialect, tm_tensor::TMTensorDialect>();
  // iree_linalg_ext: IREE's attention, so that its input IR parses.
  registry.insert<iree_linalg_ext::IREELinalgExtDialect>();
}

void mlir::fa::registerPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerFAPasses();
    registerFATMTensorPasses();
    registerFACPUPipeline();
    registerFAConversionPasses();
    registerFANVVMPipeline();
  });
}

void mlir::fa::registerAll(DialectRegistry &registry) {
  registerDialects(registry);
  registerPassesAndPipelines();
}

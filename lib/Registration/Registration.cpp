//===- Registration.cpp - Register everything fa-mlir provides ------------===//
#include "fa/Registration.h"

#include "fa/Dialect/FA/IR/FADialect.h"
#include "fa/Dialect/FA/Transforms/Passes.h"
#include "fa/Conversion/Passes.h"
#include "fa/Pipelines/CPUPipeline.h"
#include "fa/Pipelines/NVVMPipeline.h"

#include "mlir/IR/DialectRegistry.h"

#include <mutex>

void mlir::fa::registerDialects(DialectRegistry &registry) {
  registry.insert<FADialect>();
}

void mlir::fa::registerPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerFAPasses();
    registerFACPUPipeline();
    registerFAConversionPasses();
    registerFANVVMPipeline();
  });
}

void mlir::fa::registerAll(DialectRegistry &registry) {
  registerDialects(registry);
  registerPassesAndPipelines();
}

//===- fa-opt.cpp - The fa-mlir optimizer driver --------------------------===//
//
// mlir-opt with every upstream dialect, extension and pass plus the fa
// dialect, its passes and its pipelines.
//
//===----------------------------------------------------------------------===//
#include "fa/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::fa::registerAll(registry);
  // fa-nvvm-pipeline's gpu-module-to-binary needs the LLVM IR translations.
  mlir::registerAllToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fa-mlir optimizer driver\n", registry));
}

//===- nvvm-link-check.cpp - The sm_90a path links alone ------------------===//
//
// Linked against FANVVMPipeline (and what it declares) only: building the
// pipeline references the conversion's pass and, through it, every part of
// convert-fa-to-nvvm, so a reference to the raiser or the tile lowering,
// which the conversion must not use, is a link error here.
//
//===----------------------------------------------------------------------===//
#include "fa/Pipelines/NVVMPipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext context;
  mlir::PassManager pm(&context);
  mlir::fa::buildFANVVMPipeline(pm, mlir::fa::FANVVMPipelineOptions());
  llvm::outs() << "passes: " << pm.size() << "\n";
  return 0;
}

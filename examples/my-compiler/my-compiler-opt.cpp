//===- my-compiler-opt.cpp - An out-of-tree compiler using fa-mlir --------===//
//
// The opt tool of a compiler built against an installed fa-mlir: every
// upstream dialect and pass, fa's dialect, passes and pipelines, and a
// pipeline of its own, my-compile, that raises attention with fa's patterns
// inside its own greedy rewrite and lowers the program with fa-cpu-pipeline.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/IR/FADialect.h"
#include "fa/Dialect/FA/Transforms/RaisePatterns.h"
#include "fa/Pipelines/CPUPipeline.h"
#include "fa/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// The compiler's own rewrite, with fa's raise patterns in its pattern set
/// (a real compiler adds its own patterns to the same set). Top-down, so
/// that a forward is raised before its backward's contractions are seen.
struct RaiseAttentionPass
    : public PassWrapper<RaiseAttentionPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RaiseAttentionPass)

  StringRef getArgument() const final { return "my-raise-attention"; }
  StringRef getDescription() const final {
    return "Raise attention to fa ops with fa's rewrite patterns";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<fa::FADialect>();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    fa::populateFARaiseAttentionPatterns(patterns);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    fa::foldFARaiseGlue(getOperation());
  }
};

/// Raise, then fa-cpu-pipeline: the program's attention becomes
/// FlashAttention's tiled loops, everything else the usual lowering.
void buildMyCompilePipeline(OpPassManager &pm) {
  pm.addPass(std::make_unique<RaiseAttentionPass>());
  fa::buildFACPUPipeline(pm, fa::FACPUPipelineOptions());
}

} // namespace

int main(int argc, char **argv) {
  registerAllPasses();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  fa::registerAll(registry);

  PassRegistration<RaiseAttentionPass>();
  PassPipelineRegistration<>("my-compile",
                             "Raise attention to fa ops, then lower the "
                             "program with fa-cpu-pipeline",
                             buildMyCompilePipeline);
  return asMainReturnCode(
      MlirOptMain(argc, argv, "my-compiler optimizer driver\n", registry));
}

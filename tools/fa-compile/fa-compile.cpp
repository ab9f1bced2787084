//===- fa-compile.cpp - fa.attention -> kernel bundles --------------------===//
//
// Compiles every fa.attention of an MLIR file into sm_90a kernel bundles
// (docs/BundleFormat.md) by running fa-nvvm-pipeline with bundle-dir:
//
//   fa-compile attention.mlir -o bundles/ [--format=bin|isa] [--stages=2]
//
//===----------------------------------------------------------------------===//
#include "fa/Conversion/Passes.h"
#include "fa/Dialect/FA/IR/FADialect.h"
#include "fa/Dialect/FA/IR/FAOps.h"
#include "fa/Pipelines/NVVMPipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

// --help lists only these; LLVM's and MLIR's own options still parse.
static cl::OptionCategory faCompileCategory("fa-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"), cl::init("-"), cl::cat(faCompileCategory));
static cl::opt<std::string> outDir("o", cl::desc("Bundle directory"), cl::init("."), cl::cat(faCompileCategory));
static cl::opt<gpu::CompilationTarget> format(
    "format", cl::desc("Device code format"), cl::init(gpu::CompilationTarget::Binary),
    fa::deviceFormatValues(), cl::cat(faCompileCategory));
static cl::opt<unsigned> stages("stages", cl::desc("K/V ring depth"), cl::init(2), cl::cat(faCompileCategory));
static cl::opt<bool> overlap("overlap", cl::desc("Intra-warpgroup QK^T/softmax overlap"),
                             cl::init(true), cl::cat(faCompileCategory));
static cl::opt<bool> pingPong("pingpong", cl::desc("Consumer warpgroups take turns (FA3)"),
                              cl::init(false), cl::cat(faCompileCategory));
static cl::opt<bool> deterministic(
    "deterministic", cl::desc("Backward: bitwise reproducible dQ (fixed accumulation order)"),
    cl::init(false), cl::cat(faCompileCategory));
static cl::opt<unsigned>
    bwdQueryTile("bwd-query-tile",
                 cl::desc("Backward: query rows per main-kernel iteration, 64, "
                          "80 or 128 (0: choose; 80 needs head dims 128 and no "
                          "mask or modifier, 128 head dims <= 64)"),
                 cl::init(0), cl::cat(faCompileCategory));
static cl::opt<unsigned>
    fwdKeyTile("fwd-key-tile",
               cl::desc("16-bit forwards: key rows per K/V tile, a "
                        "multiple of 16 up to 256 (0: choose)"),
               cl::init(0), cl::cat(faCompileCategory));
static cl::opt<bool> dynamicTiles(
    "dynamic-tiles",
    cl::desc("Persistent forwards take their tiles from an atomic counter "
             "(a one-kernel sequence; a ragged batch under a mask does "
             "without the option)"),
    cl::init(false), cl::cat(faCompileCategory));
static cl::opt<std::string> ptxasOptions("ptxas-options", cl::desc("Extra ptxas options"),
                                         cl::init(""), cl::cat(faCompileCategory));
static cl::opt<bool> printIR("print-ir", cl::desc("Print the module after the pipeline"),
                             cl::init(false), cl::cat(faCompileCategory));
static cl::opt<bool> emitKernelIR(
    "emit-kernel-ir",
    cl::desc("Only run convert-fa-to-nvvm and print the kernels (llvm/nvvm/scf/arith)"),
    cl::init(false), cl::cat(faCompileCategory));

/// Whether `module` holds an op fa-compile compiles: without one it would
/// write nothing and succeed.
static bool hasFAOp(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<fa::FADialect>(op->getDialect()) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
      })
      .wasInterrupted();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(faCompileCategory);
  cl::ParseCommandLineOptions(argc, argv, "fa.attention -> sm_90a kernel bundles\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates the gpu.module to LLVM IR.
  registerAllToLLVMIRTranslations(registry);
  registry.insert<fa::FADialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file) {
    llvm::errs() << err << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (!hasFAOp(*module)) {
    llvm::errs() << "fa-compile: " << (inputFile == "-" ? "<stdin>" : inputFile.getValue())
                 << " has no fa operation to compile (fa.attention, "
                 << "fa.attention_grad, fa.attention_kvcache, fa.attention_varlen, "
                 << "fa.combine)\n";
    return 1;
  }

  PassManager pm(&context);
  if (emitKernelIR) {
    fa::ConvertFAToNVVMOptions convert;
    convert.stages = stages;
    convert.overlap = overlap;
    convert.pingPong = pingPong;
    convert.deterministic = deterministic;
    convert.bwdQueryTile = bwdQueryTile;
    convert.dynamicTiles = dynamicTiles;
    convert.fwdKeyTile = fwdKeyTile;
    pm.addPass(fa::createConvertFAToNVVM(convert));
    if (failed(pm.run(*module)))
      return 1;
    module->print(llvm::outs());
    return 0;
  }
  fa::FANVVMPipelineOptions options;
  options.format = format;
  options.stages = stages;
  options.overlap = overlap;
  options.pingPong = pingPong;
  options.deterministic = deterministic;
  options.bwdQueryTile = bwdQueryTile;
  options.dynamicTiles = dynamicTiles;
  options.fwdKeyTile = fwdKeyTile;
  options.bundleDir = outDir;
  options.ptxasOptions = ptxasOptions;
  fa::buildFANVVMPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;
  if (printIR)
    module->print(llvm::outs());
  return 0;
}

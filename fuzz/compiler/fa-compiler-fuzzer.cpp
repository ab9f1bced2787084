//===- fa-compiler-fuzzer.cpp - libFuzzer target for the fa compiler ------===//
//
// Bytes -> MLIR parser -> verifier -> the fa pass pipelines, in process.
// A finding is a crash (signal, abort, sanitizer report) or an internal
// error: an input that parses and verifies, whose functions hold nothing
// but fa ops, must go through every pipeline without a diagnostic. The
// verifier is the one place allowed to refuse such an input; a pass that
// fails on verified IR is a bug (a refusal belongs in the verifier, on the
// fa op). docs/Fuzzing.md says how to run it.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/IR/FAOps.h"
#include "fa/Registration.h"
#include "fa/Dialect/FA/Transforms/Passes.h"
#include "fa/Pipelines/CPUPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>

using namespace mlir;

namespace {

const DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *reg = new DialectRegistry;
    registerAllDialects(*reg);
    registerAllExtensions(*reg);
    fa::registerAll(*reg);
    return reg;
  }();
  return *r;
}

/// Functions of fa ops only (and their return): the inputs whose pipeline
/// failures are bugs. Other IR (a fuzzed gpu.module, say) may legitimately
/// not lower to the CPU.
bool holdsOnlyFaOps(ModuleOp module) {
  bool sawFa = false;
  for (Operation &top : module.getBody()->getOperations()) {
    auto func = dyn_cast<func::FuncOp>(top);
    if (!func || func.isExternal())
      return false;
    WalkResult r = func.walk([&](Operation *op) {
      if (op == func.getOperation() || isa<func::ReturnOp>(op))
        return WalkResult::advance();
      if (!isa<fa::AttentionOp, fa::AttentionGradOp>(op))
        return WalkResult::interrupt();
      sawFa = true;
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return false;
  }
  return sawFa;
}

using Pipeline = std::function<void(OpPassManager &)>;

/// The fast pipelines run on every input; fa-cpu-pipeline (up to seconds
/// per input, in one-shot-bufferize and loop-invariant-subset-hoisting) on
/// one input in kCPUPipelineEvery, chosen by the input's hash so that a
/// finding reproduces.
constexpr size_t kCPUPipelineEvery = 4;

/// A hash that is the same in every process (llvm::hash_value may be
/// seeded per process).
uint64_t fnv1a(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i)
    h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

const Pipeline kPipelines[] = {
    [](OpPassManager &pm) {
      pm.addPass(fa::createFATileAttention());
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    },
    [](OpPassManager &pm) {
      fa::FATileAttentionOptions options;
      options.blockQ = 16;
      options.blockK = 8;
      options.dqAccumulation = "atomic";
      pm.addPass(fa::createFATileAttention(options));
      pm.addPass(createCanonicalizerPass());
    },
    [](OpPassManager &pm) {
      pm.addPass(fa::createFADecomposeAttention());
      pm.addPass(createCanonicalizerPass());
    },
};

void buildCPUPipeline(OpPassManager &pm) {
  fa::buildFACPUPipeline(pm, fa::FACPUPipelineOptions());
}

/// Runs `build`'s passes on a copy of `module`; aborts (a finding) when
/// they fail.
void runPipeline(ModuleOp module, const Pipeline &build, unsigned index) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  build(pm);
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    os << d.getLocation() << ": " << d << "\n";
    return success();
  });
  if (succeeded(pm.run(*copy)))
    return;
  llvm::errs() << "fa-compiler-fuzzer: pipeline " << index
               << " failed on verified fa IR:\n"
               << diagnostics << "input:\n";
  module.print(llvm::errs());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(false);
  // Parse and verify errors are the expected outcome of most inputs.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), config);
  if (!module || !holdsOnlyFaOps(*module))
    return 0;
  unsigned index = 0;
  for (const Pipeline &build : kPipelines)
    runPipeline(*module, build, index++);
  if (fnv1a(data, size) % kCPUPipelineEvery == 0)
    runPipeline(*module, buildCPUPipeline, index);
  return 0;
}

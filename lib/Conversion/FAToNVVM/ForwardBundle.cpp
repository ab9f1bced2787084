//===- ForwardBundle.cpp - The forward kernel's bundle JSON ---------------===//
#include "BlockMap.h"
#include "ForwardSignature.h"

#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

std::string mlir::fa::nvvm_kernel::bundleJson(const AttentionKernelConfig &cfg, StringRef chip,
                                              StringRef cubinFile) {
  using llvm::json::Array;
  using llvm::json::Object;
  KernelArgs unbound;
  Array params = forwardSignature(cfg, unbound).bundleParams();
  std::unique_ptr<TileScheduler> scheduler = TileScheduler::forConfig(cfg);
  Object config = forwardBundleConfig(cfg);
  if (cfg.splitKv)
    config["num_splits"] = cfg.numSplits;
  if (cfg.paged())
    config["page_size"] = cfg.pageSize;
  StringRef op = cfg.splitKv ? "attention_fwd_partial" : cfg.varlen ? "attention_varlen"
                                                                    : "attention_fwd";
  Object root = kernelBundleRoot(chip, cubinFile, cfg.attentionKernelName(), op,
                                 std::move(config), cfg.threads(), cfg.sharedMemoryBytes(),
                                 scheduler->gridShape(), std::move(params));
  if (cfg.splitKv) {
    Array scratch;
    for (const char *name : {"o_partial", "lse_partial"})
      scratch.push_back(splitScratchEntry(cfg, name));
    root["scratch"] = std::move(scratch);
  }
  if (cfg.isFp8())
    root["scratch"] = Array{valueTransposeWorkspace(cfg, /*withInit=*/false)};
  if (cfg.blockSparse)
    root["scratch"] = blockMapWorkspace(cfg, /*withInit=*/false);
  Array captures = captureBundleEntries(cfg.semantics);
  if (!captures.empty())
    root["captures"] = std::move(captures);
  return printJson(std::move(root));
}


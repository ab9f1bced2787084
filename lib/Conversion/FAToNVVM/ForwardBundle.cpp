//===- ForwardBundle.cpp - The forward kernel's bundle JSON ---------------===//
#include "BlockMap.h"
#include "ForwardShared.h"
#include "ForwardSignature.h"

#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

/// The op a forward bundle (or its sequence) computes.
static StringRef forwardOp(const AttentionKernelConfig &cfg) {
  return cfg.splitKv ? "attention_fwd_partial" : cfg.varlen ? "attention_varlen" : "attention_fwd";
}

std::string mlir::fa::nvvm_kernel::dynamicSequenceJson(const AttentionKernelConfig &cfg,
                                                       StringRef chip) {
  using llvm::json::Array;
  llvm::json::Object root{
      {"format", "fa-kernel-sequence"},
      {"version", 1},
      {"chip", chip},
      {"op", forwardOp(cfg)},
      {"config", forwardBundleConfig(cfg)},
      {"workspace", TileScheduler::forConfig(cfg)->workspace(/*withInit=*/true)},
      {"kernels", Array{cfg.attentionKernelName() + ".json"}}};
  return printJson(std::move(root));
}

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
  Object root = kernelBundleRoot(chip, cubinFile, cfg.attentionKernelName(), forwardOp(cfg),
                                 std::move(config), cfg.threads(),
                                 ForwardShared::plan(cfg, *scheduler).layout.requestBytes(),
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
  Array schedulerBuffers = scheduler->workspace(/*withInit=*/false);
  if (!schedulerBuffers.empty()) // (a dynamic kernel has no other scratch)
    root["scratch"] = std::move(schedulerBuffers);
  Array captures = captureBundleEntries(cfg.semantics);
  if (!captures.empty())
    root["captures"] = std::move(captures);
  return printJson(std::move(root));
}


//===- ForwardBundleConfig.cpp - What every forward bundle shares ---------===//
//
// The `config` of the forward's bundles and sequences and their workspace
// buffers (docs/BundleFormat.md): split-KV's partials, FP8's V^T. The
// kernels' own bundles (ForwardBundle.cpp, SplitKV.cpp, AppendKV.cpp,
// TransposeV.cpp) compose them.
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;

llvm::json::Object mlir::fa::nvvm_kernel::forwardBundleConfig(const AttentionKernelConfig &cfg) {
  llvm::json::Object config =
      semanticsConfig(cfg.elemName(), cfg.bshd, cfg.headDim, cfg.headDimV, cfg.semantics);
  config["out_dtype"] = AttentionKernelConfig::elemTypeName(cfg.outElem());
  config["return_lse"] = cfg.returnLse;
  if (cfg.blockDescales())
    config["descale_block"] = llvm::json::Array{cfg.descaleBlockQ, cfg.descaleBlockK};
  config["bias"] = cfg.bias.has_value();
  if (cfg.bias)
    config["bias_dtype"] = cfg.biasName();
  return config;
}

Object mlir::fa::nvvm_kernel::splitSequenceConfig(const AttentionKernelConfig &cfg) {
  Object config = semanticsConfig(cfg.elemName(), cfg.bshd, cfg.headDim, cfg.headDimV,
                                  cfg.semantics);
  config["return_lse"] = cfg.returnLse;
  config["num_splits"] = cfg.numSplits;
  if (cfg.paged())
    config["page_size"] = cfg.pageSize;
  return config;
}

/// The two partial buffers: [splits, batch, head, seq(, dim)] f32.
llvm::json::Object mlir::fa::nvvm_kernel::splitScratchEntry(const AttentionKernelConfig &cfg,
                                                          StringRef name, bool withInit) {
  bool isO = name == "o_partial";
  Array dims{"split", "batch", "head", "seq"};
  Array shape{TileScheduler::splitCount(cfg), sym::Batch, sym::HeadsQ, sym::SeqQ};
  if (isO) {
    dims.push_back("dim");
    shape.push_back(cfg.headDimV);
  }
  Object o{{"name", name.str()}, {"dtype", "f32"}, {"dims", std::move(dims)},
           {"shape", std::move(shape)}};
  if (withInit)
    o["init"] = "none"; // every row of every split is written
  return o;
}

std::string mlir::fa::nvvm_kernel::preKernelSequenceJson(const AttentionKernelConfig &cfg,
                                                         StringRef chip, StringRef preKernel,
                                                         Array workspace) {
  Object root{{"format", "fa-kernel-sequence"},
              {"version", 1},
              {"chip", chip},
              {"op", "attention_fwd"},
              {"config", forwardBundleConfig(cfg)},
              {"workspace", std::move(workspace)},
              {"kernels", Array{preKernel.str() + ".json", cfg.attentionKernelName() + ".json"}}};
  return printJson(std::move(root));
}

Object mlir::fa::nvvm_kernel::valueTransposeWorkspace(const AttentionKernelConfig &cfg,
                                                      bool withInit) {
  Object o{{"name", "value_t"},
           {"dtype", AttentionKernelConfig::elemTypeName(cfg.elem)},
           {"dims", Array{"batch", "head", "dim", "seq"}},
           {"shape", Array{sym::Batch, sym::HeadsKV, cfg.headDimV, valueTKeys()}}};
  if (withInit)
    o["init"] = "none"; // the pre-kernel writes every key slot, zeros past seq_k
  return o;
}

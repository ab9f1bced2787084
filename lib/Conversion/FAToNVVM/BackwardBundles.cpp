//===- BackwardBundles.cpp - The backward's kernels and bundles ----------===//
//
// One gpu.module (one cubin) holds the three kernels; each has its own
// fa-kernel-bundle JSON, and an fa-kernel-sequence JSON ties them into one
// launch with the workspace they share (docs/BundleFormat.md).
//
//===----------------------------------------------------------------------===//
#include "BackwardBlockMap.h"
#include "BackwardSignature.h"

#include "llvm/Support/FormatVariadic.h"

#include <cassert>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;
using llvm::json::Array;
using llvm::json::Object;
using BK = BackwardKernelConfig;

void mlir::fa::nvvm_kernel::buildBackwardKernels(OpBuilder &builder, Location loc,
                                                 Block &moduleBody, const BK &cfg) {
  if (backwardBlockSparse(cfg))
    buildBackwardBlockMapKernel(builder, loc, moduleBody, cfg);
  buildBackwardPreKernel(builder, loc, moduleBody, cfg);
  buildBackwardMainKernel(builder, loc, moduleBody, cfg);
  buildBackwardPostKernel(builder, loc, moduleBody, cfg);
  if (cfg.biasBroadcasts() && !cfg.biasGradInOrder())
    buildBackwardBiasGradKernel(builder, loc, moduleBody, cfg);
  if (cfg.sinks())
    buildBackwardSinkGradKernel(builder, loc, moduleBody, cfg);
}

namespace {

/// The query rows of the row workspaces: whole query tiles of the main
/// kernel (64 or 128 rows).
BundleExpr seqPad(const BK &cfg) { return ceilDiv(sym::SeqQ, cfg.blockM) * cfg.blockM; }

/// A ragged batch's padded query blocks (VarlenBackward.cpp): the
/// workspace's rows per head are 64 times as many, its batch 1.
BundleExpr paddedQueryBlocks() { return paddedBlocksExpr(sym::SeqQ, BK::kRowTile); }
BundleExpr workspaceRows(const BK &cfg) {
  return cfg.varlen ? paddedQueryBlocks() * BK::kRowTile : seqPad(cfg);
}
BundleExpr workspaceBatch(const BK &cfg) { return cfg.varlen ? BundleExpr(1) : sym::Batch; }

/// The extents of grad_bias's (and dbias_accum's) batch and head dims.
BundleExpr biasBatches(const BK &cfg) { return cfg.biasBroadcastBatch ? 1 : sym::Batch; }
BundleExpr biasHeads(const BK &cfg) { return cfg.biasBroadcastHead ? 1 : sym::HeadsQ; }

/// The workspace buffers, as the sequence declares them (with `init`) and
/// as a kernel's `scratch` names them (without).
Object workspaceBuffer(StringRef name, const BK &cfg, bool withInit) {
  if (name == kBackwardMapCount || name == kBackwardMapIndices)
    return backwardMapBuffer(name, cfg, withInit);
  Object o;
  if (name == "dq_accum")
    o = Object{{"name", name.str()},
               {"dtype", "f32"},
               {"dims", Array{"batch", "head", "seq", "dim"}},
               {"shape", Array{workspaceBatch(cfg), sym::HeadsQ, workspaceRows(cfg),
                               BundleExpr(cfg.qkDim())}}};
  else if (name == "dbias_accum" && cfg.biasGradInOrder())
    // Summed in turn: a [query tile x 64 keys] block per semaphore (the
    // main kernel's orderedBiasGrad); as many floats as [seq_q, seq_k]
    // padded to whole query tiles and key blocks.
    o = Object{{"name", name.str()},
               {"dtype", "f32"},
               {"dims", Array{"batch", "head", "seq_q", "seq_k"}},
               {"shape", Array{biasBatches(cfg), biasHeads(cfg), seqPad(cfg),
                               ceilDiv(sym::SeqK, BK::kBlockN) * BK::kBlockN}}};
  else if (name == "dbias_semaphore")
    o = Object{{"name", name.str()},
               {"dtype", "i32"},
               {"dims", Array{"batch", "head", "tile", "slab"}},
               {"shape", Array{biasBatches(cfg), biasHeads(cfg), ceilDiv(sym::SeqQ, cfg.blockM),
                               ceilDiv(sym::SeqK, BK::kBlockN) * 2}}};
  else if (name == "dbias_accum")
    o = Object{{"name", name.str()},
               {"dtype", "f32"},
               {"dims", Array{"batch", "head", "seq_q", "seq_k"}},
               {"shape", Array{biasBatches(cfg), biasHeads(cfg), sym::SeqQ, sym::SeqK}}};
  else if (name == "dsinks_partial") // one per consumer warp of each main-kernel CTA
    o = Object{{"name", name.str()},
               {"dtype", "f32"},
               {"dims", Array{"batch", "head", "part"}},
               {"shape", Array{sym::Batch, sym::HeadsQ,
                               ceilDiv(sym::SeqK, BK::kBlockN) * kSinkPartialsPerBlock}}};
  else if (name == "dq_semaphore")
    o = Object{{"name", name.str()},
               {"dtype", "i32"},
               {"dims", Array{"batch", "head", "seq"}},
               {"shape", Array{workspaceBatch(cfg), sym::HeadsQ,
                               cfg.varlen ? paddedQueryBlocks() : workspaceRowTilesExpr(cfg)}}};
  else // lse_log2, softmax_d
    o = Object{{"name", name.str()},
               {"dtype", "f32"},
               {"dims", Array{"batch", "head", "seq"}},
               {"shape", Array{workspaceBatch(cfg), sym::HeadsQ, workspaceRows(cfg)}}};
  if (withInit) {
    // dq_accum is zeroed by the pre kernel; a dBias summed in turn is
    // stored by its first turn.
    bool written = name == "lse_log2" || name == "softmax_d" || name == "dq_accum" ||
                   (name == "dbias_accum" && cfg.biasGradInOrder());
    o["init"] = written ? "none" : "zero";
  }
  return o;
}

SmallVector<StringRef> workspaceNames(const BK &cfg) {
  SmallVector<StringRef> names{"dq_accum", "lse_log2", "softmax_d"};
  if (cfg.deterministic)
    names.push_back("dq_semaphore");
  if (cfg.biasBroadcasts())
    names.push_back("dbias_accum");
  if (cfg.biasGradInOrder())
    names.push_back("dbias_semaphore");
  if (cfg.sinks())
    names.push_back("dsinks_partial");
  if (backwardBlockSparse(cfg))
    names.append({kBackwardMapCount, kBackwardMapIndices});
  return names;
}

Object backwardConfig(const BK &cfg) {
  Object config =
      semanticsConfig(cfg.elemName(), cfg.bshd, cfg.headDim, cfg.headDimV, cfg.semantics);
  config["deterministic"] = cfg.deterministic;
  if (cfg.bias) {
    config["bias"] = true;
    config["bias_dtype"] = biasTypeName(*cfg.bias);
    Array broadcast;
    if (cfg.biasBroadcastBatch)
      broadcast.push_back("batch");
    if (cfg.biasBroadcastHead)
      broadcast.push_back("head");
    config["bias_broadcast"] = std::move(broadcast);
  }
  return config;
}

struct KernelJson {
  StringRef suffix, op;
  Array params, grid;
  SmallVector<StringRef> scratch;
  int64_t threads, sharedMemory;
};

std::string kernelBundle(const BK &cfg, StringRef chip, StringRef cubinFile, KernelJson k) {
  Array scratch;
  for (StringRef name : k.scratch)
    scratch.push_back(workspaceBuffer(name, cfg, /*withInit=*/false));
  Object root = kernelBundleRoot(chip, cubinFile, cfg.name() + k.suffix.str(), k.op,
                                 backwardConfig(cfg), k.threads, k.sharedMemory,
                                 std::move(k.grid), std::move(k.params));
  root["scratch"] = std::move(scratch);
  // The main kernel reads the regions' captures, as the forward does (and
  // the block map pre-kernel).
  Array captures = k.suffix == "_main" || k.suffix == "_block_map"
                       ? captureBundleEntries(cfg.semantics)
                       : Array();
  if (!captures.empty())
    root["captures"] = std::move(captures);
  return printJson(std::move(root));
}

/// The row kernels' grid: a CTA per 64 workspace rows of each (head,
/// batch), or per padded block of a ragged batch.
Array rowGrid(const BK &cfg) {
  if (cfg.varlen)
    return Array{paddedQueryBlocks(), sym::HeadsQ, 1};
  return Array{workspaceRowTilesExpr(cfg), sym::HeadsQ, sym::Batch};
}

KernelJson preKernel(const BK &cfg) {
  KernelJson k{
      "_pre", "attention_bwd_pre", {}, {}, {"lse_log2", "softmax_d", "dq_accum"}, BK::kAuxThreads,
      0};
  BackwardRowArgs unbound;
  k.params = backwardPreSignature(unbound, cfg.varlen).bundleParams();
  k.grid = rowGrid(cfg);
  return k;
}

KernelJson mainKernel(const BK &cfg) {
  SharedLayout layout = BackwardMainShared::plan(cfg).layout;
  // Head dims up to kMaxHeadDim: d128 with 64-query tiles takes 197 KB, the
  // 80-query tile all 227 KB (chooseQueryTile takes it only where it fits).
  assert(layout.fits() && "the backward's main kernel exceeds shared memory");
  int64_t smem = layout.requestBytes();
  KernelJson k{"_main", "attention_bwd_main", {}, {}, workspaceNames(cfg), BK::kThreads, smem};
  BackwardMainArgs unbound;
  k.params = backwardMainSignature(cfg, unbound).bundleParams();
  k.grid = cfg.varlen ? Array{paddedBlocksExpr(sym::SeqK, BK::kBlockN), sym::HeadsKV, 1}
                      : Array{ceilDiv(sym::SeqK, 128), sym::HeadsKV, sym::Batch};
  return k;
}

KernelJson postKernel(const BK &cfg) {
  KernelJson k{"_post", "attention_bwd_post", {}, {}, {"dq_accum"}, BK::kAuxThreads, 0};
  BackwardRowArgs unbound;
  k.params = backwardPostSignature(unbound, cfg.varlen).bundleParams();
  k.grid = rowGrid(cfg);
  return k;
}

/// One CTA per (row, head, batch) of grad_bias (heads and batch 1 where the
/// bias broadcasts).
KernelJson biasGradKernel(const BK &cfg) {
  KernelJson k{"_dbias", "attention_bwd_dbias", {}, {}, {"dbias_accum"}, BK::kAuxThreads, 0};
  BackwardRowArgs unbound;
  k.params = backwardBiasGradSignature(unbound).bundleParams();
  k.grid = Array{sym::SeqQ, biasHeads(cfg), biasBatches(cfg)};
  return k;
}

/// One CTA per query head: grad_sinks from the main kernel's partials.
KernelJson sinkGradKernel() {
  KernelJson k{"_dsinks",       "attention_bwd_dsinks", {}, {}, {"dsinks_partial"},
               BK::kAuxThreads, sinkGradSharedBytes()};
  SinkGradArgs unbound;
  k.params = backwardSinkGradSignature(unbound).bundleParams();
  k.grid = Array{sym::HeadsQ, 1, 1};
  return k;
}

/// The block map pre-kernel (BackwardBlockMap.h), first: its buffers are
/// written_by kernel 0.
KernelJson blockMapKernel(const BK &cfg) {
  KernelJson k{"_block_map",
               "attention_bwd_block_map",
               {},
               {},
               {kBackwardMapCount, kBackwardMapIndices},
               kMapThreads,
               0};
  k.params = backwardBlockMapParams(cfg);
  k.grid = backwardBlockMapGrid(cfg);
  return k;
}

std::vector<KernelJson> kernelJsons(const BK &cfg) {
  std::vector<KernelJson> ks;
  if (backwardBlockSparse(cfg))
    ks.push_back(blockMapKernel(cfg));
  ks.insert(ks.end(), {preKernel(cfg), mainKernel(cfg), postKernel(cfg)});
  if (cfg.biasBroadcasts() && !cfg.biasGradInOrder())
    ks.push_back(biasGradKernel(cfg));
  if (cfg.sinks())
    ks.push_back(sinkGradKernel());
  return ks;
}

} // namespace

std::vector<std::pair<std::string, std::string>>
mlir::fa::nvvm_kernel::backwardBundleJsons(const BK &cfg, StringRef chip, StringRef cubinFile) {
  std::vector<std::pair<std::string, std::string>> out;
  for (KernelJson k : kernelJsons(cfg)) {
    std::string name = cfg.name() + k.suffix.str();
    out.emplace_back(name, kernelBundle(cfg, chip, cubinFile, std::move(k)));
  }
  return out;
}

std::string mlir::fa::nvvm_kernel::backwardSequenceJson(const BK &cfg, StringRef chip) {
  Array workspace, kernels;
  for (StringRef name : workspaceNames(cfg))
    workspace.push_back(workspaceBuffer(name, cfg, /*withInit=*/true));
  for (const KernelJson &k : kernelJsons(cfg))
    kernels.push_back(cfg.name() + k.suffix.str() + ".json");
  Object root{{"format", "fa-kernel-sequence"},
              {"version", 1},
              {"chip", chip},
              {"op", cfg.varlen ? "attention_varlen_bwd" : "attention_bwd"},
              {"config", backwardConfig(cfg)},
              {"workspace", std::move(workspace)},
              {"kernels", std::move(kernels)}};
  return printJson(std::move(root));
}

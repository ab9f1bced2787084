//===- ForwardBundle.cpp - The forward kernel's bundle JSON ---------------===//
#include "KernelParts.h"

#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

std::string mlir::fa::nvvm_kernel::bundleJson(const AttentionKernelConfig &cfg, StringRef chip,
                                              StringRef cubinFile) {
  using llvm::json::Array;
  using llvm::json::Object;
  std::string dt = cfg.elemName();
  Array params;
  const StringRef qkvDims[] = {"dim", "seq", "head", "batch"};
  if (!cfg.packGqa())
    params.push_back(tensorMapParam("query", dt, cfg.blockM(), qkvDims, cfg.boxElems()));
  if (cfg.paged()) {
    for (const char *role : {cfg.keyRole(), cfg.valueRole()})
      params.push_back(tensorMapParam(role, dt, cfg.keyRowsPerLoad(), {"dim", "row", "head", "page"}));
  } else {
    params.push_back(tensorMapParam("key", dt, cfg.blockN, qkvDims, cfg.boxElems()));
    if (cfg.isFp8()) // V^T boxes: keys (128 bytes) x the V head dim's rows
      params.push_back(tensorMapParam("value_t", dt, cfg.vDim(), {"seq", "dim", "head", "batch"},
                                      AttentionKernelConfig::kValueTBoxKeys));
    else
      params.push_back(tensorMapParam("value", dt, cfg.blockN));
  }
  if (cfg.packGqa()) // 16-byte loads of Q rows: address and row strides aligned
    params.push_back(alignedPtrParam("query"));
  params.push_back(ptrParam(cfg.splitKv ? "o_partial" : "output"));
  if (cfg.returnLse || cfg.splitKv)
    params.push_back(ptrParam(cfg.splitKv ? "lse_partial" : "lse"));
  if (cfg.splitKv) { // written instead of the partials when there is one split
    params.push_back(ptrParam("output"));
    if (cfg.returnLse)
      params.push_back(ptrParam("lse"));
  }
  static const char *const descales[3] = {"query_descale", "key_descale", "value_descale"};
  if (cfg.isFp8())
    for (const char *role : descales)
      params.push_back(ptrParam(role));
  if (cfg.keyLengths)
    params.push_back(ptrParam("cache_seqlens"));
  if (cfg.paged())
    params.push_back(ptrParam("block_table"));
  if (cfg.varlen) {
    params.push_back(ptrParam("cu_seqlens_q"));
    params.push_back(ptrParam("cu_seqlens_k"));
  }
  if (cfg.bias) {
    params.push_back(Object{{"kind", "ptr"}, {"operand", "bias"}});
    appendStrideParams(params, "bias", {"batch", "head", "seq_q"});
  }
  static const StringRef descaleDims[3] = {"batch", "head", "block"};
  if (cfg.isFp8())
    for (const char *role : descales)
      appendStrideParams(params, role,
                         ArrayRef<StringRef>(descaleDims).take_front(cfg.descaleRank()));
  params.push_back(Object{{"kind", "i32"}, {"value", "seq_q"}});
  params.push_back(Object{{"kind", "i32"}, {"value", cfg.keySlotsExpr()}});
  params.push_back(Object{{"kind", "i32"}, {"value", "heads_q / heads_kv"}});
  if (cfg.splitKv)
    params.push_back(i32Param(TileScheduler::splitCount(cfg)));
  if (cfg.packGqa())
    appendStrideParams(params, "query", {"batch", "seq", "head"});
  if (cfg.paged()) {
    params.push_back(i32Param("max_pages"));
    appendStrideParams(params, "block_table", {"batch"});
  }
  if (cfg.append)
    params.push_back(i32Param("seq_new"));
  if (cfg.varlen)
    params.push_back(i32Param("num_seqs"));
  std::unique_ptr<TileScheduler> scheduler = TileScheduler::forConfig(cfg);
  for (const std::string &extent : scheduler->tileSpaceParams())
    params.push_back(i32Param(extent));
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
  return printJson(std::move(root));
}


//===- ForwardSignature.cpp - The forward kernel's parameters -------------===//
#include "ForwardSignature.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

/// Q, K and V (or V^T, or the paged caches) as tensor maps.
static void declareTensorMaps(KernelSignature &sig, const AttentionKernelConfig &cfg,
                              KernelArgs &a) {
  std::string dt = cfg.elemName();
  const StringRef qkvDims[] = {"dim", "seq", "head", "batch"};
  if (!cfg.packGqa()) // packed rows are loaded by the consumers (qPtr)
    sig.tensorMap(&a.tmQ, tensorMapParam("query", dt, cfg.blockM(), qkvDims, cfg.boxElems()));
  if (cfg.paged()) {
    const StringRef pageDims[] = {"dim", "row", "head", "page"};
    sig.tensorMap(&a.tmK, tensorMapParam(cfg.keyRole(), dt, cfg.keyRowsPerLoad(), pageDims));
    sig.tensorMap(&a.tmV, tensorMapParam(cfg.valueRole(), dt, cfg.keyRowsPerLoad(), pageDims));
    return;
  }
  sig.tensorMap(&a.tmK, tensorMapParam("key", dt, cfg.blockN, qkvDims, cfg.boxElems()));
  if (cfg.isFp8()) // V^T boxes: keys (128 bytes) x the V head dim's rows
    sig.tensorMap(&a.tmV, tensorMapParam("value_t", dt, cfg.vDim(), {"seq", "dim", "head", "batch"},
                                         AttentionKernelConfig::kValueTBoxKeys));
  else
    sig.tensorMap(&a.tmV, tensorMapParam("value", dt, cfg.blockN));
}

static const char *const kDescaleRoles[3] = {"query_descale", "key_descale", "value_descale"};

/// The pointers: outputs, descales, lengths, page table, ragged offsets.
static void declarePointers(KernelSignature &sig, const AttentionKernelConfig &cfg,
                            KernelArgs &a) {
  if (cfg.packGqa()) // 16-byte loads of Q rows: address and row strides aligned
    sig.ptr(&a.qPtr, "query", /*aligned=*/true);
  sig.ptr(&a.outPtr, cfg.splitKv ? "o_partial" : "output");
  if (cfg.returnLse || cfg.splitKv)
    sig.ptr(&a.lsePtr, cfg.splitKv ? "lse_partial" : "lse");
  if (cfg.semantics.sinks)
    sig.ptr(&a.sinks, "sinks");
  if (cfg.splitKv) { // written instead of the partials when there is one split
    sig.ptr(&a.finalOut, "output");
    if (cfg.returnLse)
      sig.ptr(&a.finalLse, "lse");
  }
  if (cfg.isFp8())
    for (int64_t i = 0; i < 3; ++i)
      sig.ptr(&a.descale[i], kDescaleRoles[i]);
  if (cfg.keyLengths)
    sig.ptr(&a.keyLengths, "cache_seqlens");
  if (cfg.paged())
    sig.ptr(&a.blockTable, "block_table");
  if (cfg.varlen) {
    sig.ptr(&a.cuSeqlensQ, "cu_seqlens_q");
    sig.ptr(&a.cuSeqlensK, "cu_seqlens_k");
  }
  if (cfg.hasDynamicScheduler())
    sig.ptr(&a.tileCounter, kTileCounter);
}

/// The bias (pointer and strides) and the descales' strides.
static void declareStrided(KernelSignature &sig, const AttentionKernelConfig &cfg,
                           KernelArgs &a) {
  if (cfg.bias) {
    BiasArgs &b = a.bias.emplace();
    sig.ptr(&b.ptr, "bias");
    Value *strides[3] = {&b.strideBatch, &b.strideHead, &b.strideRow};
    sig.strides(strides, "bias", {"batch", "head", "seq_q"});
  }
  static const StringRef descaleDims[3] = {"batch", "head", "block"};
  if (cfg.isFp8())
    for (int64_t i = 0; i < 3; ++i) {
      Value *strides[3] = {&a.descaleStride[i][0], &a.descaleStride[i][1],
                           &a.descaleStride[i][2]};
      sig.strides(strides, kDescaleRoles[i],
                  ArrayRef<StringRef>(descaleDims).take_front(cfg.descaleRank()));
    }
}

/// The sizes, the rows' strides of packed Q and the page table, and the
/// scheduler's tile space.
static void declareSizes(KernelSignature &sig, const AttentionKernelConfig &cfg,
                         KernelArgs &a) {
  sig.i32(&a.seqQ, sym::SeqQ);
  sig.i32(&a.seqK, cfg.keySlotsExpr());
  sig.i32(&a.group, sym::HeadsQ / sym::HeadsKV);
  if (cfg.splitKv)
    sig.i32(&a.numSplits, TileScheduler::splitCount(cfg));
  if (cfg.packGqa()) {
    Value *strides[3] = {&a.qStrideBatch, &a.qStrideSeq, &a.qStrideHead};
    sig.strides(strides, "query", {"batch", "seq", "head"});
  }
  if (cfg.paged()) {
    sig.i32(&a.maxPages, sym::MaxPages);
    Value *strides[1] = {&a.tableStride};
    sig.strides(strides, "block_table", {"batch"});
  }
  if (cfg.append)
    sig.i32(&a.seqNew, sym::SeqNew);
  if (cfg.varlen)
    sig.i32(&a.numSeqs, sym::NumSeqs);
  Value *tileSpace[3] = {&a.numBlocks, &a.numHeads, &a.batch};
  SmallVector<BundleExpr> extents = TileScheduler::forConfig(cfg)->tileSpaceParams();
  for (auto [i, extent] : llvm::enumerate(extents))
    sig.i32(tileSpace[i], extent);
}

KernelSignature mlir::fa::nvvm_kernel::forwardSignature(const AttentionKernelConfig &cfg,
                                                        KernelArgs &args) {
  KernelSignature sig;
  declareTensorMaps(sig, cfg, args);
  declarePointers(sig, cfg, args);
  declareStrided(sig, cfg, args);
  declareCaptureParams(sig, cfg.semantics, args.captures);
  if (cfg.blockSparse)
    declareBlockMapParams(sig, args.blockMap);
  declareSizes(sig, cfg, args);
  return sig;
}

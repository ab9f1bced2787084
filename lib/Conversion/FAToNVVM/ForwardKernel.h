//===- ForwardKernel.h - The sm_90a forward kernel's state and roles -*- C++ -*-===//
//
// One CTA computes 64 x consumers query rows of one (batch, head) with a
// producer and 1 to 3 consumer warpgroups, FlashAttention-3's forward
// (hopper/flash_fwd_kernel_sm90.h), from these parts:
//
//   ForwardKernel.cpp    the composition: barriers, the first work tile,
//                        the role split; the llvm.func
//   ForwardTiles.cpp     the current work tile (from the TileScheduler),
//                        its key tiles and mask rule; the tile loop
//   ForwardProducer.cpp  the mainloop's producer: Q once, then K_j and
//                        V_{j-1} into the K/V rings (TMA, paged, V^T)
//   ForwardConsumer.cpp  the mainloop's consumers: S = Q K^T, online
//                        softmax, O += P V (serial, overlapped, ping-pong),
//                        then the epilogue (Epilogue.cpp: dense, ragged,
//                        split partial)
//
// Shared memory (from a 1024-aligned base): Q [BM x D], K[stages] [BN x D],
// V[stages] [BN x D], each as D/64 boxes of [rows x 64] with 128B swizzle,
// then the mbarriers (and a ragged batch's stashed lengths).
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_FORWARDKERNEL_H
#define FA_LIB_CONVERSION_FATONVVM_FORWARDKERNEL_H

#include "KernelParts.h"

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace mlir::fa::nvvm_kernel {

/// Kernel parameters in the order bundleJson lists them.
struct KernelArgs {
  Value tmQ, tmK, tmV, outPtr, lsePtr, seqQ, seqK, group;
  Value finalOut, finalLse;         // split-KV: O and LSE when there is one split
  Value numBlocks, numHeads, batch; // persistent kernels only
  Value numSplits;                  // split-KV only
  Value keyLengths;                 // per-batch key lengths only
  Value blockTable, maxPages, tableStride; // paged caches only
  Value seqNew;                            // append only: keys added to each length
  Value cuSeqlensQ, cuSeqlensK, numSeqs;   // ragged batches only
  Value qPtr, qStrideBatch, qStrideSeq, qStrideHead; // pack-GQA: Q by plain loads
  std::optional<BiasArgs> bias;
  /// FP8: the Q, K, V descales [batch, heads_kv] and their (batch, head)
  /// strides; per block [batch, heads, blocks] and (batch, head, block).
  Value descale[3], descaleStride[3][3];

  static KernelArgs get(LLVM::LLVMFuncOp fn, const AttentionKernelConfig &cfg) {
    KernelArgs a;
    unsigned i = 0;
    auto next = [&]() { return fn.getArgument(i++); };
    if (!cfg.packGqa())
      a.tmQ = next();
    a.tmK = next();
    a.tmV = next();
    if (cfg.packGqa())
      a.qPtr = next();
    a.outPtr = next(); // o_partial with split-KV
    if (cfg.returnLse || cfg.splitKv)
      a.lsePtr = next(); // lse_partial with split-KV
    if (cfg.splitKv) {
      a.finalOut = next();
      if (cfg.returnLse)
        a.finalLse = next();
    }
    if (cfg.isFp8())
      for (Value &d : a.descale)
        d = next();
    if (cfg.keyLengths)
      a.keyLengths = next();
    if (cfg.paged())
      a.blockTable = next();
    if (cfg.varlen) {
      a.cuSeqlensQ = next();
      a.cuSeqlensK = next();
    }
    if (cfg.bias) {
      BiasArgs b;
      b.ptr = next();
      b.strideBatch = next();
      b.strideHead = next();
      b.strideRow = next();
      a.bias = b;
    }
    if (cfg.isFp8())
      for (auto &strides : a.descaleStride)
        for (int64_t i = 0; i < cfg.descaleRank(); ++i)
          strides[i] = next();
    a.seqQ = next();
    a.seqK = next();
    a.group = next();
    if (cfg.splitKv)
      a.numSplits = next();
    if (cfg.packGqa()) {
      a.qStrideBatch = next();
      a.qStrideSeq = next();
      a.qStrideHead = next();
    }
    if (cfg.paged()) {
      a.maxPages = next();
      a.tableStride = next();
    }
    if (cfg.append)
      a.seqNew = next();
    if (cfg.varlen)
      a.numSeqs = next();
    if (cfg.isPersistent()) {
      a.numBlocks = next();
      a.numHeads = next();
      a.batch = next();
    }
    return a;
  }
};

/// The forward kernel of one configuration: its parameters, its shared
/// memory, the current work tile and the roles. The methods live in the
/// files the header's comment lists, one part each.
class ForwardKernel {
public:
  ForwardKernel(KernelBuilder &kb, const AttentionKernelConfig &cfg, LLVM::LLVMFuncOp fn,
                StringRef smemSymbol)
      : kb(kb), cfg(cfg), args(KernelArgs::get(fn, cfg)),
        scheduler(TileScheduler::forConfig(cfg)),
        schedulerArgs{args.seqQ,      args.numSplits,  args.numBlocks, args.numHeads,
                      args.batch,     args.cuSeqlensQ, args.cuSeqlensK, args.numSeqs},
        tid(kb.threadIdX()), base(kb.alignedSharedBase(smemSymbol)),
        // Barriers after Q's: full K, full V, empty K, empty V (stages each),
        // the layout of the kernel before it was split into parts.
        kPipe(kb, base, cfg.kOffset(), cfg.kTileBytes(), barrier(1),
              barrier(1 + 2 * cfg.stages), cfg.stages, 128 * cfg.consumers),
        vPipe(kb, base, cfg.vOffset(), cfg.vTileBytes(), barrier(1 + cfg.stages),
              barrier(1 + 3 * cfg.stages), cfg.stages, 128 * cfg.consumers) {}

  /// The kernel body (ForwardKernel.cpp).
  void emit();

  // Shared memory.
  /// Offset of mbarrier `index` in shared memory.
  int64_t barrier(int64_t index) const { return cfg.barrierOffset() + 8 * index; }
  Value qBarrier() { return kb.sharedAt(base, barrier(0)); }
  /// Persistent: the consumers arrive when done with Q (128 x consumers).
  Value qEmptyBarrier() { return kb.sharedAt(base, barrier(1 + 4 * cfg.stages)); }
  /// stashesLengths: (seq_q, seq_k, first query row) of this CTA's
  /// sequence into shared memory (thread 0, before the CTA barrier) and
  /// back (volatile loads where they are used: not held in registers).
  void storeStash();
  Value reloadStash(int64_t index);

  // The work tile (ForwardTiles.cpp).
  /// Makes `tile` the current work tile; its iterations start at `ring` in
  /// the K/V rings. A ragged batch's tile brings its sequence's lengths,
  /// rows and mask rule.
  void beginTile(const WorkTile &tile, Value ring);
  /// Runs `body(qLoads)` for each of this CTA's work tiles (the one emit()
  /// began, or the persistent scheduler's); qLoads counts the Q loads of the
  /// tiles before. `warpWide`: whole warps run it (the consumers), else one
  /// thread.
  void forEachTile(const std::function<void(Value qLoads)> &body, bool warpWide);
  /// Key tile of iteration t.
  Value keyTile(Value t) { return kb.add(tiles.first, t); }

  // The producer (ForwardProducer.cpp).
  void emitProducer();
  void produceTile(Value qLoads);
  void load(TmaPipeline &pipe, Value tensorMap, Value t, int64_t dim, int64_t bytes);
  /// FP8: V^T's tile of iteration t, vTileKeys / kValueTBoxKeys boxes.
  void loadValueT(Value t);
  /// Paged caches: the page holding key slot `key` of this batch and the
  /// row in it. The table column is clamped to max_pages - 1 (slots past a
  /// sequence's keys are masked, whatever page they come from); a page
  /// index outside the cache gives TMA's zero fill, never a fault.
  std::pair<Value, Value> pageOf(Value key);

  // The consumers (ForwardConsumer.cpp).
  void emitConsumer();
  /// The CTA's iterations [begin, end) this consumer warpgroup computes.
  std::pair<Value, Value> consumerIterations(Value wgRow0);
  /// Waits for and releases the K and V slots of iterations [from, to)
  /// without reading them (tiles this warpgroup's rows do not see).
  void skipIterations(Value from, Value to);
  /// Pack-GQA: this warpgroup's 64 packed rows of Q into its slab, in the
  /// 128B-swizzled layout TMA would write (rows past seq_q x group and
  /// columns past the head dim zero).
  void loadPackedQuery(const ConsumerThread &me);
  /// Per-batch key lengths: zeroes the rows of V slot t past seq_k, which
  /// hold whatever the cache holds there (0 x NaN would poison P V).
  void zeroValueTail(const ConsumerThread &me, Value t);
  /// bar.sync of one consumer warpgroup's 128 threads.
  void syncWarpgroup(const ConsumerThread &me);
  /// FP8: descale i (0 Q, 1 K, 2 V) of this tile's batch at `head`, and
  /// with per-block descales at `block`.
  Value loadDescale(int64_t i, Value head, Value block = Value());

  KernelBuilder &kb;
  const AttentionKernelConfig &cfg;
  KernelArgs args;
  std::unique_ptr<TileScheduler> scheduler;
  SchedulerArgs schedulerArgs;
  Value tid, base; // in this order: tid is read first (keeps the PTX as before)
  TmaPipeline kPipe, vPipe;
  WorkTile work;
  Value m0, headKV;
  Value seqQ; // the kernel's, or this sequence's in a ragged batch
  Value seqK; // the kernel's, or this batch's with per-batch key lengths
  // Ragged batches: the sequence's first packed query and key rows (null
  // otherwise).
  Value qRowBase, kRowBase;
  std::optional<MaskRule> rule;
  KeyTiles tiles;
};

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_FORWARDKERNEL_H

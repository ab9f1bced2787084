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
// Shared memory (ForwardShared.h says which part owns which region): Q
// [BM x D], K[stages] [BN x D], V[stages] [BN x D], each as D/64 boxes of
// [rows x 64] with 128B swizzle, then the mbarriers (and a ragged batch's
// stashed lengths, or the dynamic scheduler's tile slot).
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_FORWARDKERNEL_H
#define FA_LIB_CONVERSION_FATONVVM_FORWARDKERNEL_H

#include "ForwardShared.h"
#include "ForwardSignature.h"
#include "KernelParts.h"

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace mlir::fa::nvvm_kernel {

/// The forward kernel of one configuration: its parameters, its shared
/// memory, the current work tile and the roles. The methods live in the
/// files the header's comment lists, one part each.
class ForwardKernel {
public:
  ForwardKernel(KernelBuilder &kb, const AttentionKernelConfig &cfg, LLVM::LLVMFuncOp fn,
                StringRef smemSymbol)
      : kb(kb), cfg(cfg), args(bindArgs(fn, cfg)), scheduler(TileScheduler::forConfig(cfg)),
        smem(ForwardShared::plan(cfg, *scheduler)),
        // (The dynamic scheduler's handover: bindTileHandover.)
        schedulerArgs{args.seqQ,  args.numSplits,  args.numBlocks,  args.numHeads,
                      args.batch, args.cuSeqlensQ, args.cuSeqlensK, args.numSeqs,
                      Value(),    Value(),         Value(),         Value()},
        tid(kb.threadIdX()), base(kb.alignedSharedBase(smemSymbol)),
        kPipe(kb, base, smem.mainloop.kRing.offset, cfg.kTileBytes(), smem.mainloop.kFull(),
              smem.mainloop.kEmpty(), cfg.stages, 128 * cfg.consumers),
        vPipe(kb, base, smem.mainloop.vRing.offset, cfg.vTileBytes(), smem.mainloop.vFull(),
              smem.mainloop.vEmpty(), cfg.stages, 128 * cfg.consumers) {}

  /// The kernel body (ForwardKernel.cpp).
  void emit();

  /// `fn`'s arguments as forwardSignature declares them.
  static KernelArgs bindArgs(LLVM::LLVMFuncOp fn, const AttentionKernelConfig &cfg) {
    KernelArgs a;
    forwardSignature(cfg, a).bind(fn);
    return a;
  }

  // Shared memory (smem: the parts' regions).
  Value qTile() { return kb.sharedAt(base, smem.mainloop.q.offset); }
  Value qBarrier() { return kb.sharedAt(base, smem.mainloop.qFull.offset); }
  /// Persistent: the consumers arrive when done with Q (128 x consumers).
  Value qEmptyBarrier() { return kb.sharedAt(base, smem.mainloop.qEmpty.offset); }
  /// Dynamic: the tile counter and the handover's slot and barriers
  /// (TileScheduler.h's DynamicScheduler) into schedulerArgs.
  void bindTileHandover();
  /// stashesLengths: the stash's region (ForwardTiles.cpp owns it).
  static SharedRegion reserveStash(SharedLayout &layout, const AttentionKernelConfig &cfg);
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
  Value keyTile(Value t) { return blockList ? blockList->tileAt(t).first : kb.add(tiles.first, t); }
  /// Key tile of iteration t and, block-sparse, whether mask_mod must be
  /// evaluated on it (null otherwise: on every tile).
  std::pair<Value, Value> listedTile(Value t) {
    return blockList ? blockList->tileAt(t) : std::make_pair(keyTile(t), Value());
  }

  // The producer (ForwardProducer.cpp).
  void emitProducer();
  void produceTile(Value qLoads);
  void load(TmaPipeline &pipe, Value tensorMap, Value t, int64_t dim, int64_t bytes);
  /// Where a TMA box lands: `offset` bytes into shared `region`.
  Value loadDestination(Value region, int64_t offset);
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
  ForwardShared smem;
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
  /// Block-sparse kernels: the current work tile's key-tile list.
  std::optional<BlockList> blockList;
};

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_FORWARDKERNEL_H

//===- TileScheduler.h - Which work tiles a CTA computes, and the grid -*- C++ -*-===//
//
// FlashAttention-3's tile schedulers (hopper/tile_scheduler.hpp) as emitters
// behind one interface: the grid the runtime launches (get_grid_shape), the
// tile of a one-tile CTA (get_initial_work) and the loop of a persistent CTA
// over its tiles (get_initial_work, then get_next_work until none is left).
// `TileScheduler::forConfig` picks one from the kernel's configuration; it
// is the only place that does.
//
//   StaticScheduler       one CTA per (query block, head, batch); causal
//                         grids take the longest blocks first
//   SplitKvScheduler      one CTA per (split, packed query block, KV head,
//                         batch)
//   VarlenScheduler       one CTA per query block of a ragged batch, found
//                         by a warp-wide prefix sum over cu_seqlens_q
//   PersistentScheduler   one CTA per SM looping over the tiles in snake
//                         order (dense, or a ragged batch's: the search
//                         resumes from the previous tile's sequence)
//   DynamicScheduler      (opt-in, AttentionKernelConfig::dynamicTiles) one
//                         CTA per SM; after its first tile (blockIdx.x) the
//                         producer takes the next index from a global
//                         atomic counter and hands it to the consumers
//                         through shared memory and two mbarriers (FA3's
//                         DynamicPersistentTileScheduler); the tile space
//                         is the persistent one's, longest blocks first
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_TILESCHEDULER_H
#define FA_LIB_CONVERSION_FATONVVM_TILESCHEDULER_H

#include "KernelConfig.h"
#include "SharedLayout.h"

#include "llvm/Support/JSON.h"

#include <memory>
#include <string>

namespace mlir::fa::nvvm_kernel {

/// The dynamic scheduler's tile counter: an operand name (a kernel
/// parameter and a workspace buffer of one i32 the runtime zeroes).
constexpr const char *kTileCounter = "tile_counter";

/// A work tile: a block of query rows of one (head, batch).
struct WorkTile {
  Value mBlock, head, batch; // head: the KV head with pack-GQA
  Value row0;  // the block's first query row (negative in a first partial block)
  Value split; // split-KV: the chunk of key tiles (null otherwise)
  /// A ragged batch's tile lies in one sequence (batch 0, row0 local to
  /// it): where the sequence starts in the packed Q and K/V rows, and its
  /// lengths (0 for the grid's spare CTAs past the last block, which then
  /// compute nothing and store nothing). Null otherwise.
  Value qStart = Value(), kStart = Value(), seqQ = Value(), seqK = Value();
  /// A ragged batch's sequence index, where modifier regions read it as
  /// their batch argument (null otherwise).
  Value seq = Value();
  bool inRaggedBatch() const { return static_cast<bool>(seqQ); }
  /// The batch index the score_mod/mask_mod regions take: the sequence in
  /// a ragged batch (docs/Modifiers.md), else the batch.
  Value regionBatch() const { return seq ? seq : batch; }
};

/// The kernel parameters the schedulers read (null where a kernel has none).
struct SchedulerArgs {
  Value seqQ;                          // the kernel's seq_q
  Value numSplits;                     // split-KV
  Value numBlocks, numHeads, batch;    // persistent: the tile space's extents
  Value cuSeqlensQ, cuSeqlensK, numSeqs; // ragged batches
  /// Dynamic: the global tile counter (i32, zero at launch) and, in shared
  /// memory, the handed-over index and its full and empty mbarriers.
  Value tileCounter, tileSlot, tileFull, tileEmpty;
};

/// The shared memory a scheduler reserves (SharedLayout): the dynamic
/// one's handover of the next tile index from the producer to the
/// consumers, its full and empty mbarriers and the index's slot.
struct SchedulerShared {
  SharedRegion handoverBarriers, tileSlot;
};

class TileScheduler {
public:
  /// Begins `tile`, whose key tiles start at position `ring` of the K/V
  /// rings after `qLoads` loads of Q by the CTA's earlier tiles, computes
  /// it and returns its number of key tiles (i32).
  using TileBody = function_ref<Value(const WorkTile &tile, Value ring, Value qLoads)>;

  /// The scheduler of `cfg`'s forward kernel.
  static std::unique_ptr<TileScheduler> forConfig(const AttentionKernelConfig &cfg);
  virtual ~TileScheduler();

  /// The launch grid, as bundle expressions (FA3's get_grid_shape).
  virtual llvm::json::Array gridShape() const = 0;
  /// The i32 parameters (bundle expressions) a scheduler reads beyond the
  /// kernel's own, in SchedulerArgs order.
  virtual SmallVector<BundleExpr> tileSpaceParams() const { return {}; }
  /// The buffers the scheduler keeps in global memory (the dynamic one's
  /// tile counter): the kernel's `scratch` entries, or with `withInit` a
  /// sequence's `workspace` entries (docs/BundleFormat.md).
  virtual llvm::json::Array workspace(bool withInit) const { return {}; }
  /// Reserves the scheduler's shared memory in `layout` (none but the
  /// dynamic one's handover).
  virtual SchedulerShared reserveShared(SharedLayout &layout) const { return {}; }
  /// Whether a CTA computes several tiles (forEachTile); else one
  /// (currentTile), which the kernel begins before its roles split.
  virtual bool isPersistent() const { return false; }
  /// The tile of this CTA's block index (one-tile schedulers).
  virtual WorkTile currentTile(KernelBuilder &kb, const SchedulerArgs &args) const = 0;
  /// Runs `body` on each of this CTA's tiles. `warpWide`: every lane of
  /// the calling warps runs it (the consumers), else one thread (the
  /// producer); both see the same tiles.
  virtual void forEachTile(KernelBuilder &kb, const SchedulerArgs &args, bool warpWide,
                           TileBody body) const;

  /// "ceildiv(seq_q, blockM)": query blocks per (head, batch); with
  /// pack-GQA, of seq_q x group rows per KV head.
  static BundleExpr queryBlocks(const AttentionKernelConfig &cfg);
  /// The grid's x extent of work tiles per (head, batch): queryBlocks, plus
  /// one spare block per sequence of a ragged batch.
  static BundleExpr gridBlocks(const AttentionKernelConfig &cfg);
  /// The split count as a bundle expression: numSplits, or (0) enough
  /// chunks to give every SM one CTA, at most one per key tile and 64.
  static BundleExpr splitCount(const AttentionKernelConfig &cfg);

  explicit TileScheduler(const AttentionKernelConfig &cfg) : cfg(cfg) {}

protected:
  const AttentionKernelConfig &cfg;
};

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_TILESCHEDULER_H

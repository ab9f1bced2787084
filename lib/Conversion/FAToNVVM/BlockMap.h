//===- BlockMap.h - Run-time block sparsity from mask_mod -*- C++ -*-------===//
//
// FlexAttention's BlockMask for the sm_90a forward (docs/Modifiers.md,
// "Block sparsity on sm_90a"). A pre-kernel (`_block_map`) evaluates
// mask_mod, through the same evaluator as the forward's fragments, on every
// element of every tile in the band's key range of each query block and
// writes two workspace buffers:
//
//   kv_num_blocks [B', H', query blocks]             i32: listed key tiles
//   kv_indices    [B', H', query blocks, key tiles]  i32: 2 * key tile + full
//
// (B' is the batch and H' the query heads where mask_mod reads its batch or
// head argument, else 1.) A key tile is listed when some key of it is
// visible (mask_mod and the band keep it); it is full when mask_mod keeps
// every element the band and the sequence lengths leave. The forward's
// producer and consumers walk the list of their query block in order (the
// K/V ring's iterations), so hidden tiles are never loaded, and a full
// tile's scores skip mask_mod.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BLOCKMAP_H
#define FA_LIB_CONVERSION_FATONVVM_BLOCKMAP_H

#include "KernelParts.h"
#include "KernelSignature.h"

#include <string>
#include <utility>

namespace mlir::fa::nvvm_kernel {

/// The map's two buffers as a kernel sees them: pointers and the strides
/// of their outer dims (elements, i64; kv_num_blocks (batch, head),
/// kv_indices (batch, head, block)). The innermost stride is 1: the
/// runtime requires it of every operand.
struct BlockMapArgs {
  Value numBlocks, indices;
  Value numStride[2], indexStride[3];
};

/// Declares the map's pointers and strides (the pre-kernel's and the
/// forward's, in this order); the backward's map is named q_num_blocks,
/// q_indices.
void declareBlockMapParams(KernelSignature &sig, BlockMapArgs &a,
                           StringRef numName = "kv_num_blocks",
                           StringRef indicesName = "kv_indices");

/// Whether the map has an entry per batch / per query head: mask_mod reads
/// its batch / head argument.
bool blockMapPerBatch(const AttentionConfig &semantics);
bool blockMapPerHead(const AttentionConfig &semantics);
bool blockMapPerBatch(const AttentionKernelConfig &cfg);
bool blockMapPerHead(const AttentionKernelConfig &cfg);

/// The workspace (or scratch) entries of the map; `withInit`: a sequence's
/// (the pre-kernel writes every entry the forward reads: init none).
llvm::json::Array blockMapWorkspace(const AttentionKernelConfig &cfg, bool withInit);

/// One query block's list: where its count and entries are, and the
/// forward kernel's reads of them.
class BlockList {
public:
  /// The list of `mBlock` of (batch, head) (the map's own indices where it
  /// has no entry per batch or head).
  BlockList(KernelBuilder &kb, const AttentionKernelConfig &cfg, const BlockMapArgs &map,
            Value batch, Value head, Value mBlock);
  /// The list of `block` of (batch, head) in a map with (`perBatch`) or
  /// without an entry per batch, and per head (`perHead`).
  BlockList(KernelBuilder &kb, bool perBatch, bool perHead, const BlockMapArgs &map, Value batch,
            Value head, Value block);
  /// Where the count is, and entry `t`.
  Value countAddress() const { return countPtr; }
  Value entryAddress(Value t) const;
  /// The number of listed key tiles (the iterations of the work tile).
  Value loadCount() const;
  /// The key tile of iteration `t` and whether it is partial (i1: mask_mod
  /// must be evaluated on it), from one load.
  std::pair<Value, Value> tileAt(Value t) const;

private:
  KernelBuilder &kb;
  Value countPtr, rowPtr; // the count; the list's entry 0
};

/// Threads of a map pre-kernel's CTA.
constexpr int64_t kMapThreads = 1024;

/// A map's tile: query rows x keys.
struct MapTile {
  int64_t rows, cols;
};

/// A map pre-kernel's evaluation of mask_mod on tiles, through the shared
/// evaluator (`semantics` with the kernel's modifier target) and the band
/// (`rule`): each thread takes kColumns adjacent keys of a column group and
/// rows a stride apart; two reducing barriers per tile say whether it has
/// a visible element and whether mask_mod keeps all it counts (inside the
/// lengths and the band). The forward's map lists key tiles per query
/// block, the backward's query tiles per key block: both are lists of the
/// tiles along one axis, appended by emitList.
class MapTileEvaluator {
public:
  static constexpr int64_t kColumns = 8; // divides every tile width used
  /// Per thread: some counted element is visible; mask_mod keeps every
  /// counted element.
  struct TileFacts {
    Value anyVisible, allKept;
  };

  MapTileEvaluator(KernelBuilder &kb, MapTile tile, const AttentionConfig &semantics,
                   MaskRule &rule, Value tid, Value seqQ, Value seqK);
  /// This thread's facts of the tile at query row `row0`, key tile
  /// `keyTile`, for (batch, head).
  TileFacts evaluate(Value batch, Value head, Value row0, Value keyTile);
  /// Appends to `list` every tile `first + t`, t in [0, count), that has a
  /// visible element (evaluateAt's facts, reduced over the CTA) as 2 *
  /// tile + full, in order, then stores the count (thread 0).
  void emitList(const BlockList &list, Value first, Value count,
                function_ref<TileFacts(Value tile)> evaluateAt);

private:
  KernelBuilder &kb;
  MapTile tile;
  const AttentionConfig &semantics;
  MaskRule &rule;
  Value seqQ, seqK;
  int64_t groups, rowLanes, passes;
  Value column0, firstRow, active, isLeader;
};

/// The `_block_map` pre-kernel of `cfg`, its bundle JSON and the sequence
/// (the pre-kernel, then the forward, named cfg.kernelName()).
void buildBlockMapKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                         const AttentionKernelConfig &cfg);
std::string blockMapBundleJson(const AttentionKernelConfig &cfg, StringRef chip,
                               StringRef cubinFile);
std::string blockSparseSequenceJson(const AttentionKernelConfig &cfg, StringRef chip);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BLOCKMAP_H

//===- BackwardBlockMap.h - Block sparsity of the sm_90a backward -*- C++ -*-===//
//
// The backward's main kernel runs one CTA per (128-key block, kv head,
// batch) over query tiles, so its map is the forward's transposed
// (docs/Modifiers.md, "Block sparsity on sm_90a"): a `_block_map`
// pre-kernel, first in the backward sequence, writes per key block the
// query tiles to visit, each 2 * tile + full:
//
//   q_num_blocks [B', H', key blocks]               i32
//   q_indices    [B', H', key blocks, query tiles]  i32
//
// B' is the batch where mask_mod reads its batch argument, else 1; H' the
// kv heads where it reads its head argument, else 1: a kv head's CTA walks
// the group's query heads over one list, so a tile is listed when some
// query head of the group sees a key of it and full when mask_mod keeps
// every counted element for every one of them. The main kernel's producer
// and consumers walk the list (hidden tiles are never loaded), and a full
// tile's scores skip mask_mod. Both buffers are "written_by" the
// pre-kernel, so a caller that keeps the map skips it.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BACKWARDBLOCKMAP_H
#define FA_LIB_CONVERSION_FATONVVM_BACKWARDBLOCKMAP_H

#include "BackwardParts.h"
#include "BlockMap.h"

namespace mlir::fa::nvvm_kernel {

/// Whether the backward of `cfg` is block-sparse: a mask_mod that states
/// more than a band (the band is folded into causal/window first). Not
/// with a bias (dBias of skipped tiles would have to be zeroed), in
/// deterministic mode (its dQ order counts every key block of a query
/// tile) or for ragged batches (no regions there).
bool backwardBlockSparse(const BackwardKernelConfig &cfg);

/// The map's workspace names.
constexpr const char *kBackwardMapCount = "q_num_blocks";
constexpr const char *kBackwardMapIndices = "q_indices";

/// Workspace entry `name` (one of the two above) of the map; `withInit`:
/// the sequence's (init none, written by kernel 0).
llvm::json::Object backwardMapBuffer(StringRef name, const BackwardKernelConfig &cfg,
                                     bool withInit);

/// The main kernel's map parameters (pointers and strides).
void declareBackwardMapParams(KernelSignature &sig, BlockMapArgs &map);
/// The list of key block `nBlock` of (batch, kv head) in the main kernel.
BlockList backwardQueryList(KernelBuilder &kb, const BackwardKernelConfig &cfg,
                            const BlockMapArgs &map, Value batch, Value headKV, Value nBlock);

/// The pre-kernel (`<name>_block_map`), its parameters and its grid (one
/// CTA of kMapThreads per key block and kv head', batch').
void buildBackwardBlockMapKernel(OpBuilder &builder, Location loc, Block &moduleBody,
                                 const BackwardKernelConfig &cfg);
llvm::json::Array backwardBlockMapParams(const BackwardKernelConfig &cfg);
llvm::json::Array backwardBlockMapGrid(const BackwardKernelConfig &cfg);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BACKWARDBLOCKMAP_H

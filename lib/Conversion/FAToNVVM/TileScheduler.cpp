//===- TileScheduler.cpp - CTA to work tile, and the grid -----------------===//
#include "KernelParts.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

TileScheduler::WorkTile TileScheduler::current(KernelBuilder &kb,
                                               const AttentionKernelConfig &cfg) {
  if (!cfg.semantics.causal) {
    Value mBlock = kb.blockIdX();
    return {mBlock, kb.blockIdY(), kb.blockIdZ(), kb.mul(mBlock, kb.c32(cfg.blockM))};
  }
  // Causal: the longest rows (the last query blocks) first, across a group
  // of heads.
  GridPosition at = heavyFirstGroups(kb);
  Value mBlock = kb.sub(kb.sub(kb.gridDimX(), kb.c32(1)), at.x);
  return {mBlock, at.y, at.z, kb.mul(mBlock, kb.c32(cfg.blockM))};
}

llvm::json::Array TileScheduler::grid(const AttentionKernelConfig &cfg) {
  return llvm::json::Array{llvm::formatv("ceildiv(seq_q, {0})", cfg.blockM).str(), "heads_q",
                           "batch"};
}

TileScheduler::GridPosition TileScheduler::heavyFirstGroups(KernelBuilder &kb) {
  Value nx = kb.gridDimX(), ny = kb.gridDimY();
  Value pairs = kb.mul(ny, kb.gridDimZ());
  Value linear =
      kb.add(kb.blockIdX(), kb.mul(nx, kb.add(kb.blockIdY(), kb.mul(ny, kb.blockIdZ()))));
  // ceil(kGroupCtas / nx) pairs per group; the last group may be smaller.
  Value groupPairs =
      kb.minSI(pairs, kb.divUI(kb.add(kb.c32(kGroupCtas - 1), nx), nx));
  Value groupCtas = kb.mul(nx, groupPairs);
  Value group = kb.divUI(linear, groupCtas);
  Value rank = kb.sub(linear, kb.mul(group, groupCtas));
  Value firstPair = kb.mul(group, groupPairs);
  Value size = kb.minSI(groupPairs, kb.sub(pairs, firstPair));
  Value x = kb.divUI(rank, size);
  Value pair = kb.add(firstPair, kb.sub(rank, kb.mul(x, size)));
  return {x, kb.remu(pair, ny), kb.divUI(pair, ny)};
}

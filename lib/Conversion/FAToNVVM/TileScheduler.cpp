//===- TileScheduler.cpp - CTA to work tile, and the grid -----------------===//
#include "KernelParts.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

TileScheduler::WorkTile TileScheduler::current(KernelBuilder &kb,
                                               const AttentionKernelConfig &cfg, Value seqQ) {
  Value bx = kb.blockIdX();
  if (cfg.slabTiles()) {
    // Block bx ends at seq_q - bx * blockM: the last rows (the longest
    // under causal) first, the partial block last.
    Value row0 = kb.sub(seqQ, kb.mul(kb.add(bx, kb.c32(1)), kb.c32(cfg.blockM)));
    return {bx, kb.blockIdY(), kb.blockIdZ(), row0};
  }
  // Causal: the longest rows (the last query blocks) first.
  Value mBlock = cfg.semantics.causal ? kb.sub(kb.sub(kb.gridDimX(), kb.c32(1)), bx) : bx;
  Value row0 = kb.mul(mBlock, kb.c32(cfg.blockM));
  Value head = kb.blockIdY();
  return {mBlock, head, kb.blockIdZ(), row0};
}

llvm::json::Array TileScheduler::grid(const AttentionKernelConfig &cfg) {
  return llvm::json::Array{llvm::formatv("ceildiv(seq_q, {0})", cfg.blockM).str(), "heads_q",
                           "batch"};
}

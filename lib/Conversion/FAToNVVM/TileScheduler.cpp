//===- TileScheduler.cpp - CTA to work tile, and the grid -----------------===//
#include "KernelParts.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

/// Block `bx` of `numBlocks` query blocks, of (head, batch).
static TileScheduler::WorkTile tileOf(KernelBuilder &kb, const AttentionKernelConfig &cfg,
                                      Value seqQ, Value bx, Value numBlocks, Value head,
                                      Value batch) {
  if (cfg.slabTiles()) {
    // Block bx ends at seq_q - bx * blockM: the last rows (the longest
    // under causal) first, the partial block last.
    Value row0 = kb.sub(seqQ, kb.mul(kb.add(bx, kb.c32(1)), kb.c32(cfg.blockM())));
    return {bx, head, batch, row0};
  }
  // Causal: the longest rows (the last query blocks) first.
  Value mBlock = cfg.semantics.causal ? kb.sub(kb.sub(numBlocks, kb.c32(1)), bx) : bx;
  Value row0 = kb.mul(mBlock, kb.c32(cfg.blockM()));
  return {mBlock, head, batch, row0};
}

TileScheduler::WorkTile TileScheduler::current(KernelBuilder &kb,
                                               const AttentionKernelConfig &cfg, Value seqQ,
                                               Value numSplits) {
  Value bx = kb.blockIdX();
  if (cfg.splitKv) {
    // The splits of a tile side by side; packed query blocks in order (no
    // causal reordering: a decode grid is one wave).
    Value mBlock = kb.divUI(bx, numSplits);
    return {mBlock, kb.blockIdY(), kb.blockIdZ(), kb.mul(mBlock, kb.c32(cfg.blockM())),
            kb.remu(bx, numSplits)};
  }
  // gridDimX is read only where it is used (keeps the PTX as before).
  Value numBlocks = cfg.semantics.causal && !cfg.slabTiles() ? kb.gridDimX() : Value();
  return tileOf(kb, cfg, seqQ, bx, numBlocks, kb.blockIdY(), kb.blockIdZ());
}

TileScheduler::WorkTile TileScheduler::decode(KernelBuilder &kb,
                                              const AttentionKernelConfig &cfg, Value seqQ,
                                              Value linear, Value numBlocks, Value numHeads) {
  Value bx = kb.remu(linear, numBlocks);
  Value rest = kb.divUI(linear, numBlocks);
  return tileOf(kb, cfg, seqQ, bx, numBlocks, kb.remu(rest, numHeads),
                kb.divUI(rest, numHeads));
}

std::string TileScheduler::queryBlocks(const AttentionKernelConfig &cfg) {
  if (cfg.packGqa())
    return llvm::formatv("ceildiv(seq_q * (heads_q / heads_kv), {0})", cfg.blockM()).str();
  return llvm::formatv("ceildiv(seq_q, {0})", cfg.blockM()).str();
}

llvm::json::Array TileScheduler::grid(const AttentionKernelConfig &cfg) {
  // Persistent: one CTA per SM, each looping over tiles, below
  // kPersistentBelowSeqQ query rows; from there one tile per CTA (measured
  // +2..15 % at 512-2k, -2..4 % at 8k-16k with one CTA per SM):
  // min(total, max(num_sms, total * [seq_q >= threshold])).
  if (cfg.isPersistent()) {
    std::string total = "(" + queryBlocks(cfg) + " * heads_q * batch)";
    std::string longRows =
        llvm::formatv("min(1, seq_q / {0})", AttentionKernelConfig::kPersistentBelowSeqQ).str();
    return llvm::json::Array{
        "min(" + total + ", max(num_sms, " + total + " * " + longRows + "))", 1, 1};
  }
  if (cfg.splitKv)
    return llvm::json::Array{queryBlocks(cfg) + " * " + cfg.splitCountExpr(), "heads_kv", "batch"};
  return llvm::json::Array{queryBlocks(cfg), "heads_q", "batch"};
}

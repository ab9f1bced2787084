//===- ForwardTiles.cpp - The forward kernel's current work tile ----------===//
//
// A work tile (TileScheduler.h) brings the key tiles its query rows see
// (KeyTiles, MaskRule; with split-KV the split's chunk of them) and, in a
// ragged batch, its sequence's lengths and mask rule. One-tile CTAs begin
// their tile before the roles split; persistent CTAs begin each tile in
// both roles, from the scheduler's loop.
//
//===----------------------------------------------------------------------===//
#include "ForwardKernel.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

void ForwardKernel::beginTile(const WorkTile &tile, Value ring) {
  if (tile.inRaggedBatch()) {
    seqQ = tile.seqQ;
    seqK = tile.seqK;
    qRowBase = tile.qStart;
    kRowBase = tile.kStart;
    rule.emplace(kb, cfg.semantics, seqQ, seqK);
  }
  work = tile;
  m0 = work.row0;
  if (!cfg.packGqa()) {
    headKV = kb.divUI(work.head, args.group);
    tiles = KeyTiles::get(kb, *rule, m0, cfg.blockM(), cfg.blockN);
    if (cfg.blockSparse) {
      // The pre-kernel's list of this query block (within the band's tiles).
      blockList.emplace(kb, cfg, args.blockMap, work.batch, work.head, work.mBlock);
      tiles = {kb.c32(0), blockList->loadCount()};
    }
  } else {
    // The packed rows' queries [m0 / group, (m0 + blockM - 1) / group].
    headKV = work.head;
    Value q0 = kb.divUI(m0, args.group);
    Value q1 = kb.divUI(kb.add(m0, kb.c32(cfg.blockM() - 1)), args.group);
    auto [lo, hi] = rule->tileRange(rule->keyRange({q0, kb.add(kb.sub(q1, q0), kb.c32(1))}),
                                    cfg.blockN);
    tiles = {lo, kb.sub(hi, lo)};
  }
  if (cfg.splitKv) {
    // Chunk `split` of ceildiv(key tiles, splits) tiles, within the band's.
    Value keyTiles = kb.divUI(kb.add(seqK, kb.c32(cfg.blockN - 1)), kb.c32(cfg.blockN));
    Value chunk = kb.divUI(kb.add(keyTiles, kb.sub(args.numSplits, kb.c32(1))), args.numSplits);
    Value lo = kb.maxSI(tiles.first, kb.mul(work.split, chunk));
    Value hi = kb.minSI(kb.add(tiles.first, tiles.count),
                        kb.mul(kb.add(work.split, kb.c32(1)), chunk));
    tiles = {lo, kb.maxSI(kb.sub(hi, lo), kb.c32(0))};
  }
  kPipe.setIterationBase(ring);
  vPipe.setIterationBase(ring);
}

void ForwardKernel::forEachTile(const std::function<void(Value qLoads)> &body, bool warpWide) {
  if (!scheduler->isPersistent()) {
    body(kb.c32(0)); // the tile of emit()
    return;
  }
  scheduler->forEachTile(kb, schedulerArgs, warpWide,
                         [&](const WorkTile &tile, Value ring, Value qLoads) {
                           beginTile(tile, ring);
                           body(qLoads);
                           return tiles.count;
                         });
}

SharedRegion ForwardKernel::reserveStash(SharedLayout &layout, const AttentionKernelConfig &cfg) {
  if (!cfg.stashesLengths())
    return {};
  // Three i32 in 16 bytes (what the kernel requested before the parts
  // reserved their own regions: the bundles stay byte-identical).
  return layout.reserve("work tile", "lengths stash", 16, 4);
}

void ForwardKernel::storeStash() {
  Value values[3] = {seqQ, seqK, qRowBase};
  for (int64_t i = 0; i < 3; ++i)
    LLVM::StoreOp::create(kb.b, values[i], kb.sharedAt(base, smem.stash.at(i, 4)), 4);
}

Value ForwardKernel::reloadStash(int64_t index) {
  return LLVM::LoadOp::create(kb.b, kb.i32, kb.sharedAt(base, smem.stash.at(index, 4)), 4,
                              /*isVolatile=*/true);
}

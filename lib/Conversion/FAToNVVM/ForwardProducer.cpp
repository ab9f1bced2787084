//===- ForwardProducer.cpp - The forward mainloop's producer warpgroup ----===//
//
// Warpgroup 0: setmaxnreg.dec; one thread issues the TMA copies of a work
// tile: Q once (unless the consumers load packed rows), then K_j and
// V_{j-1} in that order into the K and V rings (TmaPipeline), so that the
// consumers' S_j and P_{j-1} V_{j-1} find their operands in the order they
// issue them. Paged caches load one box per page a key tile spans; FP8
// loads V^T, the transpose the pre-kernel wrote.
//
//===----------------------------------------------------------------------===//
#include "ForwardKernel.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

MainloopShared MainloopShared::reserve(SharedLayout &layout, const AttentionKernelConfig &cfg) {
  const int64_t align = SharedLayout::kSwizzleAlign;
  MainloopShared m;
  m.stages = cfg.stages;
  m.q = layout.reserve("mainloop", "Q tile", cfg.qTileBytes(), align);
  m.kRing = layout.reserve("mainloop", "K ring", cfg.stages * cfg.kTileBytes(), align);
  m.vRing = layout.reserve("mainloop", "V ring", cfg.stages * cfg.vTileBytes(), align);
  m.qFull = layout.reserveBarriers("mainloop", "Q full barrier", 1);
  m.ringBarriers = layout.reserveBarriers("mainloop", "K/V ring barriers", 4 * cfg.stages);
  if (cfg.isPersistent())
    m.qEmpty = layout.reserveBarriers("mainloop", "Q empty barrier", 1);
  return m;
}

void ForwardKernel::emitProducer() {
  setMaxRegisters(kb, cfg.producerRegs, /*increase=*/false);
  Value isLeader = kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0));
  kb.ifThen(isLeader,
            [&] { forEachTile([&](Value qLoads) { produceTile(qLoads); }, /*warpWide=*/false); });
}

void ForwardKernel::produceTile(Value qLoads) {
  Value any = kb.cmp(arith::CmpIPredicate::sgt, tiles.count, kb.c32(0));
  kb.ifThen(any, [&] {
    // K_t, then V_{t-1}: the consumer needs K_t first and V_{t-1} one step later.
    auto loadK = [&](Value t) { load(kPipe, args.tmK, t, cfg.qkDim(), cfg.kTileBytes()); };
    auto loadV = [&](Value t) {
      if (cfg.isFp8())
        loadValueT(t);
      else
        load(vPipe, args.tmV, t, cfg.vDim(), cfg.vTileBytes());
    };
    // K_0 needs only a free K slot; Q waits until the consumers are done
    // with the previous tile's (a fresh barrier counts as phase -1 done).
    loadK(kb.c32(0));
    if (cfg.isPersistent())
      mbarrierWait(kb, qEmptyBarrier(), kb.xori(kb.andi(qLoads, kb.c32(1)), kb.c32(1)));
    if (!cfg.packGqa()) { // packed Q: the consumers load it
      mbarrierArriveExpectTx(kb, qBarrier(), cfg.qTileBytes());
      for (int64_t box = 0; box < cfg.qkDim() / cfg.boxElems(); ++box)
        tmaLoad(kb, loadDestination(base, smem.mainloop.q.at(box, cfg.blockM() * 128)), args.tmQ,
                qBarrier(),
                {kb.c32(cfg.boxElems() * box), qRowBase ? kb.add(qRowBase, m0) : m0, work.head,
                 work.batch});
    }
    kb.forLoop(kb.c32(1), tiles.count, {}, [&](Value t, ValueRange) {
      loadK(t);
      loadV(kb.sub(t, kb.c32(1)));
      return SmallVector<Value>{};
    });
    loadV(kb.sub(tiles.count, kb.c32(1)));
  });
}

void ForwardKernel::load(TmaPipeline &pipe, Value tensorMap, Value t, int64_t dim,
                         int64_t bytes) {
  Value full = pipe.acquire(t, bytes);
  Value tile = pipe.slot(t);
  Value row = kb.mul(keyTile(t), kb.c32(cfg.blockN));
  if (kRowBase)
    row = kb.add(kRowBase, row);
  if (!cfg.paged()) {
    for (int64_t box = 0; box < dim / cfg.boxElems(); ++box)
      tmaLoad(kb, loadDestination(tile, box * cfg.blockN * 128), tensorMap, full,
              {kb.c32(cfg.boxElems() * box), row, headKV, work.batch});
    return;
  }
  // One box per page the tile spans; its rows land where one tall box
  // would put them (whole 1024-byte swizzle atoms, pagesFitTiles).
  const int64_t rows = cfg.keyRowsPerLoad();
  for (int64_t part = 0; part < cfg.blockN / rows; ++part) {
    auto [page, inPage] = pageOf(kb.add(row, kb.c32(part * rows)));
    for (int64_t box = 0; box < dim / AttentionKernelConfig::kBox; ++box)
      tmaLoad(kb, loadDestination(tile, box * cfg.blockN * 128 + part * rows * 128), tensorMap,
              full, {kb.c32(64 * box), inPage, headKV, page});
  }
}

void ForwardKernel::loadValueT(Value t) {
  Value full = vPipe.acquire(t, cfg.vTileBytes());
  Value key = kb.mul(keyTile(t), kb.c32(cfg.blockN));
  const int64_t keys = AttentionKernelConfig::kValueTBoxKeys;
  for (int64_t box = 0; box < cfg.vTileKeys() / keys; ++box)
    tmaLoad(kb, loadDestination(vPipe.slot(t), box * cfg.vDim() * keys), args.tmV, full,
            {kb.add(key, kb.c32(keys * box)), kb.c32(0), headKV, work.batch});
}

Value ForwardKernel::loadDestination(Value region, int64_t offset) {
  Value dst = kb.sharedAt(region, offset);
  // A persistent producer's 24 registers hold the tile loop's state; there
  // the destinations are passed by value (sharedAsCluster), so that ptxas
  // recomputes the loop-invariant ones (Q's boxes, which LLVM hoists out of
  // the loop) instead of holding them: 28 of the 76 matrix kernels spilled
  // in the producer without it (docs/HopperKernel.md, 2026-12-06).
  return scheduler->isPersistent() ? sharedAsCluster(kb, dst) : dst;
}

std::pair<Value, Value> ForwardKernel::pageOf(Value key) {
  Value column = kb.minSI(kb.divUI(key, kb.c32(cfg.pageSize)), kb.sub(args.maxPages, kb.c32(1)));
  Value entry = kb.add(kb.mul(kb.ext64(work.batch), args.tableStride), kb.ext64(column));
  Value page = LLVM::LoadOp::create(kb.b, kb.i32, kb.globalAt(args.blockTable, entry, kb.i32), 4);
  return {page, kb.remu(key, kb.c32(cfg.pageSize))};
}

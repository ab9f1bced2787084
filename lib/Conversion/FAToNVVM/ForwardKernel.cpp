//===- ForwardKernel.cpp - The warp-specialized FA3 forward, composed -----===//
//
// The kernel body: the barriers, the first work tile and its mask rule,
// then the producer (ForwardProducer.cpp) and the consumers
// (ForwardConsumer.cpp) on warpgroup 0 and the others. ForwardKernel.h
// lists the parts.
//
//===----------------------------------------------------------------------===//
#include "ForwardKernel.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

void ForwardKernel::emit() {
  seqQ = args.seqQ;
  seqK = args.seqK;
  if (cfg.hasDynamicScheduler())
    bindTileHandover();
  // A ragged batch's sequence first (its lengths may go to shared memory
  // with the barriers); a persistent CTA's tiles find theirs in forEachTile.
  if (cfg.varlen && !scheduler->isPersistent())
    beginTile(scheduler->currentTile(kb, schedulerArgs), Value());
  // One thread initialises every barrier; the CTA barrier publishes them.
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0)), [&] {
    mbarrierInit(kb, qBarrier(), 1);
    TmaPipeline::initAll({&kPipe, &vPipe});
    if (cfg.isPersistent())
      mbarrierInit(kb, qEmptyBarrier(), 128 * cfg.consumers);
    if (cfg.hasDynamicScheduler()) {
      mbarrierInit(kb, schedulerArgs.tileFull, 1);
      mbarrierInit(kb, schedulerArgs.tileEmpty, 128 * cfg.consumers);
    }
    if (cfg.stashesLengths())
      storeStash();
    fenceMbarrierInit(kb);
  });
  NVVM::Barrier0Op::create(kb.b);

  // One rule for the whole kernel: the producer's and the consumers' key
  // tiles and the consumers' fragment masks (a ragged batch's: above, or
  // per tile).
  if (cfg.keyLengths) {
    // The rule needs this batch's key count: the tile first.
    WorkTile tile = scheduler->currentTile(kb, schedulerArgs);
    seqK = LLVM::LoadOp::create(kb.b, kb.i32,
                                kb.globalAt(args.keyLengths, kb.ext64(tile.batch), kb.i32), 4);
    if (cfg.append)
      seqK = kb.add(seqK, args.seqNew);
    rule.emplace(kb, cfg.semantics, args.seqQ, seqK);
    beginTile(tile, Value());
  } else if (!cfg.varlen) {
    rule.emplace(kb, cfg.semantics, args.seqQ, seqK);
    if (!scheduler->isPersistent())
      beginTile(scheduler->currentTile(kb, schedulerArgs), Value());
  }

  Value wg = kb.shru(tid, kb.c32(7));
  kb.ifThenElse(
      kb.cmp(arith::CmpIPredicate::eq, wg, kb.c32(0)), [&] { emitProducer(); },
      [&] { emitConsumer(); });
}

void ForwardKernel::bindTileHandover() {
  schedulerArgs.tileCounter = args.tileCounter;
  schedulerArgs.tileSlot = kb.sharedAt(base, smem.scheduler.tileSlot.offset);
  schedulerArgs.tileFull = kb.sharedAt(base, smem.scheduler.handoverBarriers.barrier(0));
  schedulerArgs.tileEmpty = kb.sharedAt(base, smem.scheduler.handoverBarriers.barrier(1));
}

ForwardShared ForwardShared::plan(const AttentionKernelConfig &cfg,
                                  const TileScheduler &scheduler) {
  ForwardShared s;
  s.mainloop = MainloopShared::reserve(s.layout, cfg);
  s.scheduler = scheduler.reserveShared(s.layout);
  s.stash = ForwardKernel::reserveStash(s.layout, cfg);
  return s;
}

ForwardShared ForwardShared::plan(const AttentionKernelConfig &cfg) {
  return plan(cfg, *TileScheduler::forConfig(cfg));
}

LLVM::LLVMFuncOp mlir::fa::nvvm_kernel::buildAttentionKernel(OpBuilder &builder, Location loc,
                                                             Block &moduleBody,
                                                             const AttentionKernelConfig &cfg) {
  std::string name = cfg.attentionKernelName();
  KernelArgs unbound;
  LLVM::LLVMFuncOp kernel;
  buildKernelFunction(builder, loc, moduleBody, name, forwardSignature(cfg, unbound),
                      cfg.threads(), /*sharedMemory=*/true, /*noAliasPointers=*/true,
                      [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) {
                        kernel = fn;
                        ForwardKernel(kb, cfg, fn, name + "_smem").emit();
                      });
  return kernel;
}

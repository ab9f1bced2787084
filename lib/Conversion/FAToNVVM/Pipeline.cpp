//===- Pipeline.cpp - A ring of TMA-filled shared memory slots ------------===//
//
// Barrier protocol proven on the H200 (test/Device/primitives,
// warp_specialized): the producer waits on the empty barrier with the
// opposite parity (a fresh barrier counts as completed phase "-1"), arms the
// full barrier with the bytes of the whole box (zero-filled parts included);
// consumers wait on the full barrier with the iteration's parity.
//
//===----------------------------------------------------------------------===//
#include "KernelParts.h"

using namespace mlir;
using namespace mlir::fa::nvvm_kernel;

TmaPipeline::TmaPipeline(KernelBuilder &kb, Value smemBase, int64_t slotOffset,
                         int64_t slotBytes, int64_t fullBarriers, int64_t emptyBarriers,
                         int64_t stages, int64_t consumers)
    : kb(kb), base(smemBase), slotOffset(slotOffset), slotBytes(slotBytes),
      fullBarriers(fullBarriers), emptyBarriers(emptyBarriers), stages(stages),
      consumers(consumers) {}

Value TmaPipeline::stage(Value t) { return kb.remu(t, kb.c32(stages)); }
Value TmaPipeline::parity(Value t) { return kb.andi(kb.divu(t, kb.c32(stages)), kb.c32(1)); }

Value TmaPipeline::barrier(int64_t which, Value s) {
  Value first = kb.c32(which == 0 ? fullBarriers : emptyBarriers);
  return kb.sharedAt(base, kb.add(first, kb.mul(s, kb.c32(8))));
}

void TmaPipeline::init() {
  for (int64_t s = 0; s < stages; ++s) {
    mbarrierInit(kb, barrier(0, kb.c32(s)), 1);
    mbarrierInit(kb, barrier(1, kb.c32(s)), consumers);
  }
}

Value TmaPipeline::slot(Value t) {
  return kb.sharedAt(base, kb.add(kb.c32(slotOffset), kb.mul(stage(t), kb.c32(slotBytes))));
}

Value TmaPipeline::acquire(Value t, int64_t bytes) {
  Value s = stage(t);
  mbarrierWait(kb, barrier(1, s), kb.xori(parity(t), kb.c32(1)));
  Value full = barrier(0, s);
  mbarrierArriveExpectTx(kb, full, bytes);
  return full;
}

void TmaPipeline::wait(Value t) { mbarrierWait(kb, barrier(0, stage(t)), parity(t)); }
void TmaPipeline::release(Value t) { mbarrierArrive(kb, barrier(1, stage(t))); }

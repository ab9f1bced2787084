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

Value TmaPipeline::ringIteration(Value t) {
  return iterationBase ? kb.add(iterationBase, t) : t;
}
Value TmaPipeline::stage(Value t) { return kb.remu(ringIteration(t), kb.c32(stages)); }
Value TmaPipeline::parity(Value t) {
  return kb.andi(kb.divUI(ringIteration(t), kb.c32(stages)), kb.c32(1));
}

Value TmaPipeline::barrier(int64_t which, Value s) {
  Value first = kb.c32(which == 0 ? fullBarriers : emptyBarriers);
  return kb.sharedAt(base, kb.add(first, kb.mul(s, kb.c32(8))));
}

void TmaPipeline::initAll(ArrayRef<TmaPipeline *> pipes) {
  KernelBuilder &kb = pipes.front()->kb;
  assert(llvm::all_of(pipes, [&](TmaPipeline *p) { return p->stages == pipes.front()->stages; }) &&
         "pipes of different depths");
  for (int64_t s = 0; s < pipes.front()->stages; ++s) {
    Value sv = kb.c32(s);
    for (TmaPipeline *p : pipes)
      mbarrierInit(kb, p->barrier(0, sv), 1);
    for (TmaPipeline *p : pipes)
      mbarrierInit(kb, p->barrier(1, sv), p->consumers);
  }
}

Value TmaPipeline::slot(Value t) {
  return kb.sharedAt(base, kb.add(kb.c32(slotOffset), kb.mul(stage(t), kb.c32(slotBytes))));
}

Value TmaPipeline::acquire(Value t, int64_t bytes) {
  Value s = stage(t), ph = parity(t);
  mbarrierWait(kb, barrier(1, s), kb.xori(ph, kb.c32(1)));
  Value full = barrier(0, s);
  mbarrierArriveExpectTx(kb, full, bytes);
  return full;
}

void TmaPipeline::wait(Value t) { mbarrierWait(kb, barrier(0, stage(t)), parity(t)); }
void TmaPipeline::release(Value t) { mbarrierArrive(kb, barrier(1, stage(t))); }

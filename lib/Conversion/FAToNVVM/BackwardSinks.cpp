//===- BackwardSinks.cpp - The gradient of attention sinks ----------------===//
//
// With sinks, the sink has no value row, so dQ, dK and dV are those of the
// keys (P recomputed from the LSE, which includes the sink), and
//
//   dSinks[h] = - sum over (b, q) of exp(sink[h] - LSE[b, h, q]) * D[b, h, q]
//
// (docs/Modifiers.md, "Attention sinks"), summed in two fixed-order steps:
//
//   pre     the backward's pre-kernel, which has D and reads the LSE: each
//           warp adds its 8 rows' terms into one partial of the workspace
//           dsinks_partial [batch, heads_q, ceildiv(seq_q, 64) x 8]
//   dsinks  one CTA per query head adds that head's partials and writes
//           grad_sinks[h]
//
// No atomics: the order of every addition is the same at each launch, so
// the deterministic backward stays bitwise reproducible, and every partial
// is written, so the workspace needs no zeroing.
//
//===----------------------------------------------------------------------===//
#include "BackwardSignature.h"

#include <limits>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

namespace {

constexpr double kLog2E = 1.4426950408889634;
constexpr int64_t kWarps = BackwardKernelConfig::kAuxThreads / 32;
/// Partials per pre-kernel CTA: one per warp (8 rows each).
constexpr int64_t kPartialsPerBlock = BackwardKernelConfig::kRowTile / 8;
static_assert(kPartialsPerBlock == kWarps, "a warp of the pre-kernel holds 8 rows");

Value shuffleXorF32(KernelBuilder &kb, Value v, int64_t offset) {
  return NVVM::ShflOp::create(kb.b, kb.f32, kb.c32(-1), v, kb.c32(offset), kb.c32(0x1f),
                              NVVM::ShflKind::bfly, UnitAttr());
}

/// The sum over the lanes of a warp whose quads hold equal values (lane
/// offsets 4, 8, 16): the sum of its 8 quads.
Value sumOverQuads(KernelBuilder &kb, Value v) {
  for (int64_t offset : {4, 8, 16})
    v = kb.fadd(v, shuffleXorF32(kb, v, offset));
  return v;
}

/// The sum over all 32 lanes of a warp, the same tree in every lane.
Value sumOverWarp(KernelBuilder &kb, Value v) {
  for (int64_t offset : {1, 2})
    v = kb.fadd(v, shuffleXorF32(kb, v, offset));
  return sumOverQuads(kb, v);
}

} // namespace

void mlir::fa::nvvm_kernel::emitSinkGradPartial(KernelBuilder &kb, const BackwardRowArgs &a,
                                                const SinkGradRow &row) {
  Value negInf = kb.cf32(-std::numeric_limits<double>::infinity());
  Value sink2 = kb.fmul(
      LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(a.sinks, kb.ext64(row.head), kb.f32), 4),
      kb.cf32(kLog2E));
  // -exp(sink - LSE) D of the thread's row (its quad has equal values); 0
  // past seq_q and where the LSE is -inf (a sink of -inf on a row without
  // keys: no probability anywhere).
  SmallVector<Value> term = kb.ifThenElseValues(
      row.valid, {kb.f32},
      [&]() -> SmallVector<Value> {
        Value at = a.lse.rowOffset(kb, row.batch, row.head, row.row);
        Value lse = LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(a.lse.ptr, at, kb.f32), 4);
        Value none = kb.fcmp(arith::CmpFPredicate::OEQ, lse, negInf);
        Value lse2 = kb.fmul(lse, kb.cf32(kLog2E));
        Value share = kb.exp2(arith::SubFOp::create(kb.b, sink2, lse2));
        Value t = kb.fmul(share, row.softmaxD);
        return {kb.select(none, kb.cf32(0.0), arith::NegFOp::create(kb.b, t).getResult())};
      },
      [&]() -> SmallVector<Value> { return {kb.cf32(0.0)}; });
  Value warpSum = sumOverQuads(kb, term[0]);
  Value tid = kb.threadIdX();
  Value warp = kb.shru(tid, kb.c32(5));
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, kb.andi(tid, kb.c32(31)), kb.c32(0)), [&] {
    // [batch, heads_q, blocks x 8]: the CTA's block is blockIdx.x.
    Value plane = kb.add(kb.mul(row.batch, row.numHeads), row.head);
    Value blocks = kb.gridDimX();
    Value at =
        kb.add(kb.mul(kb.add(kb.mul(kb.ext64(plane), kb.ext64(blocks)), kb.ext64(kb.blockIdX())),
                      kb.c64(kPartialsPerBlock)),
               kb.ext64(warp));
    LLVM::StoreOp::create(kb.b, warpSum, kb.globalAt(a.sinksPartial, at, kb.f32), 4);
  });
}

KernelSignature mlir::fa::nvvm_kernel::backwardSinkGradSignature(SinkGradArgs &a) {
  KernelSignature sig;
  sig.ptr(&a.partial, "dsinks_partial");
  sig.ptr(&a.gradSinks, "grad_sinks");
  sig.i32(&a.batch, sym::Batch);
  sig.i32(&a.seqQ, sym::SeqQ);
  return sig;
}

/// One CTA per query head (blockIdx.x): its threads stride over the head's
/// partials, batch by batch, four loads in flight, then a warp tree and the
/// eight warps' sums in order through shared memory.
static void emitSinkGradKernel(KernelBuilder &kb, const SinkGradArgs &a,
                               const BackwardKernelConfig &cfg, StringRef smem) {
  constexpr int64_t kUnroll = 4, kThreads = BackwardKernelConfig::kAuxThreads;
  Value head = kb.blockIdX(), numHeads = kb.gridDimX(), tid = kb.threadIdX();
  Value blocks = workspaceRowTiles(kb, a.seqQ, cfg);
  Value perPlane = kb.mul(blocks, kb.c32(kPartialsPerBlock));
  Value perStep = kb.c32(kUnroll * kThreads);
  Value steps = kb.divUI(kb.add(perPlane, kb.c32(kUnroll * kThreads - 1)), perStep);
  SmallVector<Value> acc =
      kb.forLoop(kb.c32(0), a.batch, {kb.cf32(0.0)}, [&](Value b, ValueRange outer) {
        Value plane = kb.mul(kb.add(kb.mul(kb.ext64(b), kb.ext64(numHeads)), kb.ext64(head)),
                             kb.ext64(perPlane));
        return kb.forLoop(kb.c32(0), steps, outer, [&](Value step, ValueRange inner) {
          SmallVector<std::pair<Value, Value>> loads; // (value, in range)
          for (int64_t u = 0; u < kUnroll; ++u) {
            Value k = kb.add(kb.mul(step, perStep), kb.add(kb.c32(u * kThreads), tid));
            Value in = kb.cmp(arith::CmpIPredicate::slt, k, perPlane);
            Value at = kb.add(plane, kb.ext64(kb.select(in, k, kb.c32(0))));
            loads.push_back(
                {LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(a.partial, at, kb.f32), 4), in});
          }
          Value sum = inner[0];
          for (auto [v, in] : loads)
            sum = kb.fadd(sum, kb.select(in, v, kb.cf32(0.0)));
          return SmallVector<Value>{sum};
        });
      });
  Value warpSum = sumOverWarp(kb, acc[0]);
  Value base = kb.alignedSharedBase(smem);
  Value warp = kb.shru(tid, kb.c32(5));
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, kb.andi(tid, kb.c32(31)), kb.c32(0)), [&] {
    LLVM::StoreOp::create(kb.b, warpSum, kb.sharedAt(base, kb.mul(warp, kb.c32(4))), 4);
  });
  NVVM::Barrier0Op::create(kb.b);
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, tid, kb.c32(0)), [&] {
    Value total = kb.cf32(0.0);
    for (int64_t w = 0; w < kWarps; ++w)
      total = kb.fadd(total, LLVM::LoadOp::create(kb.b, kb.f32, kb.sharedAt(base, 4 * w), 4));
    LLVM::StoreOp::create(kb.b, total, kb.globalAt(a.gradSinks, kb.ext64(head), kb.f32), 4);
  });
}

void mlir::fa::nvvm_kernel::buildBackwardSinkGradKernel(OpBuilder &builder, Location loc,
                                                        Block &moduleBody,
                                                        const BackwardKernelConfig &cfg) {
  std::string name = cfg.name() + "_dsinks";
  SinkGradArgs unbound;
  buildKernelFunction(builder, loc, moduleBody, name, backwardSinkGradSignature(unbound),
                      BackwardKernelConfig::kAuxThreads, /*sharedMemory=*/true,
                      /*noAliasPointers=*/false, [&](KernelBuilder &kb, LLVM::LLVMFuncOp fn) {
                        SinkGradArgs args;
                        backwardSinkGradSignature(args).bind(fn);
                        emitSinkGradKernel(kb, args, cfg, name + "_smem");
                      });
}

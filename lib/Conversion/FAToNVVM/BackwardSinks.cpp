//===- BackwardSinks.cpp - The gradient of attention sinks ----------------===//
//
// With sinks, the sink has no value row, so dQ, dK and dV are those of the
// keys (P recomputed from the LSE, which includes the sink), and
//
//   dSinks[h] = - sum over (b, q) of exp(sink[h] - LSE[b, h, q]) * D[b, h, q]
//
// (docs/Modifiers.md, "Attention sinks"). D here is sum_j P[q, j] dP[q, j]
// from the main kernel's fp32 products, not the pre-kernel's rowsum(dO * O):
// that one reads the output rounded to bf16/f16, whose error summed over
// every row of a head exceeded twice the plain low-precision
// implementation's (stage 13, causal d128 1000 x 1000). Summed in two
// fixed-order steps:
//
//   main    after each query step, each consumer warp adds its fragment's
//           terms into its own partial of the workspace dsinks_partial
//           [batch, heads_q, ceildiv(seq_k, 128) x 8] (zeroed by the
//           runtime; a CTA without query steps leaves its partials 0)
//   dsinks  one CTA per query head adds that head's partials and writes
//           grad_sinks[h]
//
// No atomics: one lane owns each partial and the order of every addition
// is the same at each launch, so the deterministic backward stays bitwise
// reproducible.
//
//===----------------------------------------------------------------------===//
#include "BackwardSignature.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

namespace {

constexpr double kLog2E = 1.4426950408889634;
constexpr int64_t kWarps = BackwardKernelConfig::kAuxThreads / 32;
static_assert(kSinkPartialsPerBlock == BackwardKernelConfig::kThreads / 32 - 4,
              "one dSinks partial per consumer warp of the main kernel");

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

void mlir::fa::nvvm_kernel::addSinkGradStep(
    KernelBuilder &kb, const SinkGradStep &st,
    llvm::function_ref<std::array<Value, 2>(int64_t)> lse2) {
  Value sink2 = kb.fmul(
      LLVM::LoadOp::create(kb.b, kb.f32, kb.globalAt(st.sinks, kb.ext64(st.head), kb.f32), 4),
      kb.cf32(kLog2E));
  // -exp(sink - LSE_q) P_qj dP_qj over the thread's fragment, the weight
  // once per column (registers 4 j + e and 4 j + 2 + e share it). An LSE of
  // +inf (rows past seq_q, rows without any probability) gives weight 0.
  Value term = kb.cf32(0.0);
  for (size_t i = 0; i < st.p.size(); i += 4) {
    std::array<Value, 2> columns = lse2(static_cast<int64_t>(i / 4));
    for (size_t e = 0; e < 2; ++e) {
      Value share = kb.exp2(arith::SubFOp::create(kb.b, sink2, columns[e]));
      Value both = kb.fma(st.p[i + 2 + e], st.dp[i + 2 + e], kb.fmul(st.p[i + e], st.dp[i + e]));
      term = kb.fma(share, both, term);
    }
  }
  Value warpSum = sumOverWarp(kb, term);
  // Lane 0 alone owns the warp's partial: read, add, write, in step order.
  kb.ifThen(kb.cmp(arith::CmpIPredicate::eq, st.lane, kb.c32(0)), [&] {
    Value at = kb.globalAt(st.partial, st.slot, kb.f32);
    Value old = LLVM::LoadOp::create(kb.b, kb.f32, at, 4);
    LLVM::StoreOp::create(kb.b, arith::SubFOp::create(kb.b, old, warpSum), at, 4);
  });
}

KernelSignature mlir::fa::nvvm_kernel::backwardSinkGradSignature(SinkGradArgs &a) {
  KernelSignature sig;
  sig.ptr(&a.partial, "dsinks_partial");
  sig.ptr(&a.gradSinks, "grad_sinks");
  sig.i32(&a.batch, sym::Batch);
  sig.i32(&a.seqK, sym::SeqK);
  return sig;
}

int64_t mlir::fa::nvvm_kernel::sinkGradSharedBytes() {
  SharedLayout layout;
  layout.reserve("dsinks", "warp sums", 4 * kWarps, 4);
  return layout.requestBytes();
}

/// One CTA per query head (blockIdx.x): its threads stride over the head's
/// partials, batch by batch, four loads in flight, then a warp tree and the
/// eight warps' sums in order through shared memory.
static void emitSinkGradKernel(KernelBuilder &kb, const SinkGradArgs &a, StringRef smem) {
  constexpr int64_t kUnroll = 4, kThreads = BackwardKernelConfig::kAuxThreads;
  Value head = kb.blockIdX(), numHeads = kb.gridDimX(), tid = kb.threadIdX();
  Value blocks = kb.divUI(kb.add(a.seqK, kb.c32(BackwardKernelConfig::kBlockN - 1)),
                          kb.c32(BackwardKernelConfig::kBlockN));
  Value perPlane = kb.mul(blocks, kb.c32(kSinkPartialsPerBlock));
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
                        emitSinkGradKernel(kb, args, name + "_smem");
                      });
}

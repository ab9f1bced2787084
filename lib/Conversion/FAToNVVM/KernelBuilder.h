//===- KernelBuilder.h - Building sm_90a kernels from llvm/nvvm ops -*- C++ -*-===//
//
// Small helpers shared by the attention kernel emitter, grouped by concern:
// scalars and control flow (KernelBuilder.cpp), TMA and mbarriers (TMA.cpp),
// wgmma (WGMMA.cpp), the online softmax (Softmax.cpp) and the epilogue
// (Epilogue.cpp). Every helper emits exactly the op sequence proven on the
// H200 by test/Device/primitives (see docs/HopperKernel.md).
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_KERNELBUILDER_H
#define FA_LIB_CONVERSION_FATONVVM_KERNELBUILDER_H

#include "fa/Dialect/FA/Transforms/ScalarBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>
#include <string>

namespace mlir::fa::nvvm_kernel {

/// Element types of the operands a kernel reads: 16-bit, or FP8 e4m3
/// (k32 wgmma steps; K-major operands only).
enum class ElemType { BF16, F16, E4M3 };
inline int64_t elemBytes(ElemType e) { return e == ElemType::E4M3 ? 1 : 2; }

/// The shared ScalarBuilder on i32 (what the semantic layer emits into),
/// plus shared memory pointers, special registers and structured control flow.
class KernelBuilder : public ScalarBuilder {
public:
  explicit KernelBuilder(ImplicitLocOpBuilder &b);

  Type i1, i16, i32, i64, f32;
  Type ptrTy;     // generic
  Type smemPtrTy; // addrspace(3)

  // Scalars.
  Value c32(int64_t v) { return constant(v); }
  Value c64(int64_t v);
  Value cf32(double v) { return constantF32(v); }
  Value remu(Value a, Value c);
  Value andi(Value a, Value c);
  Value ori(Value a, Value c);
  Value xori(Value a, Value c);
  Value shru(Value a, Value c);
  Value shl(Value a, Value c);
  Value ext64(Value v); // sign-extend i32 -> i64
  Value fadd(Value a, Value c);
  Value fmul(Value a, Value c);
  Value fmax(Value a, Value c);
  Value fma(Value a, Value x, Value c);
  Value fcmp(arith::CmpFPredicate p, Value a, Value c);
  /// ex2.approx.ftz.f32 through the NVVM intrinsic.
  Value exp2(Value x);
  /// tanh.approx.f32 (the softcap; FlashAttention-3 uses the same).
  Value tanh(Value x);
  Value log2(Value x);
  Value rcp(Value x);

  // Special registers.
  Value threadIdX();
  Value blockIdX();
  Value blockIdY();
  Value blockIdZ();
  Value gridDimX();
  Value gridDimY();
  Value gridDimZ();
  Value laneId();

  // Shared memory.
  /// The dynamic shared memory base rounded up to 1024 B at run time (128B
  /// swizzle atoms are 1024 B and the swizzle phase comes from address bits).
  Value alignedSharedBase(StringRef symbol);
  Value sharedAt(Value base, int64_t offset);
  Value sharedAt(Value base, Value offset); // i32 offset
  Value sharedAddress64(Value ptr);         // ptrtoint i64
  Value sharedAddress32(Value ptr);         // ptrtoint i32 (a .shared address)

  // Global memory.
  Value globalAt(Value base, Value index, Type elemType); // i64 index

  // Control flow. Bodies are invoked with the builder positioned inside.
  void ifThen(Value cond, const std::function<void()> &thenBody);
  void ifThenElse(Value cond, const std::function<void()> &thenBody,
                  const std::function<void()> &elseBody);
  SmallVector<Value> ifThenElseValues(
      Value cond, TypeRange types,
      const std::function<SmallVector<Value>()> &thenBody,
      const std::function<SmallVector<Value>()> &elseBody);
  /// scf.for over i32 [lb, ub) step 1 carrying `inits`.
  SmallVector<Value>
  forLoop(Value lb, Value ub, ValueRange inits,
          const std::function<SmallVector<Value>(Value iv, ValueRange args)> &body);
  /// scf.while carrying `inits`: `body` runs while `cond` (i1) holds.
  SmallVector<Value> whileLoop(ValueRange inits, const std::function<Value(ValueRange)> &cond,
                               const std::function<SmallVector<Value>(ValueRange)> &body);
};

//===----------------------------------------------------------------------===//
// TMA and mbarriers (TMA.cpp)
//===----------------------------------------------------------------------===//

void mbarrierInit(KernelBuilder &kb, Value bar, int64_t count);
void fenceMbarrierInit(KernelBuilder &kb);
/// Arrive once and expect `bytes` of transactions on the barrier.
void mbarrierArriveExpectTx(KernelBuilder &kb, Value bar, int64_t bytes);
void mbarrierArrive(KernelBuilder &kb, Value bar);
/// Spin until the phase of parity `parity` (i32 0/1) has completed.
void mbarrierWait(KernelBuilder &kb, Value bar, Value parity);
/// cp.async.bulk.tensor of one box at `coords` into shared `dst` (a
/// shared pointer, or a shared::cluster one from sharedAsCluster),
/// completing on `bar`. `tensorMap` is a grid-constant parameter.
void tmaLoad(KernelBuilder &kb, Value dst, Value tensorMap, Value bar, ValueRange coords);
/// The CTA's own shared pointer `p` as a shared::cluster pointer by its
/// value (a .shared::cta address is the executing CTA's .shared::cluster
/// address). Unlike the addrspacecast tmaLoad makes (cvta.shared, then
/// cvta.to.shared::cluster), ptxas sees base + offset, which it recomputes
/// where needed; the cast of a loop-invariant destination that LLVM hoists
/// out of a loop holds a register across it.
Value sharedAsCluster(KernelBuilder &kb, Value p);

//===----------------------------------------------------------------------===//
// wgmma (WGMMA.cpp)
//===----------------------------------------------------------------------===//

/// The 64-bit shared memory matrix descriptor with 128B swizzle:
/// start address >> 4 (bits 0-13), LBO >> 4 (16-29), SBO >> 4 (32-45),
/// swizzle mode 1 = 128B (62-63).
Value wgmmaDescriptor(KernelBuilder &kb, Value smemPtr, int64_t lbo, int64_t sbo);
/// wgmmaDescriptor with the start address field computed in 32 bits behind
/// an opaque copy: LLVM would widen it back to bits 4-17 of the 64-bit
/// shared address (bfe.u64), which ptxas sums in 64 bits with a carry, a
/// register pair more where the consumers have none to spare.
Value wgmmaDescriptorNarrow(KernelBuilder &kb, Value smemPtr, int64_t lbo, int64_t sbo);
/// desc + bytes (the start address field is in units of 16 B).
Value wgmmaDescriptorAdd(KernelBuilder &kb, Value desc, int64_t bytes);
void wgmmaFence(KernelBuilder &kb);
void wgmmaCommit(KernelBuilder &kb);
void wgmmaWait(KernelBuilder &kb, int64_t pending);
/// acc = A B (+ acc): m64 x n x k16 (k32 for E4M3), A and B in shared
/// memory (SS). acc holds n/2 f32 values; `accumulate` false ignores the
/// incoming acc. E4M3 operands must be K-major (bMNMajor, aMNMajor false).
SmallVector<Value> wgmmaSS(KernelBuilder &kb, ValueRange acc, Value descA, Value descB, int64_t n,
                           bool accumulate, bool bMNMajor, ElemType elem, bool aMNMajor = false);
/// acc = A B + acc with A (4 x b32 of packed 16-bit pairs, or of e4m3
/// quads: packQuadE4M3) in registers (RS), emitted as inline PTX since
/// nvvm.wgmma.mma_async is SS only.
SmallVector<Value> wgmmaRS(KernelBuilder &kb, ValueRange acc, ValueRange aRegs, Value descB,
                           int64_t n, bool accumulate, bool bMNMajor, ElemType elem);
/// Two f32 -> one b32 holding two bf16/f16 (lo in bits 0-15).
Value packPair(KernelBuilder &kb, Value lo, Value hi, ElemType elem);
/// Four f32 -> one b32 of four e4m3 (v[0] in bits 0-7), rounded to nearest
/// and saturated to +-448 (cvt.rn.satfinite.e4m3x2.f32).
Value packQuadE4M3(KernelBuilder &kb, ArrayRef<Value> v);

/// Row and column of accumulator register i of an m64nN f32 fragment (checked
/// on the H200): row = 16 warp + lane/4 + 8 ((i >> 1) & 1),
/// col = 8 (i >> 2) + 2 (lane % 4) + (i & 1).
inline int64_t fragRowHalf(int64_t i) { return (i >> 1) & 1; }
inline int64_t fragColOffset(int64_t i) { return 8 * (i >> 2) + (i & 1); }

//===----------------------------------------------------------------------===//
// Memory access and synchronisation beyond TMA (Memory.cpp)
//===----------------------------------------------------------------------===//

/// PTX the nvvm dialect has no op for, as side-effecting inline assembly
/// (with a memory clobber unless `clobbersMemory` is false). `result` may be
/// null (no result).
Value inlinePtx(KernelBuilder &kb, Type result, ValueRange operands, StringRef ptx,
                StringRef constraints, bool clobbersMemory = true);
/// PTX computing `result` from `operands` alone (no side effects: LLVM may
/// move, merge or drop it like an arithmetic op).
Value pureInlinePtx(KernelBuilder &kb, Type result, ValueRange operands, StringRef ptx,
                    StringRef constraints);
/// stmatrix.sync.aligned.m8n8.x4.trans.shared.b16: four 8x8 16-bit matrices
/// held as accumulator-fragment pairs (`regs`, one b32 each) stored
/// transposed; lane l gives the address of row l % 8 of matrix l / 8.
void stmatrixX4Trans(KernelBuilder &kb, Value rowAddress, ValueRange regs);
/// fence.proxy.async.shared::cta: generic-proxy shared stores become visible
/// to wgmma (the async proxy).
void fenceProxyAsyncShared(KernelBuilder &kb);
/// red.global.add.v2.f32 at `ptr` (8-byte aligned).
void redAddF32x2(KernelBuilder &kb, Value ptr, Value lo, Value hi);
/// red.global.add.f32 of `v` at `ptr`, into memory this kernel never reads
/// back (so no memory clobber: the loads around it may move).
void redAddF32(KernelBuilder &kb, Value ptr, Value v);
/// cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32: adds `bytes`
/// (a multiple of 16) of f32 at shared `src` into global `dst`, both 16-byte
/// aligned; then cp.async.bulk.commit_group.
void bulkReduceAddF32(KernelBuilder &kb, Value dst, Value src, int64_t bytes);
/// cp.async.bulk.wait_group.read 0 (the sources may be overwritten) or
/// cp.async.bulk.wait_group 0 (the writes are done), for this thread's groups.
void bulkWaitRead(KernelBuilder &kb);
void bulkWaitDone(KernelBuilder &kb);
/// bar.sync / bar.arrive on named barrier `id` for `threads` threads.
void namedBarrierSync(KernelBuilder &kb, int64_t id, int64_t threads);
void namedBarrierSync(KernelBuilder &kb, Value id, int64_t threads);
void namedBarrierArrive(KernelBuilder &kb, int64_t id, int64_t threads);
/// Spins until the i32 at global `ptr` (read with acquire, gpu scope)
/// equals `expected`.
void spinUntilEqual(KernelBuilder &kb, Value ptr, Value expected);
/// A copy of the i64 or i32 `v` that LLVM cannot hoist out of a loop:
/// loop-invariant wgmma descriptors (plus their per-k-step offsets), or
/// the addresses computed from a thread index, otherwise stay live in
/// registers across the loop, which the backward's consumers cannot afford.
Value opaqueCopy(KernelBuilder &kb, Value v);
/// shfl.sync of the i32 `v` over the whole warp (every lane takes part):
/// from lane `lane` (idx), or `lane` lanes up (up).
Value warpShuffle(KernelBuilder &kb, Value v, Value lane, NVVM::ShflKind kind);
/// Whether `ptr` and every stride (in elements of `elemBytes` bytes) are
/// multiples of `bytes`: the runtime guarantees element alignment only, so
/// wider accesses are taken under this test.
Value stridesAligned(KernelBuilder &kb, Value ptr, ArrayRef<Value> strides, int64_t elemBytes,
                     int64_t bytes);
/// The i32 `v` of lane 0 (shfl.sync.idx): ptxas then knows it is the same
/// in every lane and keeps what derives from it in uniform registers (a
/// warpgroup's index: its wgmma descriptors are computed by the uniform
/// datapath instead of 64-bit adds and moves per wgmma in every thread).
Value warpUniform(KernelBuilder &kb, Value v);
/// fence.acq_rel.gpu.
void fenceGpu(KernelBuilder &kb);
/// red.release.gpu.global.add.s32 of `v` at `ptr`.
void releaseAdd(KernelBuilder &kb, Value ptr, Value v);

//===----------------------------------------------------------------------===//
// Online softmax (Softmax.cpp)
//===----------------------------------------------------------------------===//

/// Per-thread softmax state for the two rows a thread holds.
struct RowState {
  Value max[2]; // running max of raw scores (-inf at start; softmaxStepLog2Max: scaled)
  Value sum[2]; // this thread's partial running sum of exp2
};

/// Sets S to -inf outside columns [colLo[h], colHi[h]) of row half h (i32,
/// relative to the thread's first column).
void maskScores(KernelBuilder &kb, SmallVectorImpl<Value> &s, Value colLo[2], Value colHi[2]);
/// One online-softmax step on S (n/2 values): updates `state`, returns the
/// per-row rescale factor for O in `rescale`, and overwrites S with P (f32).
/// P = exp2(factor * (S - max)): `factor` is log2(e) * scale when S holds raw
/// q.k (Log2Score::linearFactor), 1 when S is already in the log2 domain.
/// `log2Shift`: P (and so the sums) are 2^log2Shift times that.
void softmaxStep(KernelBuilder &kb, SmallVectorImpl<Value> &s, RowState &state,
                 Value factor, Value rescale[2], bool first, int64_t log2Shift = 0);
/// softmaxStep with a factor per row half (> 0) that may change from step
/// to step (FP8 per-block descales): the running max is kept in the log2
/// domain, max(s * factor), so that steps with different factors compare.
void softmaxStepLog2Max(KernelBuilder &kb, SmallVectorImpl<Value> &s, RowState &state,
                        Value factor[2], Value rescale[2], bool first, int64_t log2Shift = 0);
/// Multiplies O fragments by the per-row factors.
void rescaleRows(KernelBuilder &kb, SmallVectorImpl<Value> &o, Value factor[2]);
/// Butterfly max/sum over the 4 lanes of a quad (they share rows).
Value quadReduceMax(KernelBuilder &kb, Value v);
Value quadReduceSum(KernelBuilder &kb, Value v);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_KERNELBUILDER_H

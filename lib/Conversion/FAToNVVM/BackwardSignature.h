//===- BackwardSignature.h - The backward main kernel's parameters -*- C++ -*-===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H
#define FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H

#include "BackwardBlockMap.h"
#include "BackwardParts.h"
#include "KernelSignature.h"
#include "RegionFragments.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <vector>

namespace mlir::fa::nvvm_kernel {

/// The main kernel's parameters as its code sees them (null where the
/// configuration has none).
struct BackwardMainArgs {
  Value tmQ, tmK, tmV, tmDO, tmLse2, tmD;
  Value dK, dKStride[3], dV, dVStride[3];
  Value dqAccum, semaphore; // semaphore only when deterministic
  BiasArgs bias;            // with a bias only, as one of the two below
  /// Where dBias goes: dbias_accum where the bias broadcasts (with
  /// dbias_semaphore, summed in turn, where cfg.biasGradInOrder(); the
  /// last turn writes grad_bias), else grad_bias itself (with its strides).
  Value dbiasAccum, dbiasSemaphore;
  BiasArgs gradBias;
  Value seqQ, seqK, group;
  /// Attention sinks [heads_q] and the dSinks partials (with sinks only).
  Value sinks, sinksPartial;
  /// A ragged batch (seq_q and seq_k are then the packed totals).
  Value cuSeqlensQ, cuSeqlensK, numSeqs;
  /// A block-sparse backward's map (BackwardBlockMap.h).
  BlockMapArgs map;
  /// score_mod/mask_mod's captures, one entry per capture (the forward's
  /// parameters, declared last).
  std::vector<CaptureArgs> captures;
};
/// The main kernel's parameters in order, declared once: its llvm.func,
/// its code's arguments (`args`) and its bundle's params come from it.
KernelSignature backwardMainSignature(const BackwardKernelConfig &cfg, BackwardMainArgs &args);

/// A pointer and its (batch, head, row) strides (i64, in elements).
struct StridedArgs {
  Value ptr, batch, head, row;

  Value rowOffset(KernelBuilder &kb, Value b, Value h, Value r) const {
    return stridedRowOffset(kb, b, h, r, batch, head, row);
  }
};
/// The row kernels' parameters (each kernel has some of them).
struct BackwardRowArgs {
  StridedArgs out, gradOut, lse; // pre
  Value lse2, softmaxD;          // pre: the workspace rows it writes
  Value accum;                   // pre (zeroed), post: dq_accum; dbias: dbias_accum
  StridedArgs grad;              // post: grad_query; dbias: grad_bias
  Value seqQ, seqK;              // seq_k: dbias only
  Value cuSeqlensQ, numSeqs;     // a ragged batch's pre and post
};
/// The pre, post and dbias kernels' parameters in order, declared once.
KernelSignature backwardPreSignature(BackwardRowArgs &args, bool varlen = false);
KernelSignature backwardPostSignature(BackwardRowArgs &args, bool varlen = false);
KernelSignature backwardBiasGradSignature(BackwardRowArgs &args);

/// dSinks partials per key block of the main kernel: one per consumer warp
/// (two warpgroups of four).
constexpr int64_t kSinkPartialsPerBlock = 8;
/// One query step of a main-kernel consumer warp, as the sinks' gradient
/// needs it: P^T and dP^T of the thread's fragment (registers 4 j + 2 h + e:
/// column 8 j + e for rows h = 0, 1); `slot` the warp's partial in
/// dsinks_partial (i64).
struct SinkGradStep {
  Value sinks, partial, head, slot, lane;
  ArrayRef<Value> p, dp;
};
/// In the main kernel with sinks, by every consumer thread after a query
/// step: the warp's share of dSinks added into its own partial
/// (BackwardSinks.cpp). `lse2(j)` loads the LSE (log2) of columns 8 j + e.
void addSinkGradStep(KernelBuilder &kb, const SinkGradStep &step,
                     llvm::function_ref<std::array<Value, 2>(int64_t)> lse2);
/// The dsinks kernel's parameters: the partials, grad_sinks [heads_q] and
/// the sizes that say how many partials a head has.
struct SinkGradArgs {
  Value partial, gradSinks, batch, seqK;
};
KernelSignature backwardSinkGradSignature(SinkGradArgs &args);
/// The dsinks kernel's dynamic shared memory: its warps' sums
/// (SharedLayout, with the alignment slack).
int64_t sinkGradSharedBytes();

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H

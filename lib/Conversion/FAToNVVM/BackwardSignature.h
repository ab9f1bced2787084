//===- BackwardSignature.h - The backward main kernel's parameters -*- C++ -*-===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H
#define FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H

#include "BackwardBlockMap.h"
#include "BackwardParts.h"
#include "KernelSignature.h"
#include "RegionFragments.h"

#include <vector>

namespace mlir::fa::nvvm_kernel {

/// The main kernel's parameters as its code sees them (null where the
/// configuration has none).
struct BackwardMainArgs {
  Value tmQ, tmK, tmV, tmDO, tmLse2, tmD;
  Value dK, dKStride[3], dV, dVStride[3];
  Value dqAccum, semaphore; // semaphore only when deterministic
  BiasArgs bias;            // with a bias only, as one of the two below
  /// Where dBias goes: dbias_accum where the bias broadcasts, else
  /// grad_bias itself (with its strides).
  Value dbiasAccum;
  BiasArgs gradBias;
  Value seqQ, seqK, group;
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
  Value accum;                   // post: dq_accum; dbias: dbias_accum
  StridedArgs grad;              // post: grad_query; dbias: grad_bias
  Value seqQ, seqK;              // seq_k: dbias only
  Value cuSeqlensQ, numSeqs;     // a ragged batch's pre and post
  Value sinks, sinksPartial;     // pre with sinks (BackwardSinks.cpp)
};
/// The pre, post and dbias kernels' parameters in order, declared once.
KernelSignature backwardPreSignature(BackwardRowArgs &args, bool varlen = false,
                                     bool sinks = false);
KernelSignature backwardPostSignature(BackwardRowArgs &args, bool varlen = false);
KernelSignature backwardBiasGradSignature(BackwardRowArgs &args);

/// A pre-kernel thread's row, as the sinks' gradient needs it (i32; `valid`
/// whether it is below seq_q; `softmaxD` its D, equal in the row's quad).
struct SinkGradRow {
  Value batch, head, numHeads, row, valid, softmaxD;
};
/// In the pre-kernel with sinks, by every thread: each warp's partial of
/// dSinks (its 8 rows) into dsinks_partial (BackwardSinks.cpp).
void emitSinkGradPartial(KernelBuilder &kb, const BackwardRowArgs &a, const SinkGradRow &row);
/// The dsinks kernel's parameters: the partials, grad_sinks [heads_q] and
/// the sizes that say how many partials a head has.
struct SinkGradArgs {
  Value partial, gradSinks, batch, seqQ;
};
KernelSignature backwardSinkGradSignature(SinkGradArgs &args);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H

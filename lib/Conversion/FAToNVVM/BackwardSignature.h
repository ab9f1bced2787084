//===- BackwardSignature.h - The backward main kernel's parameters -*- C++ -*-===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H
#define FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H

#include "BackwardParts.h"
#include "KernelSignature.h"

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
};
/// The main kernel's parameters in order, declared once: its llvm.func,
/// its code's arguments (`args`) and its bundle's params come from it.
KernelSignature backwardMainSignature(const BackwardKernelConfig &cfg, BackwardMainArgs &args);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BACKWARDSIGNATURE_H

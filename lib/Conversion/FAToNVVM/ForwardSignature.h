//===- ForwardSignature.h - The forward kernel's parameters -*- C++ -*-===//
//
// The forward kernel's parameters, declared once (forwardSignature): the
// llvm.func (ForwardKernel.cpp), the kernel's variables (KernelArgs) and
// the bundle's `params` (ForwardBundle.cpp) all come from it.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_FORWARDSIGNATURE_H
#define FA_LIB_CONVERSION_FATONVVM_FORWARDSIGNATURE_H

#include "BlockMap.h"
#include "KernelParts.h"
#include "KernelSignature.h"
#include "RegionFragments.h"

#include <vector>

namespace mlir::fa::nvvm_kernel {

/// The forward kernel's parameters as its code sees them (null where the
/// configuration has none).
struct KernelArgs {
  Value tmQ, tmK, tmV, outPtr, lsePtr, seqQ, seqK, group;
  Value finalOut, finalLse;         // split-KV: O and LSE when there is one split
  Value numBlocks, numHeads, batch; // persistent kernels only
  Value numSplits;                  // split-KV only
  Value keyLengths;                 // per-batch key lengths only
  Value blockTable, maxPages, tableStride; // paged caches only
  Value seqNew;                            // append only: keys added to each length
  Value cuSeqlensQ, cuSeqlensK, numSeqs;   // ragged batches only
  Value tileCounter;                       // the dynamic scheduler's only
  Value qPtr, qStrideBatch, qStrideSeq, qStrideHead; // pack-GQA: Q by plain loads
  std::optional<BiasArgs> bias;
  Value sinks; // attention sinks [heads_q] f32 only
  /// FP8: the Q, K, V descales [batch, heads_kv] and their (batch, head)
  /// strides; per block [batch, heads, blocks] and (batch, head, block).
  Value descale[3], descaleStride[3][3];
  /// score_mod/mask_mod's captures, one entry per capture.
  std::vector<CaptureArgs> captures;
  /// Block-sparse kernels: the pre-kernel's map (BlockMap.h).
  BlockMapArgs blockMap;
};

/// The forward kernel's parameters in order, each bound to its member of
/// `args` (the tensor maps first, then pointers, strides and sizes).
KernelSignature forwardSignature(const AttentionKernelConfig &cfg, KernelArgs &args);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_FORWARDSIGNATURE_H

//===- RegionFragments.h - score_mod/mask_mod in the sm_90a kernels -*- C++ -*-===//
//
// The modifier regions (docs/Modifiers.md) are evaluated per accumulator
// element by the one evaluator of the semantic layer (Modifiers.cpp): this
// file is the GPU's side of it. A tensor capture is a kernel parameter (its
// pointer, one stride per dim and the sizes of the dynamic dims a region
// reads, declared in the kernel's signature; the
// bundle's `captures` tell the runtime its dtype and dims), read with global
// loads where the region extracts from it; a scalar capture must be a
// constant and is emitted as one; exp, exp2, log, log2 and tanh become the
// MUFU approximations the softmax uses. A fragment element's position
// (batch, query head, query row, key column) comes from FragmentScores'
// fragment -> (row, column) mapping.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_REGIONFRAGMENTS_H
#define FA_LIB_CONVERSION_FATONVVM_REGIONFRAGMENTS_H

#include "KernelSignature.h"
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir::fa::nvvm_kernel {

/// A tensor capture as the kernel sees it: its data and strides (elements,
/// i64), null for a scalar capture; and per dim, its size (i32) where a
/// region reads a dynamic one with tensor.dim, else null.
struct CaptureArgs {
  Value ptr;
  SmallVector<Value, 4> strides;
  SmallVector<Value, 4> sizes;
};

/// The bundle operand role of capture `i`: "capture<i>".
std::string captureRole(unsigned i);

/// Declares each tensor capture of `semantics` (a pointer, one stride per
/// dim, then the size of each dynamic dim a region reads with tensor.dim:
/// one kernel serves every size) in order; `out` gets one entry per capture.
void declareCaptureParams(KernelSignature &sig, const AttentionConfig &semantics,
                          std::vector<CaptureArgs> &out);

/// The bundle's "captures" (docs/BundleFormat.md): the role, dtype and dim
/// names of each tensor capture; empty without any.
llvm::json::Array captureBundleEntries(const AttentionConfig &semantics);

/// The kernel-name part of the regions, "_mod<hash of their text, the
/// captures' types and the constant scalar captures>", empty without them:
/// two ops with different regions never share a kernel.
std::string modifiersTag(const AttentionConfig &semantics);

/// Whether the sm_90a kernels can evaluate `semantics`' regions; else an
/// error on `op` naming the capture or op they cannot take.
LogicalResult checkKernelModifiers(Operation *op, const AttentionConfig &semantics);

/// The GPU's evaluation of a region: capture reads, transcendental math,
/// and `index` values in i32 (the positions it takes are i32).
class KernelModifiers : public ModifierTarget {
public:
  KernelModifiers(const AttentionConfig &semantics, ArrayRef<CaptureArgs> captures)
      : semantics(semantics), captures(captures) {}

  Value readCapture(ImplicitLocOpBuilder &b, unsigned capture, ValueRange indices,
                    Type elementType) override;
  Value captureDim(ImplicitLocOpBuilder &b, unsigned capture, Value dim) override;
  Value scalarCapture(ImplicitLocOpBuilder &b, unsigned capture) override;
  Value emitOp(ImplicitLocOpBuilder &b, Operation &op, ValueRange operands) override;

  /// `semantics` evaluated through `target`.
  static AttentionConfig withTarget(AttentionConfig semantics, ModifierTarget *target) {
    semantics.modifierTarget = target;
    return semantics;
  }

private:
  const AttentionConfig &semantics;
  ArrayRef<CaptureArgs> captures;
};

/// Whether a region reads a capture at an index that depends on the query
/// row (`key` false) or the key column (`key` true): a document id per
/// token, a bias table per distance. Such a position must stay inside the
/// operands (FragmentScores clamps it where the fragment runs past them);
/// a read per key is one load per score, which the tile plan budgets like a
/// bias tile's registers.
bool readsCaptureBy(const AttentionConfig &semantics, bool key);

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_REGIONFRAGMENTS_H

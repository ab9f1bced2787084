//===- BackwardConfig.cpp - The backward's name ---------------------------===//
#include "BackwardBlockMap.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::nvvm_kernel;

std::string BackwardKernelConfig::name() const {
  std::string n = llvm::formatv("fa_bwd_{0}_d{1}", elemName(), headDim);
  if (headDimV != headDim)
    n += llvm::formatv("v{0}", headDimV).str();
  n += bshd ? "_bshd" : "_bhsd";
  if (varlen)
    n += "_varlen";
  n += semanticsTag(semantics);
  if (bias) {
    n += std::string("_bias") + biasTypeName(*bias);
    if (biasBroadcasts())
      n += std::string("_bc") + (biasBroadcastBatch ? "b" : "") + (biasBroadcastHead ? "h" : "");
  }
  n += llvm::formatv("_m{0}n{1}s{2}", kBlockM, kBlockN, kStages).str();
  if (backwardBlockSparse(*this))
    n += "_bsparse";
  if (deterministic)
    n += "_det";
  return n + scaleTag(semantics, headDim);
}

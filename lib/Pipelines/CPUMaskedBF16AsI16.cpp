//===- CPUMaskedBF16AsI16.cpp - fa-cpu-masked-bf16-as-i16 -----------------===//
//
// Masked bf16 vector loads and stores as i16 ones (CPUPasses.td has the
// details).
//
//===----------------------------------------------------------------------===//
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FACPUMASKEDBF16ASI16
#include "fa/Pipelines/CPUPasses.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

/// vector<N x i16> for a vector<N x bf16>, null for any other type.
VectorType bitsType(Type type) {
  auto vec = dyn_cast<VectorType>(type);
  if (!vec || !vec.getElementType().isBF16())
    return nullptr;
  return vec.clone(IntegerType::get(type.getContext(), 16));
}

void loadBits(IRRewriter &rewriter, LLVM::MaskedLoadOp load) {
  VectorType bits = bitsType(load.getType());
  if (!bits)
    return;
  rewriter.setInsertionPoint(load);
  Value passThru = load.getPassThru();
  if (passThru)
    passThru = LLVM::BitcastOp::create(rewriter, load.getLoc(), bits, passThru);
  auto loaded = LLVM::MaskedLoadOp::create(
      rewriter, load.getLoc(), bits, load.getData(), load.getMask(), passThru,
      load.getAlignmentAttr(), load.getNontemporalAttr());
  rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(load, load.getType(), loaded);
}

void storeBits(IRRewriter &rewriter, LLVM::MaskedStoreOp store) {
  VectorType bits = bitsType(store.getValue().getType());
  if (!bits)
    return;
  rewriter.setInsertionPoint(store);
  Value value =
      LLVM::BitcastOp::create(rewriter, store.getLoc(), bits, store.getValue());
  rewriter.modifyOpInPlace(store,
                           [&] { store.getValueMutable().assign(value); });
}

struct CPUMaskedBF16AsI16
    : public fa::impl::FACPUMaskedBF16AsI16Base<CPUMaskedBF16AsI16> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op))
        loadBits(rewriter, load);
      else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op))
        storeBits(rewriter, store);
    });
  }
};

} // namespace

//===- CPUVectorizeBlocks.cpp - fa-cpu-vectorize-blocks -------------------===//
//
// Vectorizes the blocks fa-cpu-tile-blocks marked (CPUPasses.td has the
// details).
//
//===----------------------------------------------------------------------===//
#include "CPUBlocks.h"
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FACPUVECTORIZEBLOCKS
#include "fa/Pipelines/CPUPasses.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

/// Vectorizes one marked block at its block sizes, clamped to its static
/// extents (a whole small tile is vectorized without masks).
void vectorizeBlock(IRRewriter &rewriter, linalg::LinalgOp op) {
  SmallVector<int64_t> sizes(
      cast<DenseI64ArrayAttr>(op->getAttr(fa::kCPUBlockAttr)).asArrayRef());
  op->removeAttr(fa::kCPUBlockAttr);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.size() != sizes.size())
    return;
  for (auto [size, range] : llvm::zip_equal(sizes, ranges))
    if (!ShapedType::isDynamic(range) && range < size)
      size = range;
  // Explicitly not scalable: masks built from an empty list would be a
  // different (equal-looking) type from the ones the verifier expects.
  SmallVector<bool> scalable(sizes.size(), false);
  if (failed(linalg::vectorizeOpPrecondition(op, sizes, scalable)))
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vec =
      linalg::vectorize(rewriter, op, sizes, scalable);
  if (succeeded(vec))
    rewriter.replaceOp(op, vec->replacements);
}

/// A blocked contraction's reduction dim is 1: the vectorizer wraps the
/// (unit) multi_reduction in the block's mask, and canonicalization then
/// turns it into a select per multiply-add. Lanes that a vector.mask
/// without passthru masks off are undefined, and the block's accumulator
/// write is masked with the same rows and columns, so drop the mask.
void unmaskUnitReductions(IRRewriter &rewriter, Operation *root) {
  root->walk([&](vector::MaskOp mask) {
    auto red = dyn_cast_or_null<vector::MultiDimReductionOp>(
        mask.getMaskableOp());
    if (!red || mask.hasPassthru())
      return;
    auto srcType = red.getSourceVectorType();
    for (int64_t dim : red.getReductionDims())
      if (srcType.getDimSize(dim) != 1)
        return;
    rewriter.setInsertionPoint(mask);
    Operation *unmasked = rewriter.clone(*red);
    rewriter.replaceOp(mask, unmasked->getResults());
  });
}

struct CPUVectorizeBlocks
    : public fa::impl::FACPUVectorizeBlocksBase<CPUVectorizeBlocks> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> blocks;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(fa::kCPUBlockAttr))
        blocks.push_back(op);
    });
    for (linalg::LinalgOp op : blocks)
      vectorizeBlock(rewriter, op);
    unmaskUnitReductions(rewriter, getOperation());
  }
};

} // namespace

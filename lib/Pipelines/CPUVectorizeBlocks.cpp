//===- CPUVectorizeBlocks.cpp - fa-cpu-vectorize-blocks -------------------===//
//
// Vectorizes the blocks fa-cpu-tile-blocks marked (CPUPasses.td has the
// details).
//
//===----------------------------------------------------------------------===//
#include "CPUBlocks.h"
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// The arith::AtomicRMWKind that combines like `kind` on `elementType`
/// (arith knows its identity), or nullopt.
std::optional<arith::AtomicRMWKind> rmwKind(vector::CombiningKind kind,
                                            Type elementType) {
  using vector::CombiningKind;
  bool isFloat = isa<FloatType>(elementType);
  switch (kind) {
  case CombiningKind::ADD:
    return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  case CombiningKind::MUL:
    return isFloat ? arith::AtomicRMWKind::mulf : arith::AtomicRMWKind::muli;
  case CombiningKind::MAXIMUMF:
    return arith::AtomicRMWKind::maximumf;
  case CombiningKind::MAXNUMF:
    return arith::AtomicRMWKind::maxnumf;
  case CombiningKind::MINIMUMF:
    return arith::AtomicRMWKind::minimumf;
  case CombiningKind::MINNUMF:
    return arith::AtomicRMWKind::minnumf;
  case CombiningKind::MAXSI:
    return arith::AtomicRMWKind::maxs;
  case CombiningKind::MAXUI:
    return arith::AtomicRMWKind::maxu;
  case CombiningKind::MINSI:
    return arith::AtomicRMWKind::mins;
  case CombiningKind::MINUI:
    return arith::AtomicRMWKind::minu;
  case CombiningKind::AND:
    return arith::AtomicRMWKind::andi;
  case CombiningKind::OR:
    return arith::AtomicRMWKind::ori;
  case CombiningKind::XOR:
    return arith::AtomicRMWKind::xori;
  }
  return std::nullopt;
}

/// Replaces `mask { multi_reduction(src, acc) }` by an unmasked
/// multi_reduction of `select(mask, src, identity)`: masked-off lanes then
/// contribute the reduction's identity (-inf to a max, 0 to a sum).
/// Upstream's LLVM lowering of a masked max fills them with the smallest
/// negative denormal instead of -inf, so a tile-edge row whose values all
/// lay below it got a max of about 0 (and, with scores below -87.3, exp
/// underflowed to a sum of 0: O = 0, LSE = -inf). After peeling, the full
/// blocks' masks are all true and the select folds away.
void selectIdentityLanes(IRRewriter &rewriter, vector::MaskOp mask,
                         vector::MultiDimReductionOp red) {
  Type elementType = red.getSourceVectorType().getElementType();
  std::optional<arith::AtomicRMWKind> kind =
      rmwKind(red.getKind(), elementType);
  if (!kind)
    return;
  rewriter.setInsertionPoint(mask);
  Location loc = red.getLoc();
  TypedAttr identity =
      arith::getIdentityValueAttr(*kind, elementType, rewriter, loc);
  Value identities = arith::ConstantOp::create(
      rewriter, loc,
      SplatElementsAttr::get(red.getSourceVectorType(), identity));
  Value lanes = arith::SelectOp::create(rewriter, loc, mask.getMask(),
                                        red.getSource(), identities);
  auto unmasked = vector::MultiDimReductionOp::create(
      rewriter, loc, red.getKind(), lanes, red.getAcc(),
      red.getReductionDims());
  rewriter.replaceOp(mask, unmasked->getResults());
}

/// Removes the masks the vectorizer puts on multi_reductions. A blocked
/// contraction's reduction dim is 1: the vectorizer wraps the (unit)
/// multi_reduction in the block's mask, and canonicalization then turns it
/// into a select per multiply-add. Lanes that a vector.mask without passthru
/// masks off are undefined, and the block's accumulator write is masked with
/// the same rows and columns, so that mask is dropped. A reduction over a
/// longer dim (a row max or sum at a tile edge) combines lanes, so its
/// masked-off ones become the identity.
void unmaskReductions(IRRewriter &rewriter, Operation *root) {
  root->walk([&](vector::MaskOp mask) {
    auto red = dyn_cast_or_null<vector::MultiDimReductionOp>(
        mask.getMaskableOp());
    if (!red || mask.hasPassthru())
      return;
    auto srcType = red.getSourceVectorType();
    if (llvm::any_of(red.getReductionDims(), [&](int64_t dim) {
          return srcType.getDimSize(dim) != 1;
        })) {
      selectIdentityLanes(rewriter, mask, red);
      return;
    }
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
    unmaskReductions(rewriter, getOperation());
  }
};

} // namespace

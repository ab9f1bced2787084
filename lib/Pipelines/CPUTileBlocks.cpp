//===- CPUTileBlocks.cpp - fa-cpu-tile-blocks -----------------------------===//
//
// Tiles fa-tile-attention's tile-level linalg ops into register-sized blocks
// and marks them for fa-cpu-vectorize-blocks (CPUPasses.td has the details).
//
//===----------------------------------------------------------------------===//
#include "CPUBlocks.h"
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FACPUTILEBLOCKS
#include "fa/Pipelines/CPUPasses.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

/// Register block per loop dim: `cols` along the innermost parallel dim,
/// `rows` along the others, 1 along a contraction's reduction dim (it
/// becomes the innermost loop). Empty if the op is not one we block.
SmallVector<int64_t> blockSizes(linalg::LinalgOp op, int64_t rows,
                                int64_t cols,
                                SmallVector<int64_t> &interchange) {
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  unsigned rank = iters.size();
  if (rank == 0 || rank > 3 || op.getNumDpsInits() != 1)
    return {};
  // f32 only: LLVM's x86 back end turns masked vector<..xbf16> memory ops
  // into compiler-rt calls (__truncsfbf2) that the CPU libraries lack;
  // 16-bit and FP8 tiles are converted to f32 by scalar loops first anyway.
  for (OpOperand &operand : op->getOpOperands())
    if (!getElementTypeOrSelf(operand.get().getType()).isF32())
      return {};
  // Transposing maps (the K^T copy) would need masked transposed reads; those
  // stay scalar loops.
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isProjectedPermutation())
      return {};
    unsigned last = 0;
    for (AffineExpr e : map.getResults()) {
      unsigned pos = cast<AffineDimExpr>(e).getPosition();
      if (pos < last)
        return {};
      last = pos;
    }
  }
  SmallVector<int64_t> sizes(rank, rows);
  sizes.back() = cols;
  bool reductionInside = rank == 3 &&
                         iters[0] == utils::IteratorType::parallel &&
                         iters[1] == utils::IteratorType::reduction &&
                         iters[2] == utils::IteratorType::parallel;
  if (reductionInside) {
    sizes[1] = 1;
    interchange = {0, 2, 1};
  } else if (rank == 3) {
    return {};
  }
  return sizes;
}

struct CPUTileBlocks
    : public fa::impl::FACPUTileBlocksBase<CPUTileBlocks> {
  using Base::Base;

  void runOnOperation() override {
    if (blockRows <= 0 || blockCols <= 0) {
      getOperation()->emitError()
          << "fa-cpu-tile-blocks: block-rows and block-cols must be "
             "positive, got "
          << std::to_string(blockRows) << " and " << std::to_string(blockCols);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      SmallVector<int64_t> interchange;
      SmallVector<int64_t> sizes =
          blockSizes(op, blockRows, blockCols, interchange);
      if (sizes.empty())
        continue;
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
      if (!interchange.empty())
        options.setInterchange(interchange);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled))
        continue;
      rewriter.replaceOp(op, tiled->replacements);
      for (Operation *t : tiled->tiledOps)
        t->setAttr(fa::kCPUBlockAttr, rewriter.getDenseI64ArrayAttr(sizes));
    }
  }
};

} // namespace

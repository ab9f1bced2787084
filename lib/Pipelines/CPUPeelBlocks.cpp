//===- CPUPeelBlocks.cpp - fa-cpu-peel-blocks -----------------------------===//
//
// Peels the block loops that size vector masks (CPUPasses.td has the
// details).
//
//===----------------------------------------------------------------------===//
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FACPUPEELBLOCKS
#include "fa/Pipelines/CPUPasses.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

struct CPUPeelBlocks : public fa::impl::FACPUPeelBlocksBase<CPUPeelBlocks> {
  void runOnOperation() override {
    // Collected first: the partial iterations peeling creates hold clones of
    // these masks and must stay as they are.
    llvm::SetVector<scf::ForOp> loops;
    getOperation().walk([&](vector::CreateMaskOp mask) {
      for (Value size : mask.getOperands()) {
        auto min = size.getDefiningOp<affine::AffineMinOp>();
        if (!min)
          continue;
        for (Value operand : min.getOperands())
          if (scf::ForOp loop = scf::getForInductionVarOwner(operand))
            loops.insert(loop);
      }
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      scf::ForOp partial;
      rewriter.setInsertionPoint(loop);
      // Fails (and leaves the loop as it is) where nothing is to be peeled,
      // e.g. a static trip count that the step divides.
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial);
    }
  }
};

} // namespace

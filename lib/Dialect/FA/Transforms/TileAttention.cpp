//===- TileAttention.cpp - fa ops -> FlashAttention loop nests ------------===//
//
// The pass driver; the nests are built in Tiling/ (TiledForward.cpp,
// TiledBackward.cpp) from shared pieces: tile loops, mask bounds, the score
// tile and operand tiles.
//
//===----------------------------------------------------------------------===//
#include "Tiling/Tiling.h"
#include "fa/Dialect/FA/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FATILEATTENTION
#include "fa/Dialect/FA/Transforms/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;
using namespace mlir::fa;

namespace {

struct FATileAttentionPass
    : public fa::impl::FATileAttentionBase<FATileAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    tiling::TileOptions options;
    int64_t bq = blockQ, bk = blockK;
    if (bq <= 0 || bk <= 0) {
      getOperation()->emitError()
          << "fa-tile-attention: block-q and block-k must be positive, got "
          << std::to_string(bq) << " and " << std::to_string(bk);
      return signalPassFailure();
    }
    options.blockQ = bq;
    options.blockK = bk;
    if (dqAccumulation == "deterministic") {
      options.dqAccumulation = tiling::DQAccumulation::deterministic;
    } else if (dqAccumulation == "atomic") {
      options.dqAccumulation = tiling::DQAccumulation::atomic;
    } else {
      getOperation()->emitError()
          << "fa-tile-attention: dq-accumulation must be 'deterministic' or "
             "'atomic', got '"
          << dqAccumulation << "'";
      return signalPassFailure();
    }

    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      LogicalResult result =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](AttentionOp fwd) {
                return tiling::tileForward(fwd, rewriter, options);
              })
              .Case([&](AttentionGradOp bwd) {
                return tiling::tileBackward(bwd, rewriter, options);
              });
      if (failed(result))
        return signalPassFailure();
    }
  }
};

} // namespace

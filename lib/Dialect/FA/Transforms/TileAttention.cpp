//===- TileAttention.cpp - fa ops -> FlashAttention loop nests ------------===//
//
// The pass driver; the nests are built in Tiling/ (TiledForward.cpp,
// TiledBackward.cpp) from shared pieces: tile loops, mask bounds, the score
// tile and operand tiles.
//
//===----------------------------------------------------------------------===//
#include "Tiling/Tiling.h"
#include "fa/Dialect/FA/Transforms/LowerCombine.h"
#include "fa/Dialect/FA/Transforms/LowerSequences.h"
#include "fa/Dialect/FA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>
#include <thread>

namespace mlir::fa {
#define GEN_PASS_DEF_FATILEATTENTION
#include "fa/Dialect/FA/Transforms/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;
using namespace mlir::fa;

namespace {

/// True when batch, heads_q, seq_q or seq_k is statically 0. Such a problem
/// has no tile; its loop nests would still slice the zero-sized dims, which
/// the slice verifiers reject ("offset 0 is out-of-bounds").
bool isStaticallyEmpty(Value query, Value key, Layout layout) {
  LayoutDims ld = getLayoutDims(layout);
  auto q = cast<RankedTensorType>(query.getType());
  auto k = cast<RankedTensorType>(key.getType());
  return q.getDimSize(ld.batch) == 0 || q.getDimSize(ld.heads) == 0 ||
         q.getDimSize(ld.seq) == 0 || k.getDimSize(ld.seq) == 0;
}

/// `value` in every element of a tensor of `type`, its dynamic sizes read
/// from `like` (dimension `likeDims[i]` for result dimension i).
Value filled(RewriterBase &rewriter, Location loc, RankedTensorType type,
             Value like, ArrayRef<unsigned> likeDims, double value) {
  SmallVector<OpFoldResult> sizes;
  for (auto [i, dim] : llvm::enumerate(likeDims))
    sizes.push_back(type.isDynamicDim(i)
                        ? tensor::getMixedSize(rewriter, loc, like, dim)
                        : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(i))));
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
  Value cst = arith::ConstantOp::create(
      rewriter, loc, FloatAttr::get(type.getElementType(), value));
  return linalg::FillOp::create(rewriter, loc, cst, empty).getResult(0);
}

SmallVector<unsigned> allDims(unsigned rank) {
  return llvm::to_vector(llvm::seq<unsigned>(0, rank));
}

/// An empty forward: every row sees no key (output 0, LSE -inf, or the
/// row's sink with sinks), or there is no row at all.
void replaceEmptyForward(AttentionOp op, RewriterBase &rewriter) {
  LayoutDims ld = getLayoutDims(op.getLayout());
  Location loc = op.getLoc();
  SmallVector<Value> results = {filled(rewriter, loc, op.getOutput().getType(),
                                       op.getQuery(), allDims(4), 0.0)};
  if (op.getLse()) {
    Value lse = filled(rewriter, loc, op.getLse().getType(), op.getQuery(),
                       {ld.batch, ld.heads, ld.seq},
                       -std::numeric_limits<double>::infinity());
    if (Value sinks = op.getSinks()) // [heads_q] along dims 0 and 2
      lse = linalg::BroadcastOp::create(rewriter, loc, sinks, lse,
                                        ArrayRef<int64_t>{0, 2})
                .getResult()[0];
    results.push_back(lse);
  }
  rewriter.replaceOp(op, results);
}

/// An empty backward: no (query, key) pair contributes, every gradient is 0.
void replaceEmptyBackward(AttentionGradOp op, RewriterBase &rewriter) {
  Location loc = op.getLoc();
  SmallVector<Value> results;
  // Each result has the shape of its input (the optional ones in order).
  SmallVector<Value> likes = {op.getQuery(), op.getKey(), op.getValue()};
  for (Value optional : {op.getBias(), op.getSinks()})
    if (optional)
      likes.push_back(optional);
  for (auto [result, like] : llvm::zip(op.getResults(), likes)) {
    auto type = cast<RankedTensorType>(result.getType());
    results.push_back(filled(rewriter, loc, type, like,
                             allDims(type.getRank()), 0.0));
  }
  rewriter.replaceOp(op, results);
}

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
    options.cores = cores > 0 ? int64_t(cores)
                              : std::max<int64_t>(1, std::thread::hardware_concurrency());
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

    IRRewriter rewriter(&getContext());
    // Per-sequence fa.attention ops first; the walk below lowers them.
    lowerSequenceOps(getOperation(), rewriter);
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      LogicalResult result =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](AttentionOp fwd) {
                if (isStaticallyEmpty(fwd.getQuery(), fwd.getKey(),
                                      fwd.getLayout())) {
                  replaceEmptyForward(fwd, rewriter);
                  return success();
                }
                return tiling::tileForward(fwd, rewriter, options);
              })
              .Case([&](AttentionGradOp bwd) {
                if (isStaticallyEmpty(bwd.getQuery(), bwd.getKey(),
                                      bwd.getLayout())) {
                  replaceEmptyBackward(bwd, rewriter);
                  return success();
                }
                return tiling::tileBackward(bwd, rewriter, options);
              });
      if (failed(result))
        return signalPassFailure();
    }
    // The users' fa.combine ops and those split-KV made.
    lowerCombines(getOperation(), rewriter);
  }
};

} // namespace

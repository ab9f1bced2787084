//===- CPULowerAggregates.cpp - fa-cpu-lower-aggregates -------------------===//
//
// What a raise left as it was: aggregated linalg ops (linalg.softmax) and
// arith/math ops on whole tensors, lowered so that fa-cpu-pipeline takes any
// input (CPUPasses.td has the details).
//
//===----------------------------------------------------------------------===//
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FACPULOWERAGGREGATES
#include "fa/Pipelines/CPUPasses.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {
struct LowerAggregates : fa::impl::FACPULowerAggregatesBase<LowerAggregates> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
      if (failed(parts)) {
        op->emitError("fa-cpu-pipeline cannot decompose this op");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *parts);
    }
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

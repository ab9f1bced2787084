//===- Pattern.cpp - fa-raise-attention as a rewrite pattern --------------===//
//
// One pattern, rooted at every contraction (the candidate P·V): match
// (Match.cpp), build (Build.cpp), replace, erase what became dead. Remarks
// say what was raised, or why a near miss was not; a near miss is reported
// once (the greedy driver would otherwise revisit it after every change).
//
//===----------------------------------------------------------------------===//
#include "Plan.h"
#include "fa/Dialect/FA/Transforms/RaisePatterns.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <memory>

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

void mlir::fa::raising::eraseDeadFrom(Operation *root, RewriterBase &rw) {
  SmallVector<Operation *> worklist = {root};
  llvm::SmallPtrSet<Operation *, 32> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    // Operands, and values the op's regions capture (body constants).
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && !op->isAncestor(def))
          worklist.push_back(def);
    });
    erased.insert(op);
    rw.eraseOp(op);
  }
}

namespace {

struct RaiseAttentionPattern : RewritePattern {
  RaiseAttentionPattern(MLIRContext *ctx, const RaiseAttentionOptions &options)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        options(options),
        reported(std::make_shared<llvm::SmallPtrSet<Operation *, 8>>()) {}

  LogicalResult matchAndRewrite(Operation *pv,
                                PatternRewriter &rw) const override {
    if (!isContractionOp(pv) || reported->contains(pv))
      return failure();
    AtomTable atoms;
    std::string why;
    bool nearMiss = false;
    FailureOr<Plan> plan = matchAttention(pv, atoms, why, nearMiss);
    if (failed(plan)) {
      if (nearMiss)
        decline(pv, why);
      return failure();
    }
    bool narrowed = options.narrowPromoted && narrowPromoted(*plan);
    std::string summary;
    SmallVector<Operation *> backwardRoots;
    FailureOr<Value> replacement =
        buildAttention(*plan, atoms, rw, why, summary, backwardRoots);
    if (failed(replacement)) {
      decline(pv, why);
      return failure();
    }
    if (narrowed)
      summary += narrowedRemark(*plan->promoted);
    pv->emitRemark() << "raised to fa.attention (" << summary << ")";
    Operation *finalOp = plan->finalValue.getDefiningOp();
    rw.replaceAllUsesWith(plan->finalValue, *replacement);
    eraseDeadFrom(finalOp, rw);
    for (Operation *op : backwardRoots)
      eraseDeadFrom(op, rw);
    return success();
  }

private:
  void decline(Operation *pv, const std::string &why) const {
    reported->insert(pv);
    pv->emitRemark() << "attention not raised: " << why;
  }

  /// What the narrowing of promoted attention changes, for the remark.
  static std::string narrowedRemark(const Plan::Promoted &p) {
    std::string t, wide;
    llvm::raw_string_ostream(t) << p.type;
    llvm::raw_string_ostream(wide) << p.wide;
    return ", narrowed to " + t + ": the program computes in " + wide +
           " between its " + t + " inputs and output, the op rounds P to " + t +
           " (narrow-promoted)";
  }

  RaiseAttentionOptions options;
  /// Near misses already reported (shared by copies of the pattern).
  std::shared_ptr<llvm::SmallPtrSet<Operation *, 8>> reported;
};

} // namespace

void mlir::fa::populateFARaiseAttentionPatterns(
    RewritePatternSet &patterns, const RaiseAttentionOptions &options) {
  patterns.add<RaiseAttentionPattern>(patterns.getContext(), options);
  populateTMTensorAttentionRaisePatterns(patterns);
  populateIREEAttentionRaisePatterns(patterns);
}

void mlir::fa::foldFARaiseGlue(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (op->hasAttr(kGlueAttr)) {
      op->removeAttr(kGlueAttr);
      ops.push_back(op);
    }
  });
  if (ops.empty())
    return;
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::TransposeOp::getCanonicalizationPatterns(patterns, ctx);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

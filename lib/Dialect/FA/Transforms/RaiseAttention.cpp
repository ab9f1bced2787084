//===- RaiseAttention.cpp - fa-raise-attention ----------------------------===//
//
// Finds attention written as generic ops and replaces it by fa.attention:
// the rewrite pattern of Raising/Pattern.cpp (anchored on the P·V
// contraction) under the greedy driver, top-down so that a forward is
// raised before its backward's contractions are visited. Only the pattern
// changes IR: no folding, no constant CSE. See docs/RaiseAttention.md for
// the recognized forms and the soundness rules.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/Transforms/Passes.h"
#include "fa/Dialect/FA/Transforms/RaisePatterns.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FARAISEATTENTION
#include "fa/Dialect/FA/Transforms/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

struct FARaiseAttentionPass
    : public fa::impl::FARaiseAttentionBase<FARaiseAttentionPass> {
  using FARaiseAttentionBase::FARaiseAttentionBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    fa::RaiseAttentionOptions options;
    options.narrowPromoted = narrowPromoted;
    fa::populateFARaiseAttentionPatterns(patterns, options);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true)
        .enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation()->emitError("fa-raise-attention did not converge");
      return signalPassFailure();
    }
    fa::foldFARaiseGlue(getOperation());
  }
};

} // namespace

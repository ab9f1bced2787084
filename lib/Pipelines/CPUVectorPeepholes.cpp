//===- CPUVectorPeepholes.cpp - fa-cpu-vector-peepholes -------------------===//
//
// Multiply-adds to fma, row reductions, exp2 to a polynomial (CPUPasses.td
// has the details).
//
//===----------------------------------------------------------------------===//
#include "fa/Pipelines/CPUPasses.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FACPUVECTORPEEPHOLES
#include "fa/Pipelines/CPUPasses.h.inc"
} // namespace mlir::fa

using namespace mlir;

namespace {

/// a * b + c on float vectors -> vector.fma where the multiply allows
/// contraction (the multiply-add of a blocked contraction; LLVM does not
/// fuse fmul + fadd on its own).
struct FuseVectorMulAdd : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    if (!isa<VectorType>(add.getType()))
      return failure();
    for (int i = 0; i < 2; ++i) {
      Value product = add->getOperand(i);
      // A blocked contraction's product is shape_cast from 8x1x32 to 8x32.
      auto cast = product.getDefiningOp<vector::ShapeCastOp>();
      if (cast && cast->hasOneUse())
        product = cast.getSource();
      auto mul = product.getDefiningOp<arith::MulFOp>();
      // Only where the product may be contracted (the vectorizer marks a
      // contraction's multiply `contract`).
      if (!mul || !mul->hasOneUse() ||
          !arith::bitEnumContainsAll(mul.getFastmath(),
                                     arith::FastMathFlags::contract))
        continue;
      Value lhs = mul.getLhs(), rhs = mul.getRhs();
      if (cast) {
        lhs = vector::ShapeCastOp::create(rewriter, add.getLoc(),
                                          add.getType(), lhs);
        rhs = vector::ShapeCastOp::create(rewriter, add.getLoc(),
                                          add.getType(), rhs);
      }
      rewriter.replaceOpWithNewOp<vector::FMAOp>(add, lhs, rhs,
                                                 add->getOperand(1 - i));
      return success();
    }
    return failure();
  }
};

struct CPUVectorPeepholes
    : public fa::impl::FACPUVectorPeepholesBase<CPUVectorPeepholes> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseVectorMulAdd>(&getContext());
    // Row max / row sum blocks (masked at tile edges): one horizontal
    // reduction per row.
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    // exp2 -> exp(x ln 2) -> a polynomial: vectorized softmax without libm.
    math::populateExpansionPatterns(patterns, {"exp2"});
    populateMathPolynomialApproximationPatterns(
        patterns,
        [](StringRef name) { return name == "exp" || name == "math.exp"; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

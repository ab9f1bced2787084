//===- CPUPipeline.cpp - fa-cpu-pipeline ----------------------------------===//
#include "fa/Pipelines/CPUPipeline.h"
#include "fa/Dialect/FA/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

//===----------------------------------------------------------------------===//
// Tile-level vectorization (fa-cpu-pipeline's own step, not a registered pass)
//===----------------------------------------------------------------------===//
//
// fa-tile-attention leaves linalg ops on (at most) 64-wide tiles. Lowered with
// convert-linalg-to-loops they become scalar loops that reload and store the
// accumulator for every multiply-add. Here each tile op is tiled once more to
// register-sized blocks (8 rows x 32 columns; a contraction's reduction dim
// by 1 and innermost) and vectorized with masks (tile sizes are dynamic at
// the edges); loop-invariant-subset-hoisting then keeps a contraction's 8x32
// accumulator in registers across its reduction loop. Ops the vectorizer
// does not take stay as they are (scalar loops later).

namespace {

/// Register block per loop dim: 32 along the innermost parallel dim (two
/// AVX-512 / four AVX2 registers of f32), 8 along the others, 1 along a
/// contraction's reduction dim (it becomes the innermost loop). Empty if the
/// op is not one we block.
static SmallVector<int64_t> blockSizes(linalg::LinalgOp op,
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
  SmallVector<int64_t> sizes(rank, 8);
  sizes.back() = 32;
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

/// Marks the blocks of fa-cpu-vectorize-tiles' first phase with their sizes.
static constexpr llvm::StringLiteral kBlockAttr = "fa.cpu_block";

/// Two phases, canonicalization between them: (1) tile each op into blocks,
/// (2) vectorize the blocks.
struct VectorizeTilesPass
    : PassWrapper<VectorizeTilesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VectorizeTilesPass)
  explicit VectorizeTilesPass(bool vectorizePhase)
      : vectorizePhase(vectorizePhase) {}
  bool vectorizePhase;
  StringRef getArgument() const override {
    return vectorizePhase ? "fa-cpu-vectorize-blocks" : "fa-cpu-tile-blocks";
  }
  StringRef getDescription() const override {
    return "fa-cpu-pipeline: block and vectorize tile-level linalg ops";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, arith::ArithDialect,
                    math::MathDialect, scf::SCFDialect, tensor::TensorDialect,
                    ub::UBDialect, vector::VectorDialect>();
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    if (!vectorizePhase) {
      SmallVector<linalg::LinalgOp> ops;
      getOperation().walk([&](linalg::LinalgOp op) {
        if (op.hasPureTensorSemantics())
          ops.push_back(op);
      });
      for (linalg::LinalgOp op : ops) {
        SmallVector<int64_t> interchange;
        SmallVector<int64_t> sizes = blockSizes(op, interchange);
        if (sizes.empty())
          continue;
        auto tilable = cast<TilingInterface>(op.getOperation());
        scf::SCFTilingOptions options;
        options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
        if (!interchange.empty())
          options.setInterchange(interchange);
        rewriter.setInsertionPoint(op);
        FailureOr<scf::SCFTilingResult> tiled =
            scf::tileUsingSCF(rewriter, tilable, options);
        if (failed(tiled))
          continue;
        rewriter.replaceOp(op, tiled->replacements);
        for (Operation *t : tiled->tiledOps)
          t->setAttr(kBlockAttr, rewriter.getDenseI64ArrayAttr(sizes));
      }
      return;
    }

    // After canonicalization: blocks whose sizes became static (a whole
    // small tile) are vectorized at that size, without masks.
    SmallVector<linalg::LinalgOp> blocks;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kBlockAttr))
        blocks.push_back(op);
    });
    for (linalg::LinalgOp op : blocks) {
      SmallVector<int64_t> sizes(
          cast<DenseI64ArrayAttr>(op->getAttr(kBlockAttr)).asArrayRef());
      op->removeAttr(kBlockAttr);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (ranges.size() != sizes.size())
        continue;
      for (auto [size, range] : llvm::zip_equal(sizes, ranges))
        if (!ShapedType::isDynamic(range) && range < size)
          size = range;
      // Explicitly not scalable: masks built from an empty list would be a
      // different (equal-looking) type from the ones the verifier expects.
      SmallVector<bool> scalable(sizes.size(), false);
      if (failed(linalg::vectorizeOpPrecondition(op, sizes, scalable)))
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> vec =
          linalg::vectorize(rewriter, op, sizes, scalable);
      if (succeeded(vec))
        rewriter.replaceOp(op, vec->replacements);
    }
    // A blocked contraction's reduction dim is 1: the vectorizer wraps the
    // (unit) multi_reduction in the block's mask, and canonicalization then
    // turns it into a select per multiply-add. Lanes that a vector.mask
    // without passthru masks off are undefined, and the block's accumulator
    // write is masked with the same rows and columns, so drop the mask.
    getOperation().walk([&](vector::MaskOp mask) {
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
};

struct VectorPeepholesPass
    : PassWrapper<VectorPeepholesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VectorPeepholesPass)
  StringRef getArgument() const override { return "fa-cpu-vector-peepholes"; }
  StringRef getDescription() const override {
    return "fa-cpu-pipeline: vector multiply-adds to fma, exp2 to a "
           "polynomial";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, math::MathDialect,
                    vector::VectorDialect>();
  }
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
        patterns, [](StringRef name) { return name == "exp" || name == "math.exp"; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

// Upstream's part of the pipeline, spelled as text so that it reads like the
// mlir-opt command line people already know.
// After VectorizeTilesPass: masks become masked transfers, then a blocked
// contraction's accumulator read/write pair leaves its reduction loop.
static constexpr const char *kHoist =
    "canonicalize,cse,"
    "func.func(lower-vector-mask),"
    "canonicalize,cse,"
    "loop-invariant-code-motion,"
    "loop-invariant-subset-hoisting,"
    "canonicalize,cse";

static constexpr const char *kBufferize =
    "func.func(convert-elementwise-to-linalg),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    // Folds the self-copies bufferization leaves where a tile is written
    // back into the region it was read from.
    "canonicalize,cse,canonicalize,"
    "func.func(scf-forall-to-parallel),"
    "buffer-deallocation-pipeline,"
    "convert-linalg-to-loops,"
    // n-D vector transfers -> loops of 1-D (masked) loads and stores.
    "convert-vector-to-scf{full-unroll=true},"
    "canonicalize,lower-affine,"
    // Before convert-vector-to-llvm, which also lowers arith: bf16
    // truncation on vectors must not become a compiler-rt call.
    "arith-expand{include-bf16=true},"
    "convert-vector-to-llvm";

static constexpr const char *kLowerToLLVM =
    "expand-strided-metadata,"
    "lower-affine,"
    // Before scf-to-cf: the memref.alloca_scope that scf-to-openmp puts in
    // a parallel body must be gone before its region gets several blocks.
    "finalize-memref-to-llvm,"
    "convert-scf-to-cf,"
    "arith-expand{include-bf16=true},"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-arith-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-openmp-to-llvm,"
    "convert-ub-to-llvm,"
    "reconcile-unrealized-casts";

namespace {
/// Lowers what the raise left as it was: aggregated linalg ops
/// (linalg.softmax, decomposed as upstream defines them) and arith / math
/// ops on whole tensors (to linalg.generic), so that fa-cpu-pipeline lowers
/// every op it is given, raised or not.
struct LowerAggregatesPass
    : PassWrapper<LowerAggregatesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerAggregatesPass)
  StringRef getArgument() const override { return "fa-cpu-lower-aggregates"; }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, math::MathDialect,
                    arith::ArithDialect, tensor::TensorDialect>();
  }
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

void mlir::fa::buildFACPUPipeline(OpPassManager &pm,
                                  const FACPUPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(std::make_unique<LowerAggregatesPass>());
  if (options.tiled) {
    pm.addPass(createFATileAttention());
  } else {
    pm.addPass(createFADecomposeAttention());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(std::make_unique<VectorizeTilesPass>(false));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(std::make_unique<VectorizeTilesPass>(true));
  if (failed(parsePassPipeline(kHoist, pm)))
    llvm::report_fatal_error("fa-cpu-pipeline: upstream passes missing from "
                             "the registry (call registerAllPasses first)");
  pm.addNestedPass<func::FuncOp>(std::make_unique<VectorPeepholesPass>());
  if (failed(parsePassPipeline(kBufferize, pm)) ||
      (options.openmp &&
       failed(parsePassPipeline("convert-scf-to-openmp", pm))) ||
      failed(parsePassPipeline(kLowerToLLVM, pm)))
    llvm::report_fatal_error("fa-cpu-pipeline: upstream passes missing from "
                             "the registry (call registerAllPasses first)");
}

void mlir::fa::registerFACPUPipeline() {
  PassPipelineRegistration<FACPUPipelineOptions>(
      "fa-cpu-pipeline",
      "Lower fa ops (and linalg, tensor, arith, func) to the LLVM dialect "
      "for the CPU; mlir-runner runs the result",
      buildFACPUPipeline);
}

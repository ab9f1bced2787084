//===- LowerTMTensor.cpp - fa-lower-tm-tensor ------------------------------===//
//
// tm_tensor.attention is raised to fa.attention (Raising/TMTensor.cpp);
// tm_tensor.scan becomes a loop along the scanned dimension that carries
// the output:
//
//   for i in [0, n):
//     out[i] = i == 0 ? (inclusive ? in[0] : acc_init)
//                     : combine(out[i-1], in[inclusive ? i : i-1])
//   acc = n > 1 ? out[n-1] : acc_init
//
// where x[i] is the rank-reduced slice at i and combine is the op's region
// applied elementwise by a linalg.generic. This is torch-mlir's own
// definition of the op (its scalar implementation), on tensors.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/TMTensor/Transforms/Passes.h"

#include "fa/Dialect/FA/Transforms/RaisePatterns.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fa {
#define GEN_PASS_DEF_FALOWERTMTENSOR
#include "fa/Dialect/TMTensor/Transforms/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;
using namespace mlir::fa;

namespace {

/// Slices of a tensor at one position of the scanned dimension, rank-reduced
/// to the accumulator's shape.
struct Slicer {
  Value source; // any tensor of the input's shape (sizes are read from it)
  int64_t dim;
  RankedTensorType sliceType;

  SmallVector<OpFoldResult> sizes(OpBuilder &b, Location loc) const {
    SmallVector<OpFoldResult> s = tensor::getMixedSizes(b, loc, source);
    s[dim] = b.getIndexAttr(1);
    return s;
  }
  SmallVector<OpFoldResult> offsets(OpBuilder &b, Value pos) const {
    SmallVector<OpFoldResult> o(
        cast<RankedTensorType>(source.getType()).getRank(), b.getIndexAttr(0));
    o[dim] = pos;
    return o;
  }
  Value extract(OpBuilder &b, Location loc, Value from, Value pos) const {
    auto rank = cast<RankedTensorType>(from.getType()).getRank();
    return tensor::ExtractSliceOp::create(
        b, loc, sliceType, from, offsets(b, pos), sizes(b, loc),
        SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
  }
  Value insert(OpBuilder &b, Location loc, Value slice, Value into,
               Value pos) const {
    auto rank = cast<RankedTensorType>(into.getType()).getRank();
    return tensor::InsertSliceOp::create(
        b, loc, slice, into, offsets(b, pos), sizes(b, loc),
        SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
  }
};

/// The combiner of `op` applied elementwise to two slices.
Value combine(OpBuilder &b, Location loc, tm_tensor::ScanOp op,
              const Slicer &s, Value prev, Value x) {
  unsigned rank = s.sliceType.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, prev);
  Value init = tensor::EmptyOp::create(b, loc, sizes,
                                       s.sliceType.getElementType());
  SmallVector<AffineMap> maps(3, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> its(rank, utils::IteratorType::parallel);
  Block &body = op.getRegion().front();
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{prev, x}, ValueRange{init},
             maps, its,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               IRMapping map;
               map.map(body.getArgument(0), args[0]);
               map.map(body.getArgument(1), args[1]);
               for (Operation &o : body.without_terminator())
                 nb.clone(o, map);
               linalg::YieldOp::create(
                   nb, nloc,
                   map.lookupOrDefault(body.getTerminator()->getOperand(0)));
             })
      .getResult(0);
}

struct LowerScan : OpRewritePattern<tm_tensor::ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tm_tensor::ScanOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value in = op.getInputs()[0];
    Value outInit = op.getOutputs()[0], accInit = op.getOutputs()[1];
    int64_t dim = op.getDimension();
    bool inclusive = op.getInclusive();
    auto accType = cast<RankedTensorType>(accInit.getType());
    auto inType = cast<RankedTensorType>(in.getType());
    SmallVector<int64_t> sliceShape(inType.getShape());
    sliceShape.erase(sliceShape.begin() + dim);
    if (accType.getShape() != ArrayRef<int64_t>(sliceShape) ||
        op.getOutputs()[0].getType() != inType)
      return rw.notifyMatchFailure(
          op, "output or accumulator shapes differ from the input's");
    Slicer s{in, dim, accType};
    Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    Value n = tensor::DimOp::create(rw, loc, in, dim);
    auto loop = scf::ForOp::create(
        rw, loc, zero, n, one, ValueRange{outInit},
        [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
          Value out = carried[0];
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              i, zero);
          auto step = scf::IfOp::create(
              b, l, first,
              [&](OpBuilder &tb, Location tl) {
                Value v = inclusive ? s.extract(tb, tl, in, i) : accInit;
                scf::YieldOp::create(tb, tl, v);
              },
              [&](OpBuilder &eb, Location el) {
                Value prevPos = arith::SubIOp::create(eb, el, i, one);
                Value prev = s.extract(eb, el, out, prevPos);
                Value x = s.extract(eb, el, in, inclusive ? i : prevPos);
                scf::YieldOp::create(eb, el,
                                     combine(eb, el, op, s, prev, x));
              });
          scf::YieldOp::create(b, l,
                               s.insert(b, l, step.getResult(0), out, i));
        });
    Value out = loop.getResult(0);
    // The accumulator holds the last combined value: out[n-1] where n > 1.
    Value last = arith::SubIOp::create(rw, loc, n, one);
    Value combined = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt,
                                           n, one);
    auto acc = scf::IfOp::create(
        rw, loc, combined,
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, s.extract(b, l, out, last));
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, accInit); });
    rw.replaceOp(op, ValueRange{out, acc.getResult(0)});
    return success();
  }
};

struct FALowerTMTensorPass
    : public fa::impl::FALowerTMTensorBase<FALowerTMTensorPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTMTensorScanLoweringPatterns(patterns);
    populateTMTensorAttentionRaisePatterns(patterns);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](Operation *op) {
      if (isa<tm_tensor::TMTensorDialect>(op->getDialect())) {
        op->emitError("'") << op->getName()
                           << "' could not be lowered by fa-lower-tm-tensor";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
    foldFARaiseGlue(getOperation());
  }
};

} // namespace

void mlir::fa::populateTMTensorScanLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerScan>(patterns.getContext());
}

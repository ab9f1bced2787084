//===- Fp8Quantize.cpp - fa.attention -> quantize + FP8 fa.attention ------===//
//
// FlashAttention-3's two accuracy techniques as a rewrite: incoherent
// processing (Q and K times a random-sign Hadamard matrix along the head
// dim) and per-tensor or per-block quantization to f8E4M3FN with amax / 448
// scales, all in linalg on tensors in front of an FP8 fa.attention.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/Transforms/Float8.h"
#include "fa/Dialect/FA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace mlir::fa {
#define GEN_PASS_DEF_FAFP8QUANTIZE
#include "fa/Dialect/FA/Transforms/Passes.h.inc"
} // namespace mlir::fa

using namespace mlir;
using namespace mlir::fa;

using utils::IteratorType;

namespace {

/// splitmix64 (Steele, Lea, Flood 2014): fully specified in a few lines, so
/// that fa_mlir.torch.quantize_fp8 draws the very same signs.
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The n x n orthogonal matrix diag(s) * blockdiag(H_k / sqrt(k)), row
/// major: one Sylvester Hadamard block per set bit of n, largest first, and
/// s_i = -1 where the i-th splitmix64 output has its top bit set.
SmallVector<float> incoherentMatrix(int64_t n, uint64_t seed) {
  SmallVector<float> m(n * n, 0.0f);
  uint64_t state = seed;
  SmallVector<float> signs;
  for (int64_t i = 0; i < n; ++i)
    signs.push_back((splitmix64(state) >> 63) ? -1.0f : 1.0f);
  int64_t offset = 0;
  for (int bit = 62; bit >= 0; --bit) {
    int64_t k = int64_t(1) << bit;
    if (!(n & k))
      continue;
    float norm = 1.0f / std::sqrt(static_cast<float>(k));
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) {
        // Sylvester: H[i][j] = (-1)^popcount(i & j).
        float h = (llvm::popcount(static_cast<uint64_t>(i & j)) & 1) ? -norm
                                                                      : norm;
        m[(offset + i) * n + offset + j] = signs[offset + i] * h;
      }
    offset += k;
  }
  return m;
}

/// Builds the quantization of one op's operands in its layout.
class Quantizer {
public:
  Quantizer(ImplicitLocOpBuilder &b, AttentionOp op, int64_t block)
      : b(b), ld(getLayoutDims(op.getLayout())), block(block) {}

  /// The n x n f32 constant `m`.
  Value matrix(ArrayRef<float> m, int64_t n);
  /// x times `matrix` along the head dim, in f32.
  Value transform(Value x, Value matrix);
  /// scale = amax / 448 (1 where amax = 0): per tensor (rank 0) or per
  /// (batch, head, block) [B, H, ceildiv(S, block)].
  Value scales(Value x);
  /// round(x / scale) as f8E4M3FN.
  Value quantize(Value x, Value scale);

private:
  AffineExpr d(unsigned i) { return b.getAffineDimExpr(i); }
  AffineMap identity(unsigned rank) {
    return AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  }
  /// From x's loops to its scale's element: () per tensor, (batch, head,
  /// seq floordiv block) per block.
  AffineMap scaleMap();
  Value extend(Value x) {
    return x.getType().isF32() ? x
                               : arith::ExtFOp::create(b, b.getF32Type(), x);
  }
  Value cst(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value generic(ValueRange ins, Value init, ArrayRef<AffineMap> maps,
                ArrayRef<IteratorType> iterators,
                function_ref<Value(ValueRange)> body);

  ImplicitLocOpBuilder &b;
  LayoutDims ld;
  int64_t block;
};

Value Quantizer::generic(ValueRange ins, Value init, ArrayRef<AffineMap> maps,
                         ArrayRef<IteratorType> iterators,
                         function_ref<Value(ValueRange)> body) {
  return linalg::GenericOp::create(
             b, init.getType(), ins, ValueRange{init}, maps, iterators, "", "",
             [&](OpBuilder &nb, Location loc, ValueRange args) {
               OpBuilder::InsertionGuard guard(b);
               b.setInsertionPoint(nb.getInsertionBlock(),
                                   nb.getInsertionPoint());
               linalg::YieldOp::create(b, ValueRange{body(args)});
             })
      .getResult(0);
}

Value Quantizer::matrix(ArrayRef<float> m, int64_t n) {
  auto type = RankedTensorType::get({n, n}, b.getF32Type());
  return arith::ConstantOp::create(b, DenseElementsAttr::get(type, m));
}

Value Quantizer::transform(Value x, Value matrix) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), x);
  Value empty = tensor::EmptyOp::create(b, sizes, b.getF32Type());
  Value init = linalg::FillOp::create(b, cst(0.0), empty).getResult(0);
  // Loops (the four dims of x, k): out[..., j] += x[..., k] * M[k, j]; the
  // head dim is the last in both layouts.
  auto map = [&](ArrayRef<AffineExpr> r) {
    return AffineMap::get(5, 0, r, b.getContext());
  };
  return generic({x, matrix}, init,
                 {map({d(0), d(1), d(2), d(4)}), map({d(4), d(3)}),
                  map({d(0), d(1), d(2), d(3)})},
                 {IteratorType::parallel, IteratorType::parallel,
                  IteratorType::parallel, IteratorType::parallel,
                  IteratorType::reduction},
                 [&](ValueRange a) -> Value {
                   return arith::AddFOp::create(
                       b, a[2], arith::MulFOp::create(b, extend(a[0]), a[1]));
                 });
}

AffineMap Quantizer::scaleMap() {
  if (!block)
    return AffineMap::get(4, 0, {}, b.getContext());
  return AffineMap::get(4, 0,
                        {d(ld.batch), d(ld.heads), d(ld.seq).floorDiv(block)},
                        b.getContext());
}

Value Quantizer::scales(Value x) {
  SmallVector<OpFoldResult> sizes;
  SmallVector<IteratorType> iterators(4, IteratorType::reduction);
  if (block) {
    SmallVector<OpFoldResult> xs = tensor::getMixedSizes(b, b.getLoc(), x);
    OpFoldResult blocks;
    if (std::optional<int64_t> seq = getConstantIntValue(xs[ld.seq]))
      blocks = b.getIndexAttr(llvm::divideCeil(*seq, block));
    else
      blocks = arith::CeilDivUIOp::create(
                   b, cast<Value>(xs[ld.seq]),
                   arith::ConstantIndexOp::create(b, block))
                   .getResult();
    sizes = {xs[ld.batch], xs[ld.heads], blocks};
    iterators[ld.batch] = iterators[ld.heads] = IteratorType::parallel;
  }
  Value empty = tensor::EmptyOp::create(b, sizes, b.getF32Type());
  Value zero = linalg::FillOp::create(b, cst(0.0), empty).getResult(0);
  Value amax = generic({x}, zero, {identity(4), scaleMap()}, iterators,
                       [&](ValueRange a) -> Value {
                         Value v = extend(a[0]);
                         Value mag = arith::MaximumFOp::create(
                             b, v, arith::NegFOp::create(b, v));
                         return arith::MaximumFOp::create(b, a[1], mag);
                       });
  unsigned rank = sizes.size();
  SmallVector<IteratorType> par(rank, IteratorType::parallel);
  return generic({amax}, empty, {identity(rank), identity(rank)}, par,
                 [&](ValueRange a) -> Value {
                   Value none = arith::CmpFOp::create(
                       b, arith::CmpFPredicate::OEQ, a[0], cst(0.0));
                   return arith::SelectOp::create(
                       b, none, cst(1.0),
                       arith::DivFOp::create(b, a[0], cst(kF8E4M3FNMax)));
                 });
}

Value Quantizer::quantize(Value x, Value scale) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, b.getLoc(), x);
  Value init = tensor::EmptyOp::create(
      b, sizes, Float8E4M3FNType::get(b.getContext()));
  SmallVector<IteratorType> par(4, IteratorType::parallel);
  return generic({x, scale}, init, {identity(4), scaleMap(), identity(4)}, par,
                 [&](ValueRange a) -> Value {
                   return encodeF8E4M3FN(
                       b, arith::DivFOp::create(b, extend(a[0]), a[1]));
                 });
}

/// Why `op` is not rewritten, or empty when it is.
std::string declineReason(AttentionOp op) {
  if (op.getBias() && !op.getBias().getType().getElementType().isF32())
    return "its bias is not f32 (the FP8 op takes only f32 biases)";
  for (Operation *user : op->getUsers())
    if (isa<AttentionGradOp>(user))
      return "it feeds an fa.attention_grad (the backward would differentiate "
             "the quantized forward, not this one)";
  return "";
}

struct FAFp8QuantizePass
    : public fa::impl::FAFp8QuantizeBase<FAFp8QuantizePass> {
  using FAFp8QuantizeBase::FAFp8QuantizeBase;

  void runOnOperation() override {
    if (block < 0) {
      getOperation()->emitError()
          << "fa-fp8-quantize: block must be >= 0 (0: per tensor), got "
          << static_cast<int64_t>(block);
      return signalPassFailure();
    }
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      // FP8 ops are quantized already; they stay as they are.
      if (isa<Float8E4M3FNType>(op.getQuery().getType().getElementType()))
        return;
      std::string why = declineReason(op);
      if (!why.empty())
        op.emitRemark() << "attention not quantized: " << why;
      else
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops)
      rewrite(op, rewriter);
  }

  void rewrite(AttentionOp op, IRRewriter &rewriter) {
    rewriter.setInsertionPoint(op);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Quantizer quant(b, op, block);
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    if (incoherent) {
      int64_t n = op.getQuery().getType().getDimSize(
          getLayoutDims(op.getLayout()).dim);
      Value m = quant.matrix(incoherentMatrix(n, seed), n);
      q = quant.transform(q, m);
      k = quant.transform(k, m);
    }
    SmallVector<Value> fp8, descales;
    for (Value x : {q, k, v}) {
      descales.push_back(quant.scales(x));
      fp8.push_back(quant.quantize(x, descales.back()));
    }
    auto quantized = AttentionOp::create(
        b, op.getOutput().getType(),
        op.getLse() ? op.getLse().getType() : Type(), fp8[0], fp8[1], fp8[2],
        op.getBias(), descales[0], descales[1], descales[2], op.getSinks(),
        op.getCaptures(), op.getLayoutAttr(), op.getScaleAttr(),
        op.getCausalAttr(), op.getMaskAlignmentAttr(), op.getWindowAttr(),
        op.getSoftcapAttr(), op.getNumSplitsAttr(),
        block ? b.getDenseI64ArrayAttr({block, block}) : DenseI64ArrayAttr());
    // The modifiers act on the scores, which quantization leaves as they are.
    quantized.getScoreMod().takeBody(op.getScoreMod());
    quantized.getMaskMod().takeBody(op.getMaskMod());
    rewriter.replaceOp(op, quantized.getResults());
  }
};

} // namespace

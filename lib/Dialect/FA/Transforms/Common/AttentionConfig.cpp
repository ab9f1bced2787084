//===- AttentionConfig.cpp - The score function of an attention op --------===//
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fa;

template <typename OpT>
static AttentionConfig getConfig(OpT op) {
  AttentionConfig c;
  c.layout = op.getLayout();
  c.scale = op.getEffectiveScale();
  if (std::optional<APFloat> cap = op.getSoftcap())
    c.softcap = cap->convertToDouble();
  c.causal = op.getCausal();
  if (std::optional<ArrayRef<int64_t>> w = op.getWindow())
    c.window = std::make_pair((*w)[0], (*w)[1]);
  c.alignment = op.getEffectiveMaskAlignment();
  return c;
}

AttentionConfig AttentionConfig::get(AttentionOp op) { return getConfig(op); }
AttentionConfig AttentionConfig::get(AttentionGradOp op) {
  return getConfig(op);
}

static Value f32Const(ImplicitLocOpBuilder &b, double v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}

Value AttentionConfig::emitScore(ImplicitLocOpBuilder &b, Value qk,
                                 Value bias) const {
  Value s = arith::MulFOp::create(b, qk, f32Const(b, scale));
  if (bias)
    s = arith::AddFOp::create(b, s, bias);
  if (softcap) {
    Value t = math::TanhOp::create(
        b, arith::MulFOp::create(b, s, f32Const(b, 1.0 / *softcap)));
    s = arith::MulFOp::create(b, t, f32Const(b, *softcap));
  }
  return s;
}

Value AttentionConfig::emitIsMasked(ImplicitLocOpBuilder &b, Value i, Value j,
                                    Value seqQ, Value seqK) const {
  if (!hasMask())
    return nullptr;
  // Work in i64 so that i + off - left may go negative.
  auto toI64 = [&](Value v) {
    return arith::IndexCastOp::create(b, b.getI64Type(), v).getResult();
  };
  auto c64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, b.getI64IntegerAttr(v)).getResult();
  };
  Value diag = toI64(i);
  if (alignment == MaskAlignment::bottom_right)
    diag = arith::AddIOp::create(
        b, diag, arith::SubIOp::create(b, toI64(seqK), toI64(seqQ)));
  Value col = toI64(j);
  Value masked;
  auto orInto = [&](Value cond) {
    masked = masked ? arith::OrIOp::create(b, masked, cond).getResult() : cond;
  };
  int64_t right = causal ? 0 : std::numeric_limits<int64_t>::max();
  if (window)
    right = std::min(right, window->second);
  if (right != std::numeric_limits<int64_t>::max())
    orInto(arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, col,
                                 arith::AddIOp::create(b, diag, c64(right))));
  if (window)
    orInto(arith::CmpIOp::create(
        b, arith::CmpIPredicate::slt, col,
        arith::SubIOp::create(b, diag, c64(window->first))));
  return masked;
}

Value AttentionConfig::emitScoreDerivative(ImplicitLocOpBuilder &b,
                                           Value score) const {
  if (!softcap)
    return nullptr;
  Value t = arith::MulFOp::create(b, score, f32Const(b, 1.0 / *softcap));
  return arith::SubFOp::create(b, f32Const(b, 1.0),
                               arith::MulFOp::create(b, t, t));
}

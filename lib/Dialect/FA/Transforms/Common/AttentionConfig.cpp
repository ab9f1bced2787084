//===- AttentionConfig.cpp - The score function of an attention op --------===//
#include "fa/Dialect/FA/Transforms/AttentionConfig.h"
#include "Modifiers.h"
#include "fa/Dialect/FA/Transforms/MaskRule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa;

/// The score attributes every attention op has: scale, softcap, masks.
template <typename OpT>
static AttentionConfig getScoreConfig(OpT op, double scale) {
  AttentionConfig c;
  c.scale = scale;
  if (std::optional<APFloat> cap = op.getSoftcap())
    c.softcap = cap->convertToDouble();
  c.causal = op.getCausal();
  if (std::optional<ArrayRef<int64_t>> w = op.getWindow())
    c.window = std::make_pair((*w)[0], (*w)[1]);
  return c;
}

/// The op's score_mod / mask_mod regions and their captures (every attention
/// op has them; the inference ops' positions are per sequence).
template <typename OpT> static void addModifiers(AttentionConfig &c, OpT op) {
  if (!op.getScoreMod().empty())
    c.scoreMod = &op.getScoreMod();
  if (!op.getMaskMod().empty())
    c.maskMod = &op.getMaskMod();
  llvm::append_range(c.captures, op.getCaptures());
}

template <typename OpT> static AttentionConfig getConfig(OpT op) {
  AttentionConfig c = getScoreConfig(op, op.getEffectiveScale());
  c.layout = op.getLayout();
  c.alignment = op.getEffectiveMaskAlignment();
  addModifiers(c, op);
  c.sinks = op.getSinks();
  return c;
}

AttentionConfig AttentionConfig::get(AttentionOp op) { return getConfig(op); }
AttentionConfig AttentionConfig::get(AttentionGradOp op) {
  return getConfig(op);
}
AttentionConfig AttentionConfig::get(AttentionKVCacheOp op) {
  // bshd; the queries are the last seq_q tokens of each sequence.
  AttentionConfig c = getScoreConfig(op, op.getEffectiveScale());
  c.layout = Layout::bshd;
  c.alignment = MaskAlignment::bottom_right;
  addModifiers(c, op);
  return c;
}

/// A ragged batch's (forward or backward) per-sequence configuration.
template <typename OpT> static AttentionConfig getVarlenConfig(OpT op) {
  auto qt = cast<RankedTensorType>(op.getQuery().getType());
  double scale = op.getScale() ? op.getScale()->convertToDouble()
                               : 1.0 / std::sqrt(static_cast<double>(qt.getDimSize(2)));
  AttentionConfig c = getScoreConfig(op, scale);
  c.layout = Layout::bshd;
  c.alignment = op.getMaskAlignment().value_or(MaskAlignment::top_left);
  addModifiers(c, op);
  return c;
}

AttentionConfig AttentionConfig::get(AttentionVarlenOp op) {
  return getVarlenConfig(op);
}
AttentionConfig AttentionConfig::get(AttentionVarlenGradOp op) {
  return getVarlenConfig(op);
}

static Value f32Const(ImplicitLocOpBuilder &b, double v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}

/// scale * qk (+ bias).
static Value preScore(ImplicitLocOpBuilder &b, Value qk, Value bias,
                      double scale) {
  Value s = arith::MulFOp::create(b, qk, f32Const(b, scale));
  return bias ? arith::AddFOp::create(b, s, bias).getResult() : s;
}

/// softcap * tanh(s / softcap).
static Value capScore(ImplicitLocOpBuilder &b, Value s, double softcap,
                      AttentionConfig::TanhFn tanh) {
  Value x = arith::MulFOp::create(b, s, f32Const(b, 1.0 / softcap));
  Value t = tanh ? tanh(x) : math::TanhOp::create(b, x).getResult();
  return arith::MulFOp::create(b, t, f32Const(b, softcap));
}


Value AttentionConfig::emitScore(ImplicitLocOpBuilder &b, Value qk,
                                 Value bias, TanhFn tanh) const {
  assert(!scoreMod && "score_mod needs the score's position");
  Value s = preScore(b, qk, bias, scale);
  return softcap ? capScore(b, s, *softcap, tanh) : s;
}

/// The position's values, as the modifier regions take them.
static SmallVector<Value, 4> positionArgs(const ScorePosition &pos) {
  return {pos.batch, pos.head, pos.row, pos.col};
}

Value AttentionConfig::emitScore(ImplicitLocOpBuilder &b, Value qk,
                                 Value bias, const ScorePosition &pos,
                                 TanhFn tanh) const {
  Value s = preScore(b, qk, bias, scale);
  if (scoreMod) {
    SmallVector<Value> leading = {s};
    llvm::append_range(leading, positionArgs(pos));
    s = emitModifier(b, *scoreMod, leading, captures, modifierTarget);
  }
  return softcap ? capScore(b, s, *softcap, tanh) : s;
}

Value AttentionConfig::emitMaskModHides(ImplicitLocOpBuilder &b,
                                        const ScorePosition &pos) const {
  if (!maskMod)
    return nullptr;
  Value keep = emitModifier(b, *maskMod, positionArgs(pos), captures,
                           modifierTarget);
  Value one = arith::ConstantOp::create(b, b.getBoolAttr(true));
  return arith::XOrIOp::create(b, keep, one);
}

std::pair<Value, Value>
AttentionConfig::emitScoreAndDerivative(ImplicitLocOpBuilder &b, Value qk,
                                        Value bias,
                                        const ScorePosition &pos) const {
  Value s = preScore(b, qk, bias, scale);
  Value d = f32Const(b, 1.0);
  if (scoreMod) {
    SmallVector<Value> leading = {s};
    llvm::append_range(leading, positionArgs(pos));
    std::tie(s, d) = emitModifierWithTangent(b, *scoreMod, leading,
                                             captures, modifierTarget);
  }
  if (softcap) {
    s = capScore(b, s, *softcap, nullptr);
    d = arith::MulFOp::create(b, d, emitScoreDerivative(b, s));
  }
  return {s, d};
}

LogicalResult
mlir::fa::checkScoreModDifferentiable(const AttentionConfig &config) {
  if (!config.scoreMod)
    return success();
  return checkDifferentiable(*config.scoreMod, "score_mod");
}

Value AttentionConfig::emitIsMasked(ImplicitLocOpBuilder &b, Value i, Value j,
                                    Value seqQ, Value seqK) const {
  if (!hasMask())
    return nullptr;
  // In i64 so that i + off - left may go negative.
  auto toI64 = [&](Value v) {
    return arith::IndexCastOp::create(b, b.getI64Type(), v).getResult();
  };
  ScalarBuilder s(b, b.getI64Type());
  MaskRule rule(s, *this, toI64(seqQ), toI64(seqK));
  return rule.isMasked(toI64(i), toI64(j));
}

Value AttentionConfig::emitScoreDerivative(ImplicitLocOpBuilder &b,
                                           Value score) const {
  if (!softcap)
    return nullptr;
  Value t = arith::MulFOp::create(b, score, f32Const(b, 1.0 / *softcap));
  return arith::SubFOp::create(b, f32Const(b, 1.0),
                               arith::MulFOp::create(b, t, t));
}

static constexpr double kLog2E = 1.4426950408889634;

Log2Score::Log2Score(const AttentionConfig &config, bool hasBias)
    : folded(config), hasBias(hasBias) {
  if (!hasBias && !config.softcap && !config.scoreMod)
    folded.scale *= kLog2E;
  else
    post = kLog2E;
}

Value Log2Score::emit(ImplicitLocOpBuilder &b, Value qk, Value bias,
                      AttentionConfig::TanhFn tanh) const {
  Value s = folded.emitScore(b, qk, bias, tanh);
  if (post != 1.0)
    s = arith::MulFOp::create(b, s, f32Const(b, post));
  return s;
}

Value Log2Score::emit(ImplicitLocOpBuilder &b, Value qk, Value bias,
                      const ScorePosition &pos,
                      AttentionConfig::TanhFn tanh) const {
  Value s = folded.emitScore(b, qk, bias, pos, tanh);
  if (post != 1.0)
    s = arith::MulFOp::create(b, s, f32Const(b, post));
  return s;
}

std::optional<double> Log2Score::linearFactor() const {
  if (hasBias || folded.softcap || folded.scoreMod || folded.scale <= 0)
    return std::nullopt;
  return folded.scale;
}

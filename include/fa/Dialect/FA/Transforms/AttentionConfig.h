//===- AttentionConfig.h - What the score function of an op is --*- C++ -*-===//
//
// The per-element score function of fa.attention (scale, bias, softcap,
// masks), emitted as scalar IR. Every lowering (the reference decomposition,
// the tiled loops, the GPU kernels) calls these so that all of them compute
// one function.
//
//===----------------------------------------------------------------------===//
#ifndef FA_DIALECT_FA_TRANSFORMS_ATTENTIONCONFIG_H
#define FA_DIALECT_FA_TRANSFORMS_ATTENTIONCONFIG_H

#include "fa/Dialect/FA/IR/FAOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <optional>

namespace mlir::fa {

/// Where a score sits (index values): batch, query head, query row, key
/// column; what score_mod and mask_mod take.
struct ScorePosition {
  Value batch, head, row, col;
};

/// How a target evaluates what a modifier region reads when it does not hold
/// the captures as tensors (a GPU kernel holds pointers and strides), and the
/// math it computes its own way. Without one, the region's ops are cloned as
/// they are, the captures being AttentionConfig::captures.
class ModifierTarget {
public:
  virtual ~ModifierTarget() = default;
  /// tensor.extract of tensor capture `capture` at `indices` (index values).
  virtual Value readCapture(ImplicitLocOpBuilder &b, unsigned capture,
                            ValueRange indices, Type elementType) = 0;
  /// tensor.dim of tensor capture `capture` at `dim` (an index value).
  virtual Value captureDim(ImplicitLocOpBuilder &b, unsigned capture,
                           Value dim) = 0;
  /// The value of scalar capture `capture`.
  virtual Value scalarCapture(ImplicitLocOpBuilder &b, unsigned capture) = 0;
  /// `op` computed from `operands` (its emitted operands) the target's way,
  /// or null: `op` is cloned.
  virtual Value emitOp(ImplicitLocOpBuilder &b, Operation &op,
                       ValueRange operands) {
    return {};
  }
};

struct AttentionConfig {
  Layout layout = Layout::bhsd;
  double scale = 1.0;
  std::optional<double> softcap;
  bool causal = false;
  /// Keys visible to query i are those with i+off-left <= j <= i+off+right.
  std::optional<std::pair<int64_t, int64_t>> window;
  MaskAlignment alignment = MaskAlignment::top_left;
  /// The op's score_mod / mask_mod regions (null when absent) and the
  /// values their trailing arguments take.
  Region *scoreMod = nullptr;
  Region *maskMod = nullptr;
  SmallVector<Value, 2> captures;
  /// Set by a target that evaluates the regions its own way (see
  /// ModifierTarget); `captures` is then not read.
  ModifierTarget *modifierTarget = nullptr;
  /// The op's attention sinks, tensor<heads_q x f32> (null without): one
  /// logit per query head in every row's softmax normalizer, no value row.
  Value sinks;

  static AttentionConfig get(AttentionOp op);
  static AttentionConfig get(AttentionGradOp op);
  /// A KV-cache op's: bshd, masks aligned bottom-right.
  static AttentionConfig get(AttentionKVCacheOp op);
  /// A ragged batch's, per sequence: bshd, the op's alignment (top-left by
  /// default), scale 1/sqrt(head_dim) unless given.
  static AttentionConfig get(AttentionVarlenOp op);
  static AttentionConfig get(AttentionVarlenGradOp op);

  bool hasMask() const { return causal || window.has_value(); }
  bool hasModifiers() const { return scoreMod || maskMod; }

  /// tanh as a target computes it (null: math.tanh).
  using TanhFn = function_ref<Value(Value)>;

  /// scale * qk (+ bias), then the softcap: the score before masking, f32.
  /// `bias` may be null.
  Value emitScore(ImplicitLocOpBuilder &b, Value qk, Value bias,
                  TanhFn tanh = nullptr) const;

  /// As above with score_mod applied after the bias (the same without it).
  Value emitScore(ImplicitLocOpBuilder &b, Value qk, Value bias,
                  const ScorePosition &pos, TanhFn tanh = nullptr) const;

  /// i1: mask_mod hides `pos` (null without mask_mod).
  Value emitMaskModHides(ImplicitLocOpBuilder &b,
                         const ScorePosition &pos) const;

  /// The score and its derivative d score / d(scale qk + bias): score_mod's
  /// (forward mode, from the region's ops) times the softcap's. The op's
  /// score_mod must have passed checkScoreModDifferentiable.
  std::pair<Value, Value> emitScoreAndDerivative(ImplicitLocOpBuilder &b,
                                                 Value qk, Value bias,
                                                 const ScorePosition &pos) const;

  /// i1: whether key `j` is hidden from query `i` (index values). `seqQ` and
  /// `seqK` are index values; they matter only for bottom_right alignment.
  /// Returns null when the op has no mask.
  Value emitIsMasked(ImplicitLocOpBuilder &b, Value i, Value j, Value seqQ,
                     Value seqK) const;

  /// The derivative d(score)/d(scale*qk + bias) given the score itself:
  /// 1 - (s/softcap)^2 with a softcap, null (meaning 1) without.
  Value emitScoreDerivative(ImplicitLocOpBuilder &b, Value score) const;
};

/// Recognizes the conjuncts of mask_mod that state a band of the query index
/// i and the key index j (j <= i, j >= i - 128, j - i < 5, ...: each a
/// comparison of i, j plus constants whose difference is j - i) and narrows
/// causal/window to them, so that every lowering skips the key tiles outside
/// the band as it does for the attributes. mask_mod is dropped when it
/// states nothing else (with the captures, which only the regions read);
/// otherwise it stays and is evaluated in full. Only where the built-in masks
/// are absent or top-left aligned (mask_mod counts from 0), and for bands
/// whose sides are >= 0. Returns whether the config changed.
bool foldMaskModBand(AttentionConfig &config);

/// Fails, with an error at the op, when score_mod holds an op that depends
/// on the score and has no derivative rule (the backward needs
/// d score_mod / d score).
LogicalResult checkScoreModDifferentiable(const AttentionConfig &config);

/// The score in the log2 domain, log2(e) * score, which softmax raises with
/// exp2. When nothing sits between the scale and the exponential (no bias,
/// no softcap), log2(e) folds into the scale; otherwise it is applied after
/// the score function. Every lowering takes its scores from here.
class Log2Score {
public:
  Log2Score(const AttentionConfig &config, bool hasBias);

  /// log2(e) * score(qk, bias), f32; `bias` (f32) may be null.
  Value emit(ImplicitLocOpBuilder &b, Value qk, Value bias,
             AttentionConfig::TanhFn tanh = nullptr) const;
  /// With score_mod evaluated at `pos`.
  Value emit(ImplicitLocOpBuilder &b, Value qk, Value bias,
             const ScorePosition &pos,
             AttentionConfig::TanhFn tanh = nullptr) const;
  /// The factor c when the log2-domain score is c * qk with c > 0: a target
  /// may then keep raw qk, take the row max on it and fold c into the
  /// exponent's FMA. None with a bias, a softcap or a scale <= 0.
  std::optional<double> linearFactor() const;

private:
  AttentionConfig folded;
  bool hasBias;
  double post = 1.0; // factor applied after the score function
};

} // namespace mlir::fa

#endif // FA_DIALECT_FA_TRANSFORMS_ATTENTIONCONFIG_H

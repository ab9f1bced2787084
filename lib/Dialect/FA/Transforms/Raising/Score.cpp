//===- Score.cpp - From the softmax input down to Q Kᵀ --------------------===//
//
// The softmax input is read as scale * qk + biases, optionally soft-capped,
// then masked by selects; what the masks and biases become is Masks.cpp's
// decision.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fa::raising;

/// The argument of `tanh` as (x, factor) with tanh(x * factor): a constant
/// multiplying or dividing it is the factor, otherwise the factor is 1.
static std::pair<ExprP, double> tanhArgument(const ExprP &tanh,
                                             ExprBuilder &eb) {
  ExprP inner = eb.deref(tanh->ops[0]);
  if (inner->kind != Expr::Mul && inner->kind != Expr::Div)
    return {tanh->ops[0], 1.0};
  for (unsigned side : {1u, 0u}) {
    if (side == 0 && inner->kind == Expr::Div)
      break;
    ExprP c = eb.deref(inner->ops[side]);
    if (!c->isConst())
      continue;
    double factor = inner->kind == Expr::Mul ? c->fval : 1.0 / c->fval;
    return {inner->ops[1 - side], factor};
  }
  return {tanh->ops[0], 1.0};
}

/// `bias * scale`: a bias added under a scale is scaled with the scores,
/// (qk + b) * c = c * qk + c * b (Falcon's ALiBi under its norm factor).
/// The product is a tree of its own (no origin), so that the bias operand
/// is rebuilt from it, or score_mod computes it.
static ExprP scaledBias(const ExprP &bias, double scale) {
  // Not expanded here: the bias's ops may be shared between layers.
  Type t = bias->type;
  auto c = std::make_shared<Expr>();
  c->kind = Expr::Const;
  c->fval = roundToType(scale, t);
  c->type = t;
  auto product = std::make_shared<Expr>();
  product->kind = Expr::Mul;
  product->ops = {bias, c};
  product->type = t;
  return product;
}

/// Parses `side` into `trial`, a copy of `form` with the other side
/// recorded; on success `form` becomes `trial`, on failure the ops recorded
/// on the way are forgotten.
static LogicalResult parseSide(const ExprP &side, ScoreForm &trial,
                               ScoreForm &form, ExprBuilder &eb,
                               std::string &why) {
  OpSet saved;
  if (eb.record)
    saved = *eb.record;
  if (succeeded(parseScore(side, trial, eb, why))) {
    form = trial;
    return success();
  }
  if (eb.record)
    *eb.record = saved;
  return failure();
}

/// `x * m` with neither side a constant: one side leads to Q Kᵀ, the other
/// is a zeroing factor (ZeroingFactors.cpp checks it). `why` holds the
/// remark for when neither side does.
static LogicalResult parseZeroingProduct(const ExprP &e, ScoreForm &form,
                                         ExprBuilder &eb, std::string &why) {
  for (unsigned i = 0; i < 2; ++i) {
    ScoreForm trial = form;
    trial.zeroingFactors.push_back(
        {e->ops[1 - i], form.selects.size(), form.biases.size()});
    std::string whyTrial;
    if (succeeded(parseSide(e->ops[i], trial, form, eb, whyTrial)))
      return success();
  }
  return failure();
}

LogicalResult mlir::fa::raising::parseScore(ExprP e, ScoreForm &form,
                                            ExprBuilder &eb,
                                            std::string &why) {
  e = eb.deref(e);
  if (std::optional<std::pair<ExprP, double>> fl = matchScoreFloor(e, eb);
      fl && isMaskFill(fl->second * form.scale)) {
    if (form.floor || form.softcap) {
      why = "the scores are clamped (" + describeNode(*e) +
            ") twice or inside a softcap";
      return failure();
    }
    form.floor = fl->second * form.scale;
    return parseScore(fl->first, form, eb, why);
  }
  switch (e->kind) {
  case Expr::Leaf: {
    if (!isContractionOp(e->value.getDefiningOp())) {
      why = "the scores do not come from a contraction (they come from " +
            describeNode(*e) + ")";
      return failure();
    }
    form.qk = e->value;
    form.qkAccess = e->access;
    return success();
  }
  case Expr::ExtF:
  case Expr::TruncF:
    return parseScore(e->ops[0], form, eb, why);
  case Expr::Mul:
  case Expr::Div: {
    // scale, or softcap * tanh(x / softcap).
    ExprP a = e->ops[0], c = eb.deref(e->ops[1]);
    if (e->kind == Expr::Mul && !c->isConst()) {
      std::swap(a, c);
      c = eb.deref(c);
    }
    if (!c->isConst()) {
      why = "the scores are multiplied by a non-constant (from " +
            describeNode(*eb.derefAll(c)) + ")";
      return e->kind == Expr::Mul && !form.softcap
                 ? parseZeroingProduct(e, form, eb, why)
                 : failure();
    }
    double f = e->kind == Expr::Mul ? c->fval : 1.0 / c->fval;
    ExprP t = eb.deref(a);
    if (e->kind == Expr::Mul && t->kind == Expr::Tanh && f > 0) {
      auto [inner, factor] = tanhArgument(t, eb);
      if (factor > 0) {
        if (form.softcap) {
          why = "two softcaps";
          return failure();
        }
        // Terms added after the softcap must be masks, which fa.attention
        // applies after it (Gemma-2); Masks.cpp checks.
        form.biasesAfterCap = form.biases.size();
        if (form.scale != 1.0) {
          why = "a scale applied after the softcap";
          return failure();
        }
        // f * tanh(x * factor) == f * tanh((factor * f) * x / f): softcap
        // f, and what of the inner factor is not 1 / f scales the scores
        // (a reciprocal rounded to bf16, as TOSA writes x / c).
        form.softcap = f;
        form.scale = factor * f;
        if (std::abs(form.scale - 1.0) < 1e-6)
          form.scale = 1.0;
        return parseScore(inner, form, eb, why);
      }
    }
    form.scale *= f;
    return parseScore(a, form, eb, why);
  }
  case Expr::Add: {
    // One side leads to Q Kᵀ, the other is a bias (scaled by the scales
    // applied after it). Inside a softcap whose tanh factor is not its
    // reciprocal the scale is not one the bias can carry.
    if (form.softcap && form.scale != 1.0) {
      why = "a bias inside the softcap scaled by " +
            llvm::formatv("{0:e}", form.scale).str() +
            " (the tanh's factor times the softcap is not 1): "
            "fa.attention adds its bias unscaled";
      return failure();
    }
    std::string whyFirst;
    for (unsigned i = 0; i < 2; ++i) {
      ScoreForm trial = form;
      // Recorded before the inner side is parsed, so that a softcap inside
      // sees that this bias is added after it.
      trial.biases.push_back(form.scale == 1.0
                                 ? e->ops[1 - i]
                                 : scaledBias(e->ops[1 - i], form.scale));
      std::string whyTrial;
      if (succeeded(parseSide(e->ops[i], trial, form, eb, whyTrial)))
        return success();
      if (i == 0)
        whyFirst = whyTrial;
    }
    why = whyFirst;
    return failure();
  }
  case Expr::Select: {
    ExprP t = eb.deref(e->ops[1]), f = eb.deref(e->ops[2]);
    SelectTerm term;
    term.cond = e->ops[0];
    ExprP rest;
    if (f->isConst() && isMaskFill(f->fval * form.scale)) {
      term.visibleWhenTrue = true;
      term.fill = f->fval;
      rest = e->ops[1];
    } else if (t->isConst() && isMaskFill(t->fval * form.scale)) {
      term.visibleWhenTrue = false;
      term.fill = t->fval;
      rest = e->ops[2];
    } else {
      why = "a select that is not a mask (" + describeNode(*e) +
            ": neither side is -inf or <= -1e4)";
      return failure();
    }
    if (form.softcap) {
      why = "a mask applied before the softcap";
      return failure();
    }
    term.fill *= form.scale;
    form.selects.push_back(term);
    return parseScore(rest, form, eb, why);
  }
  default:
    why = "the scores go through an op that is not a scale, bias, mask, "
          "softcap or cast: " +
          describeNode(*e);
    return failure();
  }
}

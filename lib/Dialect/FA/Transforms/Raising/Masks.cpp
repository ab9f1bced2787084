//===- Masks.cpp - What the masks and biases of the scores become ---------===//
//
// Biases and select conditions that depend only on the (row, column)
// position and constants (iota compares, constant triangles or slices of
// them, casts, additive -inf / -1e9 tensors) are evaluated at compile time
// on the whole seq_q x seq_k grid (Expr.cpp's evaluateOnGrid); the visible
// set is then classified as causal (top-left or bottom-right), a sliding
// window (left, right), or no mask. Data-dependent terms become the bias
// operand; a constant that is no such mask stays a bias too.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa::raising;

bool mlir::fa::raising::isMaskFill(double v) {
  return std::isinf(v) ? v < 0 : v <= kMaskFillThreshold;
}

namespace {
/// The visible (row, column) pairs and whether hidden ones are -inf.
struct Grid {
  int64_t rows, cols;
  std::vector<char> visible;
  bool finiteFill = false;
  bool hasHidden() const {
    return llvm::is_contained(visible, 0);
  }
};
} // namespace

/// Matches a visibility grid with causal / window masks of either
/// alignment.
static bool matchGridAligned(const Grid &g, bool bottomRight, int64_t off,
                             MaskConfig &out);

/// Prefers the simplest description: causal over a window, top-left over
/// bottom-right.
static bool matchGrid(const Grid &g, MaskConfig &out) {
  MaskConfig topLeft, bottomRight;
  bool tl = matchGridAligned(g, false, 0, topLeft);
  bool br = g.rows != g.cols &&
            matchGridAligned(g, true, g.cols - g.rows, bottomRight);
  auto cost = [](const MaskConfig &m) {
    return (m.window ? 2 : 0) + (m.bottomRight ? 1 : 0);
  };
  if (!tl && !br)
    return false;
  const MaskConfig &m =
      tl && (!br || cost(topLeft) <= cost(bottomRight)) ? topLeft : bottomRight;
  // Only the mask's fields: a data-dependent bias found beside the mask
  // (ALiBi and a causal mask, BLOOM) stays.
  out.causal = m.causal;
  out.window = m.window;
  out.bottomRight = m.bottomRight;
  return true;
}

static bool matchGridAligned(const Grid &g, bool bottomRight, int64_t off,
                             MaskConfig &out) {
  int64_t big = g.rows + g.cols + 1;
  {
    int64_t right = -big, left = -big;
    bool anyRight = false, anyLeft = false;
    for (int64_t i = 0; i < g.rows; ++i) {
      int64_t lo = -1, hi = -1;
      for (int64_t j = 0; j < g.cols; ++j)
        if (g.visible[i * g.cols + j]) {
          if (lo < 0)
            lo = j;
          hi = j;
        }
      if (lo < 0)
        continue;
      if (hi < g.cols - 1) {
        right = std::max(right, hi - (i + off));
        anyRight = true;
      }
      if (lo > 0) {
        left = std::max(left, (i + off) - lo);
        anyLeft = true;
      }
    }
    if (!anyRight)
      right = big;
    if (!anyLeft)
      left = big;
    if (right < 0 || left < 0)
      return false;
    bool same = true;
    for (int64_t i = 0; i < g.rows && same; ++i)
      for (int64_t j = 0; j < g.cols; ++j) {
        bool v = j <= i + off + right && j >= i + off - left;
        if (v != bool(g.visible[i * g.cols + j])) {
          same = false;
          break;
        }
      }
    if (!same)
      return false;
    out.causal = right == 0;
    out.bottomRight = bottomRight && (out.causal || left != big || right != big);
    if (left != big || (right != big && right != 0))
      out.window = std::make_pair(left == big ? big : left,
                                  right == big ? big : right);
    if (!out.causal && !out.window)
      out.bottomRight = false;
    return true;
  }
}

LogicalResult mlir::fa::raising::analyzeMasks(const ScoreForm &form,
                                              int rowAtom, int colAtom,
                                              int64_t seqQ, int64_t seqK,
                                              AtomTable &atoms,
                                              MaskConfig &out,
                                              std::string &why) {
  ExprBuilder eb{atoms, nullptr, {}};
  bool dynamic = ShapedType::isDynamic(seqQ) || ShapedType::isDynamic(seqK);
  if (dynamic && (!form.selects.empty() || !form.biases.empty())) {
    why = "masks and biases with dynamic sequence lengths are not supported";
    return failure();
  }
  Grid grid{seqQ, seqK, std::vector<char>(dynamic ? 0 : seqQ * seqK, 1)};
  bool anyStatic = false;
  SmallVector<std::string> parts;
  /// The constant terms folded into the grid, for the bias fallback.
  struct StaticTerm {
    ExprP e;
    bool isSelect;
    bool visibleWhenTrue;
    double fill;
  };
  SmallVector<StaticTerm> staticTerms;
  auto setData = [&](Value v, Access a, bool boolean,
                     bool visibleWhenTrue) -> LogicalResult {
    if (out.bias) {
      why = "more than one data-dependent mask or bias";
      return failure();
    }
    // The tensor the program holds, not a broadcast view of it.
    std::tie(v, a) = resolveViews(v, std::move(a), atoms, nullptr);
    out.bias = v;
    out.biasAccess = std::move(a);
    out.biasIsBoolean = boolean;
    out.boolVisibleWhenTrue = visibleWhenTrue;
    return success();
  };
  auto originOf = [&](ExprP e) -> std::pair<Value, Access> {
    ExprP d = eb.deref(e);
    if (e->kind == Expr::Leaf)
      return {e->value, e->access};
    if (d->origin)
      return {d->origin, d->originAccess};
    return {};
  };

  for (const SelectTerm &s : form.selects) {
    std::string w;
    FailureOr<std::vector<double>> cond =
        evaluateOnGrid(s.cond, rowAtom, colAtom, seqQ, seqK, eb, w);
    if (failed(cond)) {
      if (w != "the mask depends on data") {
        why = w;
        return failure();
      }
      auto [v, a] = originOf(s.cond);
      if (!v || !getElementTypeOrSelf(v.getType()).isInteger(1)) {
        why = "a data-dependent mask condition that is not a boolean tensor";
        return failure();
      }
      if (!std::isinf(s.fill)) {
        why = "a data-dependent mask with a finite fill: a fully masked row "
              "would average V in the original but give 0 in fa.attention";
        return failure();
      }
      if (failed(setData(v, a, true, s.visibleWhenTrue)))
        return failure();
      parts.push_back("boolean mask as bias");
      continue;
    }
    anyStatic = true;
    staticTerms.push_back({s.cond, true, s.visibleWhenTrue, s.fill});
    grid.finiteFill |= !std::isinf(s.fill);
    for (size_t k = 0; k < cond->size(); ++k)
      if (((*cond)[k] != 0) != s.visibleWhenTrue)
        grid.visible[k] = 0;
  }

  for (const ExprP &bias : form.biases) {
    std::string w;
    FailureOr<std::vector<double>> vals =
        evaluateOnGrid(bias, rowAtom, colAtom, seqQ, seqK, eb, w);
    bool isMask = succeeded(vals);
    if (isMask)
      for (double v : *vals)
        if (v != 0.0 && !isMaskFill(v)) {
          isMask = false;
          break;
        }
    if (!isMask) {
      if (succeeded(vals) || w == "the mask depends on data" ||
          w == "the mask depends on the batch or head index") {
        auto [v, a] = originOf(bias);
        if (!v) {
          // Computed inside the op that adds it: rebuilt on its own.
          if (out.bias || out.biasExpr) {
            why = "more than one data-dependent mask or bias";
            return failure();
          }
          out.biasExpr = bias;
          parts.push_back("bias");
          continue;
        }
        if (out.biasExpr || failed(setData(v, a, false, true))) {
          why = "more than one data-dependent mask or bias";
          return failure();
        }
        parts.push_back("bias");
        continue;
      }
      why = w;
      return failure();
    }
    anyStatic = true;
    staticTerms.push_back({bias, false, true, 0.0});
    for (size_t k = 0; k < vals->size(); ++k)
      if ((*vals)[k] != 0.0) {
        grid.visible[k] = 0;
        grid.finiteFill |= !std::isinf((*vals)[k]);
      }
  }

  if (anyStatic && grid.hasHidden()) {
    // -inf and -1e9 agree only while every row keeps a visible key.
    bool emptyRow = false;
    for (int64_t i = 0; i < seqQ && !emptyRow; ++i)
      emptyRow = !llvm::is_contained(
          ArrayRef<char>(grid.visible).slice(i * seqK, seqK), 1);
    if (emptyRow && grid.finiteFill) {
      why = "a finite mask fill (like -1e9) hides every key of some row: the "
            "original averages V there, fa.attention gives 0";
      return failure();
    }
    if (!matchGrid(grid, out)) {
      // Keep a constant that is no causal mask or window as the bias: an
      // additive tensor as it is, a boolean one with a -inf fill as 0 / -inf.
      why = "a constant mask that is neither causal nor a sliding window";
      if (staticTerms.size() != 1 || out.bias || out.biasExpr)
        return failure();
      const StaticTerm &t = staticTerms.front();
      if (t.isSelect && !std::isinf(t.fill))
        return failure();
      auto [v, a] = originOf(t.e);
      if (!v || (t.isSelect &&
                 !getElementTypeOrSelf(v.getType()).isInteger(1)))
        return failure();
      if (failed(setData(v, a, t.isSelect, t.visibleWhenTrue)))
        return failure();
      why.clear();
      parts.push_back("constant bias (not causal or a window)");
      out.summary = llvm::join(parts, ", ");
      return success();
    }
    std::string s;
    if (out.causal)
      s = "causal";
    if (out.window)
      s += std::string(s.empty() ? "" : " ") + "window [" +
           std::to_string(out.window->first) + ", " +
           std::to_string(out.window->second) + "]";
    if (out.bottomRight)
      s += " bottom_right";
    parts.insert(parts.begin(), s);
  }
  out.summary = llvm::join(parts, ", ");
  return success();
}

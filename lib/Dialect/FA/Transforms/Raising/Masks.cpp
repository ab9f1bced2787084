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

#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

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
                             PositionMask &out);

/// Prefers the simplest description: causal over a window, top-left over
/// bottom-right.
static std::optional<PositionMask> matchGrid(const Grid &g) {
  PositionMask topLeft, bottomRight;
  bool tl = matchGridAligned(g, false, 0, topLeft);
  bool br = g.rows != g.cols &&
            matchGridAligned(g, true, g.cols - g.rows, bottomRight);
  auto cost = [](const PositionMask &m) {
    return (m.window ? 2 : 0) + (m.bottomRight ? 1 : 0);
  };
  if (!tl && !br)
    return std::nullopt;
  if (tl && (!br || cost(topLeft) <= cost(bottomRight)))
    return topLeft;
  return bottomRight;
}

static bool matchGridAligned(const Grid &g, bool bottomRight, int64_t off,
                             PositionMask &out) {
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

static constexpr const char *kDiffersPerBatch =
    "the mask differs between batch elements (positions per sequence, e.g. "
    "packed sequences)";

/// `e` on the (row, key) grid; a term that reads the batch index (masks
/// built per batch element from a batch arange) counts when it is the same
/// for every batch element.
FailureOr<std::vector<double>>
mlir::fa::raising::evaluatePositions(const ExprP &e, int rowAtom, int colAtom,
                                     ArrayRef<int> batchAtoms, ExprBuilder &eb,
                                     std::string &why) {
  FailureOr<std::vector<double>> vals = evaluateOnGrid(
      e, rowAtom, colAtom, eb.atoms.size(rowAtom), eb.atoms.size(colAtom), eb,
      why);
  if (succeeded(vals) || why != kDependsOnBatchOrHead || batchAtoms.empty())
    return vals;
  SmallVector<int> grid(batchAtoms.begin(), batchAtoms.end());
  grid.push_back(rowAtom);
  grid.push_back(colAtom);
  std::string w;
  FailureOr<std::vector<double>> all = evaluateOnAtoms(e, grid, eb, w);
  if (failed(all)) {
    // A data read, an unmodelled op: the more telling reason.
    if (w != kDependsOnBatchOrHead)
      why = w;
    return failure();
  }
  size_t slice = eb.atoms.size(rowAtom) * eb.atoms.size(colAtom);
  for (size_t k = slice; k < all->size(); ++k)
    if ((*all)[k] != (*all)[k % slice]) {
      why = kDiffersPerBatch;
      return failure();
    }
  all->resize(slice);
  return all;
}

/// A mask written as a value: select(cond, 0, fill) or select(cond, fill,
/// 0) (transformers' `where(mask, 0, finfo.min)`), through float casts.
std::optional<SelectTerm> mlir::fa::raising::maskSelect(ExprP e,
                                                        ExprBuilder &eb) {
  e = eb.derefAll(e);
  while (e->kind == Expr::ExtF || e->kind == Expr::TruncF)
    e = eb.derefAll(e->ops[0]);
  if (e->kind != Expr::Select)
    return std::nullopt;
  ExprP t = eb.derefAll(e->ops[1]), f = eb.derefAll(e->ops[2]);
  if (!t->isConst() || !f->isConst())
    return std::nullopt;
  if (t->fval == 0.0 && isMaskFill(f->fval))
    return SelectTerm{e->ops[0], true, f->fval};
  if (f->fval == 0.0 && isMaskFill(t->fval))
    return SelectTerm{e->ops[0], false, t->fval};
  return std::nullopt;
}

/// Whether `e` reads a data tensor with at least `elements` elements (a
/// [.., Sq, Sk] mask the program takes as input).
static bool readsDataOfSize(const ExprP &e, int64_t elements,
                            ExprBuilder &eb) {
  ExprP d = e->kind == Expr::Leaf ? eb.derefAll(e) : e;
  if (d->kind == Expr::Leaf) {
    auto t = dyn_cast<RankedTensorType>(d->value.getType());
    Attribute attr;
    return t && t.hasStaticShape() && t.getNumElements() >= elements &&
           !matchPattern(d->value, m_Constant(&attr));
  }
  if (d->kind == Expr::Extract) {
    Access fresh = eb.atoms.freshAccess(
        cast<RankedTensorType>(d->value.getType()).getShape());
    if (readsDataOfSize(eb.leaf(d->value, fresh), elements, eb))
      return true;
  }
  return llvm::any_of(d->ops, [&](const ExprP &o) {
    return readsDataOfSize(o, elements, eb);
  });
}

namespace {
/// The constant terms folded into the grid, for the bias fallback.
struct StaticTerm {
  ExprP e;
  bool isSelect;
  bool visibleWhenTrue;
  double fill;
  bool afterCap = false;
  /// The condition of the mask term this positional part was split from
  /// (causal AND padding in one select); null for a term of its own.
  ExprP splitFrom = nullptr;
};
} // namespace

/// The mask term other than the key padding mask's own (`padCond`, whose
/// positional parts were split from it) that hides keys too, described;
/// empty when there is none. The rows the padding term hides entirely are
/// uniform in the original only when its one fill hides everything hidden.
static std::string otherMaskTerm(ArrayRef<StaticTerm> staticTerms,
                                 const ExprP &padCond, const MaskConfig &m,
                                 ExprBuilder &eb) {
  for (const StaticTerm &t : staticTerms)
    if (t.splitFrom != padCond)
      return "the positional mask is another term";
  for (const ExprP &t : m.scoreTerms)
    if (std::optional<SelectTerm> s = maskSelect(t, eb))
      return "a score_mod mask term (" + describeNode(*eb.derefAll(s->cond)) +
             ") adds its own fill";
  if (!m.maskTerms.empty())
    return "a mask_mod condition (" +
           describeNode(*eb.derefAll(m.maskTerms.front().first)) +
           ") hides keys with -inf";
  if (!m.scoreSelects.empty())
    return "a score_mod select (" +
           describeNode(*eb.derefAll(m.scoreSelects.front().cond)) +
           ") hides keys with its own fill";
  return "";
}

namespace {
/// A key padding mask split from a mask term, and that term: its condition,
/// polarity and fill, how it is applied and whether the padding is all of
/// its condition.
struct PaddingTerm {
  KeyPadding pad;
  SelectTerm term;
  /// where(c, 0, fill) added to the scores; else select(c, s, fill).
  bool additive = false;
  /// Added before the softcap.
  bool beforeCap = false;
  bool alone = true;
};
} // namespace

/// where(keep, 0, fill) as an f32 tree, visible where `keep` is
/// `visibleWhenTrue`: the term to add in score_mod.
static ExprP maskValue(const ExprP &keep, bool visibleWhenTrue, double fill,
                       MLIRContext *ctx) {
  auto constant = [&](double v) {
    auto c = std::make_shared<Expr>();
    c->kind = Expr::Const;
    c->fval = static_cast<float>(v);
    c->type = Float32Type::get(ctx);
    return c;
  };
  auto sel = std::make_shared<Expr>();
  sel->kind = Expr::Select;
  sel->type = Float32Type::get(ctx);
  sel->ops = {keep, constant(visibleWhenTrue ? 0.0 : fill),
              constant(visibleWhenTrue ? fill : 0.0)};
  return sel;
}

/// Places a key padding mask on the op as a condition on the [B, Sk]
/// tensor the program holds, read at (batch, key) in a region that
/// captures it: O(Sk) data instead of a [B, 1, Sq, Sk] bias, and a
/// mask_mod where the fill allows it, so that targets may skip the key
/// tiles it hides. Each form computes the program's function:
/// * -inf: mask_mod (a row hidden entirely is a NaN row of the program,
///   soundness rule 2);
/// * a finite fill with no other hidden position and no softcap: the term
///   in score_mod as the program applies it (added, or selecting the fill),
///   exact whatever the rows hold;
/// * a finite fill that absorbs the scores, as the only term that hides
///   keys (with the causal / window parts split from its own condition, or
///   after a softcap): mask_mod, and the rows it hides entirely become the
///   mean of V (EmptyRows.cpp), as they are uniform in the program;
/// * a term added before a softcap is a bias there (tanh makes its fill a
///   finite score): score_mod, when it is the padding alone.
static LogicalResult placeKeyPadding(
    const PaddingTerm &p, bool softcap, bool positionalHidden,
    ArrayRef<StaticTerm> staticTerms, MaskConfig &out, ExprBuilder &eb,
    llvm::function_ref<bool(const ExprP &, bool)> fits, std::string &why) {
  ExprP keep = keyPaddingCondition(p.pad, eb);
  bool visible = p.term.visibleWhenTrue;
  double fill = p.term.fill;
  MLIRContext *ctx = p.pad.tensor.getContext();
  std::string fillText = llvm::formatv("{0:e}", fill).str();
  if (!fits(keep, true)) {
    why = "the key padding mask cannot be read in a region";
    return failure();
  }
  auto inScoreMod = [&]() -> LogicalResult {
    if (p.additive) {
      // Before the other score_mod terms, where a bias operand is added.
      out.scoreTerms.insert(out.scoreTerms.begin(),
                            maskValue(keep, visible, fill, ctx));
      return success();
    }
    // One fill only: the order nested selects apply in is not kept.
    for (const SelectTerm &t : out.scoreSelects)
      if (t.fill != fill) {
        why = "a key padding mask with a finite fill (" + fillText +
              ") and a score_mod select with another fill";
        return failure();
      }
    out.scoreSelects.insert(out.scoreSelects.begin(), {keep, visible, fill});
    return success();
  };
  if (p.beforeCap) {
    if (!p.alone) {
      why = "a key padding mask added before the softcap together with "
            "other conditions: the softcap makes its fill a finite score, "
            "which the op's masks do not give";
      return failure();
    }
    return inScoreMod();
  }
  if (std::isinf(fill)) {
    out.maskTerms.push_back({keep, visible});
    return success();
  }
  // A finite fill beside a data bias: the sums round otherwise.
  if (out.bias || out.biasExpr) {
    why = "a key padding mask with a finite fill (" + fillText +
          ") and a data-dependent bias";
    return failure();
  }
  if (!positionalHidden && !softcap)
    return inScoreMod();
  // With a finite fill, a row whose every key is hidden averages V over all
  // keys in the original; -inf from the op's masks would change that.
  // Exact when that one fill hides everything hidden and absorbs the
  // scores: such a row is uniform in the original. The positional parts
  // split from the padding's own condition are that term.
  std::string other = otherMaskTerm(staticTerms, p.term.cond, out, eb);
  if (!other.empty() || fill > kAbsorbingFill) {
    why = "a key padding mask with a finite fill (" + fillText + ") next to " +
          (positionalHidden ? "a causal or window mask" : "a softcap") + ": " +
          (other.empty()
               ? "the fill is above -2^100, so a row whose every key is "
                 "hidden is a softmax of its scores in the original"
               : other + ", so a row whose every key is hidden mixes two "
                         "fills in the original") +
          ", which fa.attention cannot express";
    return failure();
  }
  out.averageEmptyRows = true;
  out.maskTerms.push_back({keep, visible});
  return success();
}

namespace {
/// One analyzeMasks call: the terms of the scores are visited once each
/// (selects, then biases), folding what is a function of the positions
/// into the grid and placing the rest on `out`; the grid is classified at
/// the end.
class MaskAnalysis {
public:
  MaskAnalysis(int rowAtom, int colAtom, ArrayRef<int> batchAtoms,
               ArrayRef<int> headAtoms, int64_t seqQ, int64_t seqK,
               AtomTable &atoms, MaskConfig &out, std::string &why)
      : rowAtom(rowAtom), colAtom(colAtom), batchAtoms(batchAtoms),
        headAtoms(headAtoms), seqQ(seqQ), seqK(seqK), atoms(atoms), out(out),
        why(why), eb{atoms, nullptr, {}} {}

  LogicalResult run(const ScoreForm &program);

private:
  bool fits(const ExprP &e, bool asMask);
  void secondTerm();
  LogicalResult setData(Value v, Access a, bool boolean, bool visibleWhenTrue);
  std::pair<Value, Access> originOf(const ExprP &e);
  void hide(const std::vector<double> &vals, bool visibleWhenTrue, double fill);
  LogicalResult splitMask(const SelectTerm &s, bool additive, bool beforeCap,
                          std::string &w);
  LogicalResult analyzeSelect(const SelectTerm &s);
  LogicalResult analyzeBias(size_t index, const ExprP &bias);
  LogicalResult analyzeDataBias(const ExprP &bias, bool afterCap,
                                FailureOr<std::vector<double>> &vals,
                                const std::string &w);
  bool staticToRegions();
  FailureOr<bool> classifyGrid();
  std::string describePositionMask() const;

  int rowAtom, colAtom;
  ArrayRef<int> batchAtoms, headAtoms;
  int64_t seqQ, seqK;
  AtomTable &atoms;
  MaskConfig &out;
  std::string &why;
  ExprBuilder eb;
  ScoreForm form;
  // Terms that are none of causal, window, key padding or a [.., Sq, Sk]
  // input go into the op's modifier regions (ToRegions.cpp).
  std::optional<RegionRoles> roles;
  Grid grid;
  bool anyStatic = false;
  SmallVector<std::string> parts;
  SmallVector<StaticTerm> staticTerms;
  // The key padding mask found by splitting a condition, and its term.
  std::optional<PaddingTerm> pad;
};
} // namespace

bool MaskAnalysis::fits(const ExprP &e, bool asMask) {
  if (!roles)
    roles = regionRoles(e, batchAtoms, headAtoms, rowAtom, colAtom);
  std::string w;
  return regionFit(e, *roles, atoms, asMask, w) == RegionFit::Fits;
}

/// fa.attention has one bias operand: names the term already taken.
void MaskAnalysis::secondTerm() {
  std::string first =
      out.bias ? (out.bias.getDefiningOp() ? "'" +
                                                 out.bias.getDefiningOp()
                                                     ->getName()
                                                     .getStringRef()
                                                     .str() +
                                                 "'"
                                           : std::string("a function argument"))
               : std::string("a bias computed with the scores");
  why = "more than one data-dependent mask or bias (the first from " + first +
        ")";
}

LogicalResult MaskAnalysis::setData(Value v, Access a, bool boolean,
                                    bool visibleWhenTrue) {
  if (out.bias) {
    secondTerm();
    return failure();
  }
  // The tensor the program holds, not a broadcast view of it.
  std::tie(v, a) = resolveViews(v, std::move(a), atoms, nullptr);
  out.bias = v;
  out.biasAccess = std::move(a);
  out.biasIsBoolean = boolean;
  out.boolVisibleWhenTrue = visibleWhenTrue;
  return success();
}

std::pair<Value, Access> MaskAnalysis::originOf(const ExprP &e) {
  ExprP d = eb.deref(e);
  if (e->kind == Expr::Leaf)
    return {e->value, e->access};
  if (d->origin)
    return {d->origin, d->originAccess};
  return {};
}

/// Hides `vals` (a condition on the grid) where it is not
/// `visibleWhenTrue`.
void MaskAnalysis::hide(const std::vector<double> &vals, bool visibleWhenTrue,
                        double fill) {
  anyStatic = true;
  for (size_t k = 0; k < vals.size(); ++k)
    if ((vals[k] != 0) != visibleWhenTrue) {
      grid.visible[k] = 0;
      grid.finiteFill |= !std::isinf(fill);
    }
}

/// A condition split into positional parts and one key padding read;
/// changes nothing unless every part is one of those. `additive`: the
/// term is where(c, 0, fill) added to the scores (before the softcap
/// when `beforeCap`), else a select of them.
LogicalResult MaskAnalysis::splitMask(const SelectTerm &s, bool additive,
                                      bool beforeCap, std::string &w) {
  SmallVector<std::pair<ExprP, bool>> conjuncts;
  splitConjuncts(s.cond, s.visibleWhenTrue, eb, conjuncts);
  SmallVector<std::pair<std::vector<double>, bool>> positional;
  SmallVector<ExprP> positionalConds;
  SmallVector<std::pair<ExprP, bool>> inRegion;
  std::optional<KeyPadding> found;
  bool foundVisible = true;
  for (const auto &[cond, visible] : conjuncts) {
    FailureOr<std::vector<double>> vals =
        evaluatePositions(cond, rowAtom, colAtom, batchAtoms, eb, w);
    if (succeeded(vals)) {
      positional.push_back({std::move(*vals), visible});
      positionalConds.push_back(cond);
      continue;
    }
    if (!isRegionCandidate(w))
      return failure();
    std::string positionsWhy = w;
    FailureOr<KeyPadding> p =
        matchKeyPadding(cond, batchAtoms, rowAtom, colAtom, eb, w);
    if (failed(p)) {
      // Nothing read from data: why the positions failed tells more.
      if (w == kReadsNoData)
        w = positionsWhy;
      // A mask_mod condition; exact with a -inf fill only (a finite
      // fill over a whole row averages V there).
      if (std::isinf(s.fill) && fits(cond, true)) {
        inRegion.push_back({cond, visible});
        continue;
      }
      return failure();
    }
    if (found || pad) {
      w = "more than one key padding mask";
      return failure();
    }
    found = *p;
    foundVisible = visible;
  }
  if (!found && inRegion.empty()) {
    w = "the mask condition reads no key padding mask";
    return failure();
  }
  // Recorded like any positional term: the grid says what they are.
  for (auto [k, part] : llvm::enumerate(positional)) {
    hide(part.first, part.second, s.fill);
    staticTerms.push_back(
        {positionalConds[k], true, part.second, s.fill, false, s.cond});
  }
  out.maskTerms.append(inRegion);
  if (found)
    pad = PaddingTerm{*found,
                      {s.cond, foundVisible, s.fill},
                      additive,
                      beforeCap,
                      conjuncts.size() == 1};
  return success();
}

LogicalResult MaskAnalysis::analyzeSelect(const SelectTerm &s) {
  std::string w;
  FailureOr<std::vector<double>> cond =
      evaluatePositions(s.cond, rowAtom, colAtom, batchAtoms, eb, w);
  if (succeeded(cond)) {
    staticTerms.push_back({s.cond, true, s.visibleWhenTrue, s.fill});
    grid.finiteFill |= !std::isinf(s.fill);
    hide(*cond, s.visibleWhenTrue, s.fill);
    return success();
  }
  if (!isRegionCandidate(w)) {
    why = w;
    return failure();
  }
  std::string splitWhy;
  if (succeeded(
          splitMask(s, /*additive=*/false, /*beforeCap=*/false, splitWhy)))
    return success();
  if (w != kDependsOnData && w != kDependsOnBatchOrHead) {
    why = w;
    return failure();
  }
  // A finite fill replaces the score in score_mod, as the program
  // does (before a softcap it would be capped: not then). One fill
  // only: the order nested selects apply in is not kept.
  bool sameFill = llvm::all_of(
      out.scoreSelects, [&](const SelectTerm &t) { return t.fill == s.fill; });
  if (!std::isinf(s.fill) && !form.softcap && sameFill && fits(s.cond, true)) {
    out.scoreSelects.push_back(s);
    return success();
  }
  auto [v, a] = originOf(s.cond);
  if (!v || !getElementTypeOrSelf(v.getType()).isInteger(1)) {
    why = "a data-dependent mask condition (" +
          describeNode(*eb.derefAll(s.cond)) +
          ") that is not a boolean tensor nor a key padding mask (" + splitWhy +
          ")";
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
  return success();
}

/// A bias that is not a 0 / fill mask of the positions: data, or a
/// function of the positions with other values.
LogicalResult
MaskAnalysis::analyzeDataBias(const ExprP &bias, bool afterCap,
                              FailureOr<std::vector<double>> &vals,
                              const std::string &w) {
  bool dataLike = succeeded(vals) || w == kDependsOnData ||
                  w == kDependsOnBatchOrHead || w == kDiffersPerBatch;
  if (!dataLike && !isRegionCandidate(w)) {
    why = w;
    return failure();
  }
  // A mask spelled as a value (where(mask, 0, fill)) that depends on
  // data: positions and key padding, or a mask the program takes as
  // a [.., Sq, Sk] input; nothing else is materialized.
  std::optional<SelectTerm> m =
      failed(vals) ? maskSelect(bias, eb) : std::nullopt;
  std::string splitWhy;
  if (m && succeeded(splitMask(*m, /*additive=*/true, form.softcap && !afterCap,
                               splitWhy)))
    return success();
  // Added in score_mod: a bias, or a mask with a finite fill whose
  // whole value is added (exact, fully hidden rows included).
  if (!afterCap && fits(bias, false)) {
    out.scoreTerms.push_back(bias);
    return success();
  }
  if (!dataLike) {
    why = w;
    return failure();
  }
  if (m && !readsDataOfSize(m->cond, seqQ * seqK, eb)) {
    why = "a mask computed from data that is neither a function of "
          "the positions nor a key padding mask (" +
          splitWhy +
          "): raising it would materialize a [.., seq_q, seq_k] bias "
          "the program does not take as input";
    return failure();
  }
  if (afterCap) {
    why = "a bias added after the softcap that is no mask "
          "(fa.attention adds its bias before the softcap)";
    return failure();
  }
  auto [v, a] = originOf(bias);
  if (!v) {
    // Computed inside the op that adds it: rebuilt on its own.
    if (out.bias || out.biasExpr) {
      secondTerm();
      return failure();
    }
    out.biasExpr = bias;
    parts.push_back("bias");
    return success();
  }
  if (out.biasExpr || failed(setData(v, a, false, true))) {
    secondTerm();
    return failure();
  }
  parts.push_back("bias");
  return success();
}

LogicalResult MaskAnalysis::analyzeBias(size_t index, const ExprP &bias) {
  bool afterCap = index < form.biasesAfterCap;
  std::string w;
  FailureOr<std::vector<double>> vals =
      evaluatePositions(bias, rowAtom, colAtom, batchAtoms, eb, w);
  bool isMask = succeeded(vals) && llvm::all_of(*vals, [](double v) {
                  return v == 0.0 || isMaskFill(v);
                });
  if (!isMask)
    return analyzeDataBias(bias, afterCap, vals, w);
  anyStatic = true;
  staticTerms.push_back({bias, false, true, 0.0, afterCap});
  for (size_t k = 0; k < vals->size(); ++k)
    if ((*vals)[k] != 0.0) {
      grid.visible[k] = 0;
      grid.finiteFill |= !std::isinf((*vals)[k]);
    }
  return success();
}

/// Neither causal nor a window (a prefix-LM mask, a band the attributes do
/// not state): each term in a region with its own fill, when none reads a
/// [.., Sq, Sk] tensor.
bool MaskAnalysis::staticToRegions() {
  if (staticTerms.empty())
    return false;
  MaskConfig trial = out;
  for (const StaticTerm &t : staticTerms) {
    if (!t.isSelect) {
      if (t.afterCap || !fits(t.e, false))
        return false;
      trial.scoreTerms.push_back(t.e);
    } else if (std::isinf(t.fill)) {
      if (!fits(t.e, true))
        return false;
      trial.maskTerms.push_back({t.e, t.visibleWhenTrue});
    } else {
      if (form.softcap || !fits(t.e, true))
        return false;
      trial.scoreSelects.push_back({t.e, t.visibleWhenTrue, t.fill});
    }
  }
  out = std::move(trial);
  return true;
}

std::string MaskAnalysis::describePositionMask() const {
  std::string s;
  if (out.causal)
    s = "causal";
  if (out.window)
    s += std::string(s.empty() ? "" : " ") + "window [" +
         std::to_string(out.window->first) + ", " +
         std::to_string(out.window->second) + "]";
  if (out.bottomRight)
    s += " bottom_right";
  return s;
}

/// What the positions hidden on the grid become: causal / window
/// attributes, regions, or a constant bias. True when the analysis is
/// complete (the constant-bias fallback).
FailureOr<bool> MaskAnalysis::classifyGrid() {
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
  std::optional<PositionMask> pos = matchGrid(grid);
  bool inRegions = !pos && staticToRegions();
  if (!pos && !inRegions) {
    // Keep a constant that is no causal mask or window as the bias: an
    // additive tensor as it is, a boolean one with a -inf fill as 0 / -inf.
    why = "a constant mask that is neither causal nor a sliding window";
    if (staticTerms.size() != 1 || out.bias || out.biasExpr || pad)
      return failure();
    const StaticTerm &t = staticTerms.front();
    if (t.afterCap)
      return failure();
    if (t.isSelect && !std::isinf(t.fill))
      return failure();
    auto [v, a] = originOf(t.e);
    if (!v || (t.isSelect && !getElementTypeOrSelf(v.getType()).isInteger(1)))
      return failure();
    if (failed(setData(v, a, t.isSelect, t.visibleWhenTrue)))
      return failure();
    why.clear();
    parts.push_back("constant bias (not causal or a window)");
    out.summary = llvm::join(parts, ", ");
    return true;
  }
  // Only the positional part: a bias or boolean mask found above stays.
  if (pos) {
    static_cast<PositionMask &>(out) = *pos;
    parts.insert(parts.begin(), describePositionMask());
  }
  return false;
}

LogicalResult MaskAnalysis::run(const ScoreForm &program) {
  bool dynamic = ShapedType::isDynamic(seqQ) || ShapedType::isDynamic(seqK);
  if (dynamic && (!program.selects.empty() || !program.biases.empty() ||
                  !program.zeroingFactors.empty())) {
    why = "masks and biases with dynamic sequence lengths are not supported";
    return failure();
  }
  if (failed(
          checkZeroingFactors(program, rowAtom, colAtom, batchAtoms, eb, why)))
    return failure();
  // A mask added to a bias (T5's position bias, sdpa's attn_mask) is
  // analyzed on its own.
  form = program;
  splitMaskSummands(form, eb, [&](const ExprP &e) {
    if (maskSelect(e, eb))
      return true;
    std::string w;
    FailureOr<std::vector<double>> vals =
        evaluatePositions(e, rowAtom, colAtom, batchAtoms, eb, w);
    return succeeded(vals) && llvm::all_of(*vals, [](double v) {
             return v == 0.0 || isMaskFill(v);
           });
  });
  grid = Grid{seqQ, seqK, std::vector<char>(dynamic ? 0 : seqQ * seqK, 1)};
  for (const SelectTerm &s : form.selects)
    if (failed(analyzeSelect(s)))
      return failure();
  for (auto [index, bias] : llvm::enumerate(form.biases))
    if (failed(analyzeBias(index, bias)))
      return failure();
  if (anyStatic && grid.hasHidden()) {
    FailureOr<bool> done = classifyGrid();
    if (failed(done))
      return failure();
    if (*done)
      return success();
  }
  if (pad) {
    if (failed(placeKeyPadding(
            *pad, form.softcap.has_value(), grid.hasHidden(), staticTerms, out,
            eb, [&](const ExprP &e, bool asMask) { return fits(e, asMask); },
            why)))
      return failure();
    parts.push_back("key padding mask");
  }
  if (!out.scoreTerms.empty() || !out.scoreSelects.empty())
    parts.push_back("score_mod");
  if (!out.maskTerms.empty())
    parts.push_back("mask_mod");
  out.summary = llvm::join(parts, ", ");
  return success();
}

LogicalResult mlir::fa::raising::analyzeMasks(
    const ScoreForm &program, int rowAtom, int colAtom,
    ArrayRef<int> batchAtoms, ArrayRef<int> headAtoms, int64_t seqQ,
    int64_t seqK, AtomTable &atoms, MaskConfig &out, std::string &why) {
  return MaskAnalysis(rowAtom, colAtom, batchAtoms, headAtoms, seqQ, seqK,
                      atoms, out, why)
      .run(program);
}

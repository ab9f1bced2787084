//===- ZeroingFactors.cpp - Scores multiplied by a 0 / 1 mask
//--------------===//
//
// GPT-1 masks its scores as `w * b - 1e4 * (1 - b)` with b the causal
// buffer: the product zeroes the hidden scores and the added term gives
// them the fill. A factor that is 1 or 0 at each (row, key) position, whose
// zeros the masks applied after it hide, changes no visible score: the
// hidden ones are a fill either way. It is dropped; the masks after it say
// what is hidden.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa::raising;

namespace {
/// The positions hidden by the masks applied after a factor, as far as
/// they are functions of the positions (a data-dependent mask, such as key
/// padding, hides nothing here: the factor's zeros must be hidden anyway).
struct HiddenAfter {
  std::vector<char> hidden;
  void hideWhere(const std::vector<double> &vals,
                 llvm::function_ref<bool(double)> hides) {
    for (size_t k = 0; k < vals.size(); ++k)
      hidden[k] |= hides(vals[k]);
  }
};
} // namespace

/// "the scores are multiplied by <what> ('op')".
static std::string describeFactor(StringRef what, const ExprP &factor,
                                  ExprBuilder &eb) {
  return "the scores are multiplied by " + what.str() + " (" +
         describeNode(*eb.derefAll(factor)) + ")";
}

static LogicalResult checkFactor(const ScoreForm &form, const ZeroingFactor &z,
                                 int rowAtom, int colAtom,
                                 ArrayRef<int> batchAtoms, ExprBuilder &eb,
                                 std::string &why) {
  std::string w;
  FailureOr<std::vector<double>> vals =
      evaluatePositions(z.factor, rowAtom, colAtom, batchAtoms, eb, w);
  if (failed(vals)) {
    why = describeFactor("a non-constant", z.factor, eb) +
          " that is not a function of the positions (" + w + ")";
    return failure();
  }
  if (!llvm::all_of(*vals, [](double v) { return v == 0.0 || v == 1.0; })) {
    why = describeFactor("a tensor", z.factor, eb) +
          " that is not 0 / 1 at every position: a scale that varies";
    return failure();
  }
  HiddenAfter after{std::vector<char>(vals->size(), 0)};
  for (const SelectTerm &s : ArrayRef(form.selects).take_front(z.selectsAfter))
    if (FailureOr<std::vector<double>> c =
            evaluatePositions(s.cond, rowAtom, colAtom, batchAtoms, eb, w);
        succeeded(c))
      after.hideWhere(
          *c, [&](double v) { return (v != 0.0) != s.visibleWhenTrue; });
  for (const ExprP &b : ArrayRef(form.biases).take_front(z.biasesAfter))
    if (FailureOr<std::vector<double>> c =
            evaluatePositions(b, rowAtom, colAtom, batchAtoms, eb, w);
        succeeded(c))
      after.hideWhere(*c, [](double v) { return isMaskFill(v); });
  int64_t cols = eb.atoms.size(colAtom);
  for (size_t k = 0; k < vals->size(); ++k)
    if ((*vals)[k] == 0.0 && !after.hidden[k]) {
      why = describeFactor("a tensor", z.factor, eb) + " that is 0 at (row " +
            std::to_string(k / cols) + ", key " + std::to_string(k % cols) +
            ") where no mask applied after it hides the score: it is 0 "
            "there, not a fill";
      return failure();
    }
  return success();
}

LogicalResult mlir::fa::raising::checkZeroingFactors(const ScoreForm &form,
                                                     int rowAtom, int colAtom,
                                                     ArrayRef<int> batchAtoms,
                                                     ExprBuilder &eb,
                                                     std::string &why) {
  for (const ZeroingFactor &z : form.zeroingFactors)
    if (failed(checkFactor(form, z, rowAtom, colAtom, batchAtoms, eb, why)))
      return failure();
  return success();
}

//===- BundleExpr.cpp - Shape expressions of kernel bundles ---------------===//
#include "BundleExpr.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir::fa::nvvm_kernel;

static const char *const kSymbolNames[] = {
#define FA_SYMBOL(cpp, name) name,
#include "fa/Runtime/Symbols.inc"
#undef FA_SYMBOL
};

BundleExpr::BundleExpr(Sym symbol)
    : text(kSymbolNames[static_cast<int>(symbol)]), level(Level::Atom) {}

BundleExpr::BundleExpr(int64_t literal)
    // A negative literal is a unary minus: it binds like a product's factor.
    : text(std::to_string(literal)), level(Level::Atom) {}

BundleExpr BundleExpr::stride(llvm::StringRef operand, llvm::StringRef dim) {
  return BundleExpr(("stride(" + operand + ", " + dim + ")").str(), Level::Atom);
}

BundleExpr BundleExpr::size(llvm::StringRef operand, llvm::StringRef dim) {
  return BundleExpr(("size(" + operand + ", " + dim + ")").str(), Level::Atom);
}

BundleExpr BundleExpr::binary(const BundleExpr &a, char op, const BundleExpr &b) {
  Level level = (op == '*' || op == '/') ? Level::Product : Level::Sum;
  // Left-associative: the left operand needs parentheses only when it binds
  // more loosely, the right one also at the same level (a - (b - c)).
  auto operand = [&](const BundleExpr &e, bool right) {
    bool paren = right ? e.level >= level : e.level > level;
    return paren ? "(" + e.text + ")" : e.text;
  };
  return BundleExpr(operand(a, false) + " " + op + " " + operand(b, true), level);
}

BundleExpr BundleExpr::call(llvm::StringRef name, const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr((name + "(" + a.text + ", " + b.text + ")").str(), Level::Atom);
}

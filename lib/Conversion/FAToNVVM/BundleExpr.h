//===- BundleExpr.h - Shape expressions of kernel bundles -------*- C++ -*-===//
//
// The grid, integer parameters and workspace shapes of a bundle are shape
// expressions (docs/BundleFormat.md, *Expressions*). They are built here as
// C++ expressions over the shape symbols of the bundle schema (sym::, from
// fa/Runtime/Symbols.inc, generated from the schema like the runtime's own
// table), so a misspelt symbol does not compile and an operand's precedence
// is never lost; str() prints the format's text with the fewest parentheses.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_CONVERSION_FATONVVM_BUNDLEEXPR_H
#define FA_LIB_CONVERSION_FATONVVM_BUNDLEEXPR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace mlir::fa::nvvm_kernel {

/// The shape symbols of the bundle schema (x-fa-contract.symbols).
enum class Sym {
#define FA_SYMBOL(cpp, name) cpp,
#include "fa/Runtime/Symbols.inc"
#undef FA_SYMBOL
};

class BundleExpr {
public:
  BundleExpr(Sym symbol);
  BundleExpr(int64_t literal);
  /// stride(operand, dim): the stride of a logical dim of an operand.
  static BundleExpr stride(llvm::StringRef operand, llvm::StringRef dim);
  /// size(operand, dim): the size of a logical dim of an operand.
  static BundleExpr size(llvm::StringRef operand, llvm::StringRef dim);
  /// `a` op `b` for op one of + - * / (integer division, truncating).
  static BundleExpr binary(const BundleExpr &a, char op, const BundleExpr &b);
  /// name(a, b) for name one of ceildiv, min, max.
  static BundleExpr call(llvm::StringRef name, const BundleExpr &a, const BundleExpr &b);

  /// The expression's text in the bundle format.
  const std::string &str() const { return text; }
  operator llvm::json::Value() const { return text; }

private:
  /// How loosely the printed text binds (the format's precedence, C's).
  enum class Level { Atom, Product, Sum };
  BundleExpr(std::string text, Level level) : text(std::move(text)), level(level) {}

  std::string text;
  Level level;
};

/// The symbols as expressions: sym::SeqQ * sym::HeadsQ.
namespace sym {
#define FA_SYMBOL(cpp, name) inline const BundleExpr cpp{Sym::cpp};
#include "fa/Runtime/Symbols.inc"
#undef FA_SYMBOL
} // namespace sym

inline BundleExpr operator+(const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr::binary(a, '+', b);
}
inline BundleExpr operator-(const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr::binary(a, '-', b);
}
inline BundleExpr operator*(const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr::binary(a, '*', b);
}
inline BundleExpr operator/(const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr::binary(a, '/', b);
}
inline BundleExpr ceilDiv(const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr::call("ceildiv", a, b);
}
inline BundleExpr minOf(const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr::call("min", a, b);
}
inline BundleExpr maxOf(const BundleExpr &a, const BundleExpr &b) {
  return BundleExpr::call("max", a, b);
}

} // namespace mlir::fa::nvvm_kernel

#endif // FA_LIB_CONVERSION_FATONVVM_BUNDLEEXPR_H

//===- Expr.h - Shape expressions of grid and params ------------*- C++ -*-===//
//
// Expressions are parsed (syntax, symbols, function arity, static type) when a
// bundle loads and evaluated at each launch. Arithmetic is typed like C:
// integer op integer stays integer (`/` truncates toward zero), anything with
// a float literal is float (double precision; narrowed to f32 when packed).
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_EXPR_H
#define FA_RUNTIME_EXPR_H

#include "fa/Runtime/Status.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fa::runtime {

enum class Symbol : int {
  Batch,
  HeadsQ,
  HeadsKV,
  SeqQ,
  SeqK,
  HeadDim,
  HeadDimV,
  NumSMs,
};
constexpr int kNumSymbols = 8;

const char *symbolName(Symbol symbol);
std::optional<Symbol> parseSymbol(const std::string &name);

/// Values of the shape symbols at one launch; unset ones fail to evaluate.
class SymbolTable {
public:
  void set(Symbol s, int64_t v) { values_[static_cast<int>(s)] = v; }
  std::optional<int64_t> get(Symbol s) const {
    return values_[static_cast<int>(s)];
  }

private:
  std::array<std::optional<int64_t>, kNumSymbols> values_{};
};

class Expr {
public:
  struct Node;

  /// Parses `text`; errors have code InvalidBundle.
  static Expected<Expr> parse(const std::string &text);
  static Expr integer(int64_t value);
  static Expr floating(double value);

  const std::string &text() const { return text_; }
  /// Static type: true when the value is a float (has a float literal in an
  /// arithmetic position).
  bool isFloat() const;
  /// Symbols the expression reads.
  std::vector<Symbol> symbols() const;

  /// Integer value; errors (code Expression) on division by zero, overflow,
  /// unset symbols, or a float-typed expression.
  Expected<int64_t> evalInt(const SymbolTable &symbols) const;
  /// Value as a double (integer expressions are converted).
  Expected<double> evalFloat(const SymbolTable &symbols) const;

private:
  std::shared_ptr<const Node> root_;
  std::string text_;
};

} // namespace fa::runtime

#endif // FA_RUNTIME_EXPR_H

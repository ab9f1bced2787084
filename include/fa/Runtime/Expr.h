//===- Expr.h - Shape expressions of grid and params ------------*- C++ -*-===//
//
// Expressions are parsed (syntax, symbols, function arity, static type) when a
// bundle loads and evaluated at each launch. Arithmetic is typed like C:
// integer op integer stays integer (`/` truncates toward zero), anything with
// a float literal is float (double precision; narrowed to f32 when packed).
//
// Besides the shape symbols, `stride(operand, dim)` reads the stride (in
// elements) of a logical dimension of an operand as passed at launch, 0 when
// that dimension has size 1, and `size(operand, dim)` its size. Which
// operands and dims exist depends on the bundle, so the parser takes them
// from an OperandScope.
//
// Bundles come from outside, so nothing here may recurse on the input's size:
// the text is capped (kMaxExprLength), nesting of parentheses and calls is
// capped (kMaxExprNesting), and the parser compiles to a flat postfix program
// that an explicit stack evaluates (no tree to recurse over or destroy).
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_EXPR_H
#define FA_RUNTIME_EXPR_H

#include "fa/Runtime/Status.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fa::runtime {

/// The shape symbols, in the order of the bundle schema's
/// x-fa-contract.symbols (docs/BundleFormat.md, *Shape symbols*), from which
/// Symbols.inc is generated.
enum class Symbol : int {
#define FA_SYMBOL(cpp, name) cpp,
#include "fa/Runtime/Symbols.inc"
#undef FA_SYMBOL
};
constexpr int kNumSymbols = 0
#define FA_SYMBOL(cpp, name) +1
#include "fa/Runtime/Symbols.inc"
#undef FA_SYMBOL
    ;

const char *symbolName(Symbol symbol);
std::optional<Symbol> parseSymbol(const std::string &name);
/// Every symbol name, in order, joined by ", " (for messages).
const std::string &symbolNameList();

/// What expressions read at one launch: the values of the shape symbols and
/// the strides of the operands passed. Unset symbols and operands that were
/// not passed fail to evaluate.
class SymbolTable {
public:
  void set(Symbol s, int64_t v) { values_[static_cast<int>(s)] = v; }
  std::optional<int64_t> get(Symbol s) const {
    return values_[static_cast<int>(s)];
  }
  /// Per symbol, where its value comes from (which operands define it), for
  /// the message of an expression that reads it while it is unset. The
  /// table must outlive this one (checkOperands passes a static one).
  using Hints = std::array<std::string, kNumSymbols>;
  void setUnsetHints(const Hints *hints) { hints_ = hints; }
  std::string unsetReason(Symbol s) const {
    return hints_ ? (*hints_)[static_cast<int>(s)] : std::string();
  }

  /// Records an operand passed at this launch: its logical dims, sizes and
  /// strides (in elements), all outermost first and of equal length. A dim
  /// of size 1 is recorded with stride 0: it is broadcast, so a kernel may
  /// multiply any index by it.
  void setOperand(const std::string &operand,
                  const std::vector<std::string> &dims,
                  const std::vector<int64_t> &sizes,
                  const std::vector<int64_t> &strides);
  bool hasOperand(const std::string &operand) const {
    return operands_.count(operand) != 0;
  }
  /// The recorded stride; nullopt when the operand was not passed or has no
  /// such dim.
  std::optional<int64_t> stride(const std::string &operand,
                                const std::string &dim) const;
  /// The recorded size; nullopt like stride().
  std::optional<int64_t> size(const std::string &operand,
                              const std::string &dim) const;

private:
  struct OperandDim {
    std::string name;
    int64_t size, stride;
  };
  const OperandDim *findDim(const std::string &operand,
                            const std::string &dim) const;

  std::array<std::optional<int64_t>, kNumSymbols> values_{};
  const Hints *hints_ = nullptr;
  std::map<std::string, std::vector<OperandDim>> operands_;
};

/// The operands `stride(operand, dim)` and `size(operand, dim)` may name,
/// for load-time checks.
struct OperandScope {
  /// Logical dims of `operand`, outermost first; empty for a name that is
  /// not an operand.
  std::function<std::vector<std::string>(const std::string &operand)> dimsOf;
  /// The known operand names, for messages ("query, key, ...").
  std::string known;
};

/// One `stride(operand, dim)` or `size(operand, dim)` in an expression.
struct StrideRef {
  std::string operand;
  std::string dim;
};

/// Longest expression text accepted (the compiler writes < 40 characters).
constexpr size_t kMaxExprLength = 4096;
/// Deepest nesting of parentheses and function calls accepted.
constexpr int kMaxExprNesting = 32;

class Expr {
public:
  struct Program;

  /// Parses `text`; errors have code InvalidBundle. Without a scope, the
  /// names in stride() and size() are checked only syntactically.
  static Expected<Expr> parse(const std::string &text);
  /// Same, with stride()'s and size()'s operand and dim checked against
  /// `scope`.
  static Expected<Expr> parse(const std::string &text,
                              const OperandScope &scope);
  static Expr integer(int64_t value);
  static Expr floating(double value);

  const std::string &text() const { return text_; }
  /// Static type: true when the value is a float (has a float literal in an
  /// arithmetic position).
  bool isFloat() const;
  /// Symbols the expression reads.
  std::vector<Symbol> symbols() const;
  /// The stride() references, in order of first appearance, each once.
  std::vector<StrideRef> strides() const;
  /// The size() references, likewise.
  std::vector<StrideRef> sizes() const;

  /// Integer value; errors (code Expression) on division by zero, overflow,
  /// unset symbols, a stride() or size() of an operand not passed, or a
  /// float-typed expression.
  Expected<int64_t> evalInt(const SymbolTable &symbols) const;
  /// Value as a double (integer expressions are converted).
  Expected<double> evalFloat(const SymbolTable &symbols) const;

private:
  std::shared_ptr<const Program> program_;
  std::string text_;
};

} // namespace fa::runtime

#endif // FA_RUNTIME_EXPR_H

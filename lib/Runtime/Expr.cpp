//===- Expr.cpp - Shape expressions ---------------------------------------===//
#include "fa/Runtime/Expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace fa::runtime {

static const char *const kSymbolNames[kNumSymbols] = {
    "batch", "heads_q", "heads_kv", "seq_q",
    "seq_k", "head_dim", "head_dim_v", "num_sms"};

const char *symbolName(Symbol symbol) {
  return kSymbolNames[static_cast<int>(symbol)];
}

std::optional<Symbol> parseSymbol(const std::string &name) {
  for (int i = 0; i < kNumSymbols; ++i)
    if (name == kSymbolNames[i])
      return static_cast<Symbol>(i);
  return std::nullopt;
}

void SymbolTable::setOperand(const std::string &operand,
                             const std::vector<std::string> &dims,
                             const std::vector<int64_t> &sizes,
                             const std::vector<int64_t> &strides) {
  std::vector<std::pair<std::string, int64_t>> &out = strides_[operand];
  out.clear();
  for (size_t i = 0; i < dims.size() && i < sizes.size() && i < strides.size();
       ++i)
    out.emplace_back(dims[i], sizes[i] == 1 ? 0 : strides[i]);
}

std::optional<int64_t> SymbolTable::stride(const std::string &operand,
                                           const std::string &dim) const {
  auto it = strides_.find(operand);
  if (it == strides_.end())
    return std::nullopt;
  for (const auto &[name, value] : it->second)
    if (name == dim)
      return value;
  return std::nullopt;
}

enum class Op {
  Int, Float, Sym, Stride, Neg, Add, Sub, Mul, Div, CeilDiv, Min, Max
};

struct Expr::Node {
  Op op;
  bool isFloat = false; // static type of the node's value
  int64_t intValue = 0;
  double floatValue = 0;
  Symbol symbol = Symbol::Batch;
  std::string operand, dim; // Stride
  std::shared_ptr<const Node> lhs, rhs;
};

using NodePtr = std::shared_ptr<const Expr::Node>;

namespace {

/// A value during evaluation: integer unless a float took part.
struct Num {
  bool isFloat;
  int64_t i;
  double f;
  double asDouble() const { return isFloat ? f : static_cast<double>(i); }
};

class ExprParser {
public:
  ExprParser(const std::string &text, const OperandScope *scope)
      : text_(text), scope_(scope) {}

  Expected<NodePtr> parseAll() {
    NodePtr root;
    FA_RETURN_IF_ERROR(parseSum(root));
    skipSpace();
    if (pos_ < text_.size())
      return fail(std::string("unexpected '") + text_[pos_] + "'");
    return root;
  }

private:
  Status fail(const std::string &what) const {
    std::string where = pos_ >= text_.size()
                            ? "at end of expression"
                            : "at column " + std::to_string(pos_ + 1);
    return Status::error(ErrorCode::InvalidBundle, "expression \"" + text_ +
                                                       "\": " + what + " " +
                                                       where);
  }

  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static NodePtr binary(Op op, NodePtr lhs, NodePtr rhs) {
    auto n = std::make_shared<Expr::Node>();
    n->op = op;
    n->isFloat = lhs->isFloat || rhs->isFloat;
    n->lhs = std::move(lhs);
    n->rhs = std::move(rhs);
    return n;
  }

  // sum := product (('+' | '-') product)*
  Status parseSum(NodePtr &out) {
    FA_RETURN_IF_ERROR(parseProduct(out));
    while (true) {
      Op op;
      if (consume('+'))
        op = Op::Add;
      else if (consume('-'))
        op = Op::Sub;
      else
        return Status::success();
      NodePtr rhs;
      FA_RETURN_IF_ERROR(parseProduct(rhs));
      out = binary(op, out, rhs);
    }
  }

  // product := unary (('*' | '/') unary)*
  Status parseProduct(NodePtr &out) {
    FA_RETURN_IF_ERROR(parseUnary(out));
    while (true) {
      Op op;
      if (consume('*'))
        op = Op::Mul;
      else if (consume('/'))
        op = Op::Div;
      else
        return Status::success();
      NodePtr rhs;
      FA_RETURN_IF_ERROR(parseUnary(rhs));
      out = binary(op, out, rhs);
    }
  }

  // unary := ('-' | '+') unary | primary
  Status parseUnary(NodePtr &out) {
    if (consume('-')) {
      NodePtr operand;
      FA_RETURN_IF_ERROR(parseUnary(operand));
      auto n = std::make_shared<Node>();
      n->op = Op::Neg;
      n->isFloat = operand->isFloat;
      n->lhs = operand;
      out = n;
      return Status::success();
    }
    if (consume('+'))
      return parseUnary(out);
    return parsePrimary(out);
  }

  using Node = Expr::Node;

  Status parseNumber(NodePtr &out) {
    size_t start = pos_;
    bool isFloat = false;
    while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
      ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      isFloat = true;
      ++pos_;
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
        ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      isFloat = true;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (pos_ >= text_.size() || !std::isdigit((unsigned char)text_[pos_]))
        return fail("expected digits in the exponent");
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
        ++pos_;
    }
    const char *first = text_.data() + start, *last = text_.data() + pos_;
    if (first == last || (last - first == 1 && *first == '.')) {
      pos_ = start;
      return fail("invalid number");
    }
    auto n = std::make_shared<Node>();
    n->isFloat = isFloat;
    if (isFloat) {
      n->op = Op::Float;
      auto res = std::from_chars(first, last, n->floatValue);
      if (res.ec != std::errc() || res.ptr != last) {
        pos_ = start;
        return fail("invalid float literal");
      }
    } else {
      n->op = Op::Int;
      auto res = std::from_chars(first, last, n->intValue);
      if (res.ec != std::errc() || res.ptr != last) {
        pos_ = start;
        return fail("integer literal out of range");
      }
    }
    out = n;
    return Status::success();
  }

  Status parsePrimary(NodePtr &out) {
    skipSpace();
    if (pos_ >= text_.size())
      return fail("expected a number, symbol, function or '('");
    char c = text_[pos_];
    if (std::isdigit((unsigned char)c) || c == '.')
      return parseNumber(out);
    if (c == '(') {
      ++pos_;
      FA_RETURN_IF_ERROR(parseSum(out));
      if (!consume(')'))
        return fail("expected ')'");
      return Status::success();
    }
    if (!atIdentifierStart())
      return fail(std::string("unexpected '") + c + "'");
    size_t start = pos_;
    std::string name = identifier();
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (name == "stride") {
        ++pos_;
        return parseStride(out);
      }
      Op op;
      if (name == "ceildiv")
        op = Op::CeilDiv;
      else if (name == "min")
        op = Op::Min;
      else if (name == "max")
        op = Op::Max;
      else {
        pos_ = start;
        return fail("unknown function '" + name +
                    "' (known: ceildiv, min, max, stride)");
      }
      ++pos_;
      NodePtr a, b;
      FA_RETURN_IF_ERROR(parseSum(a));
      if (!consume(','))
        return fail(name + "() takes 2 arguments; expected ','");
      FA_RETURN_IF_ERROR(parseSum(b));
      if (!consume(')'))
        return fail(name + "() takes 2 arguments; expected ')'");
      if (op == Op::CeilDiv && (a->isFloat || b->isFloat)) {
        pos_ = start;
        return fail("ceildiv() needs integer arguments");
      }
      out = binary(op, a, b);
      return Status::success();
    }
    std::optional<Symbol> sym = parseSymbol(name);
    if (!sym) {
      pos_ = start;
      return fail("unknown symbol '" + name +
                  "' (known: batch, heads_q, heads_kv, seq_q, seq_k, "
                  "head_dim, head_dim_v, num_sms)");
    }
    auto n = std::make_shared<Node>();
    n->op = Op::Sym;
    n->symbol = *sym;
    out = n;
    return Status::success();
  }

  bool atIdentifierStart() const {
    return pos_ < text_.size() &&
           (std::isalpha((unsigned char)text_[pos_]) || text_[pos_] == '_');
  }

  std::string identifier() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum((unsigned char)text_[pos_]) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }

  static std::string join(const std::vector<std::string> &names) {
    std::string out;
    for (const auto &n : names)
      out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  // stride := 'stride' '(' name ',' name ')', entered after the '('. The
  // arguments are names, not expressions: an operand and one of its dims.
  Status parseStride(NodePtr &out) {
    static const char *const kArity =
        "stride() takes 2 arguments, an operand and one of its dimensions";
    static const char *const kNames =
        "stride() takes names (an operand and one of its dimensions), not "
        "expressions";
    std::string args[2];
    size_t argPos[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ')')
        return fail(std::string(kArity) + "; got " + std::to_string(i));
      if (!atIdentifierStart())
        return fail(std::string(kNames) + "; expected " +
                    (i == 0 ? "an operand name" : "a dimension name"));
      argPos[i] = pos_;
      args[i] = identifier();
      skipSpace();
      char want = i == 0 ? ',' : ')';
      if (pos_ < text_.size() && text_[pos_] == want) {
        ++pos_;
        continue;
      }
      if (pos_ >= text_.size())
        return fail(std::string(kArity) + "; expected '" + want + "'");
      if (i == 0 && text_[pos_] == ')')
        return fail(std::string(kArity) + "; got 1");
      if (i == 1 && text_[pos_] == ',')
        return fail(std::string(kArity) + "; got more");
      return fail(std::string(kNames) + "; unexpected '" + text_[pos_] + "'");
    }
    if (scope_) {
      std::vector<std::string> dims = scope_->dimsOf(args[0]);
      if (dims.empty()) {
        pos_ = argPos[0];
        return fail("stride(): unknown operand '" + args[0] + "' (known: " +
                    scope_->known + ")");
      }
      if (std::find(dims.begin(), dims.end(), args[1]) == dims.end()) {
        pos_ = argPos[1];
        return fail("stride(): operand '" + args[0] + "' has no dimension '" +
                    args[1] + "' (its dims: " + join(dims) + ")");
      }
    }
    auto n = std::make_shared<Node>();
    n->op = Op::Stride;
    n->operand = args[0];
    n->dim = args[1];
    out = n;
    return Status::success();
  }

  const std::string &text_;
  const OperandScope *scope_;
  size_t pos_ = 0;
};

class Evaluator {
public:
  Evaluator(const std::string &text, const SymbolTable &symbols)
      : text_(text), symbols_(symbols) {}

  Status eval(const Expr::Node &n, Num &out) const {
    switch (n.op) {
    case Op::Int: out = {false, n.intValue, 0}; return Status::success();
    case Op::Float: out = {true, 0, n.floatValue}; return Status::success();
    case Op::Sym: {
      std::optional<int64_t> v = symbols_.get(n.symbol);
      if (!v)
        return fail(std::string("symbol '") + symbolName(n.symbol) +
                    "' has no value at this launch (no operand provides it)");
      out = {false, *v, 0};
      return Status::success();
    }
    case Op::Stride: {
      std::string call = "stride(" + n.operand + ", " + n.dim + ")";
      if (!symbols_.hasOperand(n.operand))
        return fail(call + ": operand '" + n.operand +
                    "' is not passed at this launch");
      std::optional<int64_t> v = symbols_.stride(n.operand, n.dim);
      if (!v)
        return fail(call + ": operand '" + n.operand + "' has no dimension '" +
                    n.dim + "'");
      out = {false, *v, 0};
      return Status::success();
    }
    case Op::Neg: {
      Num a;
      FA_RETURN_IF_ERROR(eval(*n.lhs, a));
      if (a.isFloat) {
        out = {true, 0, -a.f};
        return Status::success();
      }
      if (a.i == std::numeric_limits<int64_t>::min())
        return fail("integer overflow");
      out = {false, -a.i, 0};
      return Status::success();
    }
    default: break;
    }
    Num a, b;
    FA_RETURN_IF_ERROR(eval(*n.lhs, a));
    FA_RETURN_IF_ERROR(eval(*n.rhs, b));
    if (a.isFloat || b.isFloat)
      return evalFloat(n.op, a.asDouble(), b.asDouble(), out);
    return evalInt(n.op, a.i, b.i, out);
  }

  Status fail(const std::string &what) const {
    return Status::error(ErrorCode::Expression,
                         "expression \"" + text_ + "\": " + what);
  }

private:
  Status evalInt(Op op, int64_t a, int64_t b, Num &out) const {
    int64_t r = 0;
    switch (op) {
    case Op::Add:
      if (__builtin_add_overflow(a, b, &r))
        return fail("integer overflow");
      break;
    case Op::Sub:
      if (__builtin_sub_overflow(a, b, &r))
        return fail("integer overflow");
      break;
    case Op::Mul:
      if (__builtin_mul_overflow(a, b, &r))
        return fail("integer overflow");
      break;
    case Op::Div:
    case Op::CeilDiv:
      if (b == 0)
        return fail(op == Op::Div ? "division by zero"
                                  : "division by zero in ceildiv()");
      if (a == std::numeric_limits<int64_t>::min() && b == -1)
        return fail("integer overflow");
      r = a / b;
      if (op == Op::CeilDiv && a % b != 0 && ((a < 0) == (b < 0)))
        ++r; // round toward +infinity
      break;
    case Op::Min: r = a < b ? a : b; break;
    case Op::Max: r = a > b ? a : b; break;
    default: return fail("internal error: bad integer operator");
    }
    out = {false, r, 0};
    return Status::success();
  }

  Status evalFloat(Op op, double a, double b, Num &out) const {
    double r = 0;
    switch (op) {
    case Op::Add: r = a + b; break;
    case Op::Sub: r = a - b; break;
    case Op::Mul: r = a * b; break;
    case Op::Div:
      if (b == 0)
        return fail("division by zero");
      r = a / b;
      break;
    case Op::Min: r = std::fmin(a, b); break;
    case Op::Max: r = std::fmax(a, b); break;
    default: return fail("internal error: bad float operator");
    }
    if (!std::isfinite(r))
      return fail("float result is not finite");
    out = {true, 0, r};
    return Status::success();
  }

  const std::string &text_;
  const SymbolTable &symbols_;
};

void collectSymbols(const Expr::Node *n, std::set<int> &out) {
  if (!n)
    return;
  if (n->op == Op::Sym)
    out.insert(static_cast<int>(n->symbol));
  collectSymbols(n->lhs.get(), out);
  collectSymbols(n->rhs.get(), out);
}

void collectStrides(const Expr::Node *n, std::vector<StrideRef> &out) {
  if (!n)
    return;
  if (n->op == Op::Stride) {
    bool seen = false;
    for (const StrideRef &r : out)
      seen = seen || (r.operand == n->operand && r.dim == n->dim);
    if (!seen)
      out.push_back({n->operand, n->dim});
  }
  collectStrides(n->lhs.get(), out);
  collectStrides(n->rhs.get(), out);
}

} // namespace

Expected<Expr> Expr::parse(const std::string &text) {
  return parse(text, OperandScope());
}

Expected<Expr> Expr::parse(const std::string &text,
                           const OperandScope &scope) {
  Expected<NodePtr> root =
      ExprParser(text, scope.dimsOf ? &scope : nullptr).parseAll();
  if (!root.ok())
    return root.status();
  Expr e;
  e.root_ = *root;
  e.text_ = text;
  return e;
}

Expr Expr::integer(int64_t value) {
  auto n = std::make_shared<Node>();
  n->op = Op::Int;
  n->intValue = value;
  Expr e;
  e.root_ = n;
  e.text_ = std::to_string(value);
  return e;
}

Expr Expr::floating(double value) {
  auto n = std::make_shared<Node>();
  n->op = Op::Float;
  n->isFloat = true;
  n->floatValue = value;
  Expr e;
  e.root_ = n;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  e.text_.assign(buf, res.ptr);
  return e;
}

bool Expr::isFloat() const { return root_ && root_->isFloat; }

std::vector<Symbol> Expr::symbols() const {
  std::set<int> ids;
  collectSymbols(root_.get(), ids);
  std::vector<Symbol> out;
  for (int id : ids)
    out.push_back(static_cast<Symbol>(id));
  return out;
}

std::vector<StrideRef> Expr::strides() const {
  std::vector<StrideRef> out;
  collectStrides(root_.get(), out);
  return out;
}

Expected<int64_t> Expr::evalInt(const SymbolTable &symbols) const {
  Evaluator ev(text_, symbols);
  if (!root_)
    return ev.fail("empty expression");
  Num v;
  FA_RETURN_IF_ERROR(ev.eval(*root_, v));
  if (v.isFloat)
    return ev.fail("has a float value where an integer is required");
  return v.i;
}

Expected<double> Expr::evalFloat(const SymbolTable &symbols) const {
  Evaluator ev(text_, symbols);
  if (!root_)
    return ev.fail("empty expression");
  Num v;
  FA_RETURN_IF_ERROR(ev.eval(*root_, v));
  return v.asDouble();
}

} // namespace fa::runtime
